import { caretLines, errorInFile, type ScriptError } from '../runtime/support';

/** `file:line:col: <STATEMENT>: reason`, then the offending line with a caret, as compilers report. */
export function formatScriptError(file: string, e: ScriptError, source: string): string {
  if (!e.position) return errorInFile(file, e);
  return [errorInFile(file, e), ...caretLines(source, e.position).map((l) => `  ${l}`)].join('\n');
}
