import assert from 'node:assert/strict';

/**
 * The markdown tables of a docs/ page, read so that a test can hold a hand-written table against the
 * code's own table (the magics, the REPL's commands) both ways.
 */

/** A row's cells, `\|` (a pipe inside a cell, even in code) read as `|`. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** The rows of the table whose header cells are `header` (the one table of the page with them). */
export function tableOf(markdown: string, header: readonly string[]): string[][] {
  const lines = markdown.split('\n');
  const starts = lines
    .map((l, i) => (l.startsWith('|') && cells(l).join('\u0000') === header.join('\u0000') ? i : -1))
    .filter((i) => i >= 0);
  assert.equal(starts.length, 1, `one table headed | ${header.join(' | ')} |`);
  const rows: string[][] = [];
  for (let i = starts[0] + 2; i < lines.length && lines[i].startsWith('|'); i++) rows.push(cells(lines[i]));
  return rows;
}

/** The `code` spans of a cell, as written. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

/** The option names a text writes (`--port N` → port; `--[no-]webhook` → webhook and no-webhook). */
export function optionsIn(text: string): string[] {
  return [...text.matchAll(/--(\[no-\])?([a-z][a-z0-9-]*)/g)].flatMap((m) => (m[1] ? [m[2], `no-${m[2]}`] : [m[2]]));
}
