/**
 * Lines of a script or document for positions and carets (docs/language.md, "Errors"): a line ends
 * at `\r\n`, `\n` or a lone `\r` (old Mac text), as JavaScript, Python and PostgreSQL count them.
 */
const BREAK = /\r\n?|\n/g;

/** Offset of each line's first character; the first line starts at 0. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (const m of text.matchAll(BREAK)) starts.push(m.index + m[0].length);
  return starts;
}

/** 1-based line and column of `offset`, given the text's `lineStarts`. */
export function lineAndColumn(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo] + 1 };
}

/** Each line's text, without its break, and where it starts. */
export function linesOf(text: string): { text: string; start: number }[] {
  const starts = lineStarts(text);
  return starts.map((start, k) => ({
    text: text.slice(start, k + 1 < starts.length ? starts[k + 1] : text.length).replace(/\r?\n?$/, ''),
    start,
  }));
}

/** Whether the character at `i` ends a line: a `\n`, or a `\r` not followed by one. */
export function endsLine(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10);
}

/** Where the line holding the character before `offset` starts (0 on the first line): after a `\n` or a `\r`. */
export function lineStartBefore(text: string, offset: number): number {
  return Math.max(text.lastIndexOf('\n', offset - 1), text.lastIndexOf('\r', offset - 1)) + 1;
}

/** Where the line holding `from` ends: the offset of its break, or the text's length. */
export function lineEnd(text: string, from: number): number {
  const re = new RegExp(BREAK.source, 'g');
  re.lastIndex = from;
  return re.exec(text)?.index ?? text.length;
}
