import { lineAndColumn, lineStarts } from '../util/lines';

/** "line L, column C" (1-based) of a 0-based offset into `text`, whose first line is `firstLine`. */
export function lineColumn(text: string, offset: number, firstLine = 1): string {
  const { line, column } = lineAndColumn(lineStarts(text), Math.min(offset, text.length));
  return `line ${firstLine - 1 + line}, column ${column}`;
}

/** The "<source>: " prefix of an error about a document from a file or column, or '' when unnamed. */
export function where(source: string | undefined): string {
  return source ? `${source}: ` : '';
}
