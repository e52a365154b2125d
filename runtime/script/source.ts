import { ScriptError, type ErrorKind, type Position } from '../errors';
import { lineAndColumn, lineStarts } from '../util/lines';

/**
 * The cell text and its line starts, so any offset becomes a 1-based line/column of the whole cell:
 * tokens of nested blocks (APPLY PIPELINE) and of the text after %magic lines all report positions in
 * the same coordinates the front ends show.
 */
export class SourceText {
  private readonly lineStarts: number[];

  constructor(readonly text: string) {
    this.lineStarts = lineStarts(text);
  }

  position(offset: number): Position {
    return { ...lineAndColumn(this.lineStarts, offset), offset };
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
