/** "line L, column C" (1-based) of a 0-based offset into `text`, whose first line is `firstLine`. */
export function lineColumn(text: string, offset: number, firstLine = 1): string {
  let line = firstLine;
  let start = 0;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return `line ${line}, column ${end - start + 1}`;
}

/** The "<source>: " prefix of an error about a document from a file or column, or '' when unnamed. */
export function where(source: string | undefined): string {
  return source ? `${source}: ` : '';
}
