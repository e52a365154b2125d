import Table from 'cli-table3';
import stringWidth from 'string-width';
import { datasetText, writerOptions, type RowWriter } from '../writers';
import { jsonObjectWriter } from '../writers/json';
import type { Dataset } from './dataset';
import { formatValue, NULL_DISPLAY, toPlainValue } from './format-value';
import { typeName } from './type-names';
import { textView } from './vector';
import { STRING, type BaseType, type Column, type ColumnType, type Value } from './types';
import { thousands } from '../util/words';

/**
 * A dataset as text (terminal), HTML (notebook), JSON rows, CSV and a Jupyter data resource.
 * Display forms cut at a row limit and say how many rows there are; export forms take every row.
 */

export interface TextOptions {
  /** Rows shown; the footer gives the total. */
  limit: number;
  /** Terminal columns the table must fit in; default 120. */
  width?: number;
  /** Rows of the whole when `ds` is its first part (a change log's first page): the footer counts those. */
  total?: number;
}

const DEFAULT_WIDTH = 120;
/** Narrowest a shrunk column gets (with its two padding spaces): fewer, readable columns beat many stubs. */
const MIN_COLUMN_WIDTH = 12;
/** HTML cells longer than this are cut: one huge payload column must not freeze a notebook. */
const MAX_HTML_CELL = 1000;
const NUMERIC: ReadonlySet<BaseType> = new Set(['tinyint', 'short', 'int', 'long', 'decimal', 'double', 'float']);
// eslint-disable-next-line no-control-regex -- control characters are what a text cell replaces
const CONTROL = /[\u0000-\u001f\u007f]/g;
const JSON_EXPORT = writerOptions();
const CSV_EXPORT = writerOptions({ header: true });

/** `(3 rows)`, `(1 row)`, or `(showing 20 of 1,000,000 rows)` when cut. */
export function rowCountLine(total: number, shown: number): string {
  if (shown < total) return `(showing ${thousands(shown)} of ${thousands(total)} rows)`;
  return `(${thousands(total)} ${total === 1 ? 'row' : 'rows'})`;
}

/** `s` cut to at most `max` UTF-16 units plus `…`, never splitting a surrogate pair. */
function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const end = /[\ud800-\udbff]/.test(s[max - 1]) ? max - 1 : max;
  return `${s.slice(0, end)}…`;
}

/**
 * Per column, its cells as `formatValue` reads them: typed datetimes and decimals as their text,
 * straight from the storage (vector.ts `textView`), the rest as values; a selection's rows are read
 * through it, nothing gathered.
 */
function cellTexts(ds: Dataset): ((r: number) => Value)[] {
  return ds.columns.map((c, i) => ds.cellReader(i, (vector) => textView(vector, c.type)));
}

/**
 * Display text of a cell: NULL for null; control characters shown as spaces (`↵` for line breaks).
 * Cut to the terminal width first: a cell can never show more, and cli-table3 measures and trims
 * whole strings (quadratic on long non-ASCII text).
 */
function displayCell(v: Value, type: ColumnType, width: number): string {
  if (v === null) return NULL_DISPLAY;
  return clip(formatValue(v, type), width).replace(CONTROL, (c) => (c === '\n' ? '↵' : c === '\r' ? '' : ' '));
}

/**
 * A plain-text table (no ANSI colours): each header cell is the column name over its type, numbers
 * are right-aligned, long cells end in `…` so the table fits `width`; columns that cannot fit at
 * all are left out and named in a footer.
 */
