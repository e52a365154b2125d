import { ScriptError, type ErrorKind, type Position } from '../errors';

/**
 * The cell text and its line starts, so any offset becomes a 1-based line/column of the whole cell:
 * tokens of nested blocks (APPLY PIPELINE) and of the text after %magic lines all report positions in
 * the same coordinates the front ends show.
 */
export class SourceText {
  private readonly lineStarts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }

  position(offset: number): Position {
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo] + 1, offset };
  }

  error(message: string, offset: number, kind: ErrorKind = 'syntax', statement?: string): ScriptError {
    return new ScriptError(message, kind, this.position(offset), statement);
  }

  /** Leading whitespace of the line holding `offset` (for REPL continuation indents). */
  indentAt(offset: number): string {
    const start = offset - (this.position(offset).column - 1);
    return /^[ \t]*/.exec(this.text.slice(start))![0];
  }
}

/** `'it''s'` → `it's` (the only escape of SQL CDC strings). */
export function unquote(literal: string): string {
  const inner = literal.slice(1, -1);
  return inner.includes("''") ? inner.replace(/''/g, "'") : inner;
}
