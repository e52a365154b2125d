import { positionIn, ScriptError, type ErrorKind, type Position } from '../errors';

/** What an expression error needs to point at the right place: the text and where it sits in the cell. */
export interface ErrorContext {
  source: string;
  /** Position of the expression's first character in the cell; absent when it has none (a setting). */
  at?: Position;
}

const QUOTED = 80;

/** The expression as quoted in messages: a long one only around `offset`, with … for the rest. */
function excerpt(source: string, offset: number): string {
  if (source.length <= QUOTED) return source;
  const start = Math.max(0, Math.min(offset - QUOTED / 2, source.length - QUOTED));
  const end = start + QUOTED;
  return `${start > 0 ? '…' : ''}${source.slice(start, end)}${end < source.length ? '…' : ''}`;
}

/**
 * A ScriptError for a problem at `offset` in an expression. The message quotes the expression and the
 * character so it reads well even where the caller has no cell position (settings, #data.calc).
 */
export function exprError(
  reason: string,
  offset: number,
  context: ErrorContext,
  kind: ErrorKind = 'syntax',
): ScriptError {
  const where = `at character ${offset + 1} of expression '${excerpt(context.source, offset)}'`;
  return new ScriptError(`${reason} (${where})`, kind, positionIn(context.at, context.source, offset));
}