export function renderText(ds: Dataset, options: TextOptions): string {
  const width = options.width ?? DEFAULT_WIDTH;
  const shown = Math.min(ds.rowCount, Math.max(0, options.limit));
  const footer = rowCountLine(options.total ?? ds.rowCount, shown);
  if (ds.columns.length === 0) return `(no columns)\n${footer}`;

  const head = ds.columns.map((c) => `${displayCell(c.name, STRING, width)}\n${typeName(c.type)}`);
  const cells = cellTexts(ds);
  const body: string[][] = [];
  for (let r = 0; r < shown; r++) body.push(ds.columns.map((c, i) => displayCell(cells[i](r), c.type, width)));
  const aligns = ds.columns.map((c) => (NUMERIC.has(c.type.base) ? 'right' : 'left'));

  const natural = naturalWidths(head, body);
  const fitted = fitWidths(natural, width);
  if (!fitted) return `${drawTable(head, body, aligns, natural)}\n${footer}`;

  const k = fitted.length;
  const table = drawTable(
    head.slice(0, k),
    body.map((row) => row.slice(0, k)),
    aligns.slice(0, k),
    fitted,
  );
  const lines = [table, footer];
  if (k < ds.columns.length) {
    const hidden = ds.columns.slice(k).map((c) => c.name);
    const note = `(${hidden.length} more column${hidden.length === 1 ? '' : 's'} not shown: ${hidden.join(', ')})`;
    lines.push(note.length > width ? `${note.slice(0, Math.max(1, width - 2))}…)` : note);
  }
  return lines.join('\n');
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Columns a cell's text takes on a terminal, as cli-table3 measures it (its widest line). */
function textWidth(text: string): number {
  let widest = 0;
  for (const line of text.split('\n'))
    widest = Math.max(widest, PRINTABLE_ASCII.test(line) ? line.length : stringWidth(line));
  return widest;
}

/**
 * Each column's width when nothing is cut: its widest cell and the two padding spaces, as cli-table3
 * lays a table out. Measured here rather than by drawing the table twice, once to learn the widths.
 */
function naturalWidths(head: string[], body: string[][]): number[] {
  const widths = head.map(textWidth);
  for (const row of body) for (let c = 0; c < row.length; c++) widths[c] = Math.max(widths[c], textWidth(row[c]));
  return widths.map((w) => w + 2);
}

/** cli-table3's own cut and pad (its internals, untyped), for the cells the fast path leaves to it. */
const cliTableText = require('cli-table3/src/utils') as {
  truncate(text: string, width: number): string;
  pad(text: string, width: number, fill: string, align: 'left' | 'right'): string;
};

/**
 * A table as cli-table3 draws it (borders, header cells over two lines, compact rows, `…` where a
 * cell is cut). cli-table3 draws the top border, the header, the rule and the first row; the other
 * rows are drawn here, as it would draw them: it measures and pads every cell through regular
 * expressions it builds anew each time (~50 µs a row: 160,000 rows took 15 s), where a printable
 * ASCII cell that fits needs only spaces. Other cells go through cli-table3's own cut and pad.
 * test/dataset/render.test.ts checks the two give the same text.
 */
export function drawTable(
  head: string[],
  body: string[][],
  colAligns: Array<'left' | 'right'>,
  colWidths: number[],
): string {
  const table = new Table({ head, colAligns, colWidths, style: { head: [], border: [], compact: true } });
  if (body.length > 0) table.push(body[0]);
  const drawn = table.toString().split('\n');
  if (body.length <= 1) return drawn.join('\n');
  const bottom = drawn.pop()!;
  const inner = colWidths.map((w) => w - 2);
  for (let r = 1; r < body.length; r++) {
    const row = body[r];
    let line = '│';
    for (let c = 0; c < inner.length; c++) line += ` ${fitCell(row[c], inner[c], colAligns[c])} │`;
    drawn.push(line);
  }
  drawn.push(bottom);
  return drawn.join('\n');
}

function fitCell(text: string, width: number, align: 'left' | 'right'): string {
  if (text.length <= width && PRINTABLE_ASCII.test(text)) {
    const fill = ' '.repeat(width - text.length);
    return align === 'right' ? fill + text : text + fill;
  }
  return cliTableText.pad(cliTableText.truncate(text, width), width, ' ', align);
}

/**
 * Column widths that fit `width` (borders take columns + 1), or undefined when the natural widths
 * already fit. Wide columns shrink first, to a common cap; columns that do not fit even at the
 * minimum are dropped from the right (at least one column stays).
 */
function fitWidths(natural: number[], width: number): number[] | undefined {
  const sum = (ws: number[]) => ws.reduce((a, b) => a + b, 0);
  if (sum(natural) + natural.length + 1 <= width) return undefined;
  // A terminal narrower than one minimum column still gets one column, as wide as it allows.
  const floor = Math.min(MIN_COLUMN_WIDTH, Math.max(3, width - 2));
  const minimum = natural.map((w) => Math.min(w, floor));
  let k = 0;
  let used = 1;
  while (k < natural.length && used + minimum[k] + 1 <= width) used += minimum[k++] + 1;
  k = Math.max(k, 1);
  const budget = width - (k + 1);
  const keep = natural.slice(0, k);
  const capped = (cap: number) => keep.map((w, i) => Math.max(minimum[i], Math.min(w, cap)));
  // The largest cap whose total fits: sum(capped(cap)) grows with cap.
  let lo = floor;
  let hi = Math.max(...keep);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sum(capped(mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  const widths = capped(lo);
  let spare = budget - sum(widths);
  for (let i = 0; i < k && spare > 0; i++) {
    if (widths[i] < keep[i]) {
      widths[i]++;
      spare--;
    }
  }
  return widths;
}

export interface HtmlOptions {
  limit: number;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** An HTML table for notebooks: names with their types in the header, escaped cells, the row count. */
export function renderHtml(ds: Dataset, options: HtmlOptions): string {
  const shown = Math.min(ds.rowCount, Math.max(0, options.limit));
  const count = `<p class="sqlcdc-rows">${rowCountLine(ds.rowCount, shown)}</p>`;
  if (ds.columns.length === 0) return `<p>(no columns)</p>\n${count}`;
  const numeric = ds.columns.map((c) => NUMERIC.has(c.type.base));
  const th = ds.columns.map(
    (c, i) =>
      `<th${numeric[i] ? ' style="text-align:right"' : ''}${c.description ? ` title="${escapeHtml(c.description)}"` : ''}>` +
      `${escapeHtml(c.name)}<br>` +
      `<span style="font-weight:normal;opacity:0.7">${escapeHtml(typeName(c.type))}</span></th>`,
  );
  const rows: string[] = [];
  const read = cellTexts(ds);
  for (let r = 0; r < shown; r++) {
    const cells = ds.columns.map((c, i) => {
      const align = numeric[i] ? ' style="text-align:right"' : '';
      const v = read[i](r);
      if (v === null) return `<td${align}><i>${NULL_DISPLAY}</i></td>`;
      return `<td${align}>${escapeHtml(clip(formatValue(v, c.type), MAX_HTML_CELL))}</td>`;
    });
    rows.push(`<tr>${cells.join('')}</tr>`);
  }
  return (
    `<table class="sqlcdc">\n<thead><tr>${th.join('')}</tr></thead>\n` +
    `<tbody>\n${rows.join('\n')}${rows.length ? '\n' : ''}</tbody>\n</table>\n${count}`
  );
}

/** Every row as a JSON array of objects, with exact longs and decimals (docs/types.md). */
export function toJsonRows(ds: Dataset): string {
  return datasetText(ds, 'JSON', JSON_EXPORT);
}

/** One row of `toJsonRows` as its JSON object: for writers that stream rows (`changelog show --output json`). */
export function jsonRowWriter(columns: readonly Column[]): RowWriter {
  return jsonObjectWriter(
    columns,
    columns.map((_, i) => i),
    JSON_EXPORT,
  );
}

/**
 * RFC 4180 CSV: a header line, CRLF after every record, fields quoted when they hold a comma, quote,
 * CR or LF. An empty string is written `""` and null as nothing, so the two stay distinguishable.
 */
export function toCsv(ds: Dataset): string {
  return datasetText(ds, 'CSV', CSV_EXPORT);
}

/** Table Schema field types (frictionless), the vocabulary of application/vnd.dataresource+json. */
export type TableSchemaType = 'string' | 'integer' | 'number' | 'boolean' | 'datetime' | 'any';

const TABLE_SCHEMA_TYPES: Record<BaseType, TableSchemaType> = {
  string: 'string',
  char: 'string',
  guid: 'string',
  bool: 'boolean',
  tinyint: 'integer',
  short: 'integer',
  int: 'integer',
  long: 'integer',
  decimal: 'number',
  double: 'number',
  float: 'number',
  datetime: 'datetime',
  bytes: 'any',
};

export interface DataResource {
  schema: { fields: Array<{ name: string; type: TableSchemaType }>; primaryKey?: string[] };
  data: Array<Record<string, string | number | boolean | null>>;
}

/**
 * Jupyter's application/vnd.dataresource+json for the first `limit` rows. Values are plain JSON:
 * longs and decimals that a JS number cannot hold exactly are given as strings of their digits.
 */
export function toDataResource(ds: Dataset, limit: number, primaryKey?: string[]): DataResource {
  const columns: readonly Column[] = ds.columns;
  const shown = Math.min(ds.rowCount, Math.max(0, limit));
  const data: DataResource['data'] = [];
  const read = columns.map((_, i) => ds.cellReader(i));
  for (let r = 0; r < shown; r++) {
    const obj: Record<string, string | number | boolean | null> = {};
    for (let i = 0; i < columns.length; i++) obj[columns[i].name] = toPlainValue(read[i](r), columns[i].type);
    data.push(obj);
  }
  const schema: DataResource['schema'] = {
    fields: columns.map((c) => ({ name: c.name, type: TABLE_SCHEMA_TYPES[c.type.base] })),
  };
  if (primaryKey?.length) schema.primaryKey = primaryKey;
  return { schema, data };
}
