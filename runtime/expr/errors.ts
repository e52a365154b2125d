import { ScriptError, type ErrorKind, type Position } from '../errors';

/** What an expression error needs to point at the right place: the text and where it sits in the cell. */
export interface ErrorContext {
  source: string;
  /** Position of the expression's first character in the cell; absent when it has none (a setting). */
  at?: Position;
}

/** Maps an offset inside the expression to a cell position (line/column follow newlines inside it). */
export function positionIn(context: ErrorContext, offset: number): Position | undefined {
  const at = context.at;
  if (!at) return undefined;
  const before = context.source.slice(0, offset);
  const lastNewline = before.lastIndexOf('\n');
  if (lastNewline < 0) return { line: at.line, column: at.column + offset, offset: at.offset + offset };
  const lines = before.split('\n').length - 1;
  return { line: at.line + lines, column: offset - lastNewline, offset: at.offset + offset };
}

/**
 * A ScriptError for a problem at `offset` in an expression. The message quotes the expression and the
 * character so it reads well even where the caller has no cell position (settings, #data.calc).
 */
export function exprError(reason: string, offset: number, context: ErrorContext, kind: ErrorKind = 'syntax'): ScriptError {
  const where = `at character ${offset + 1} of expression '${context.source}'`;
  return new ScriptError(`${reason} (${where})`, kind, positionIn(context, offset));
}
