import Papa from 'papaparse';
import { Dataset } from '../../dataset/dataset';
import { STRING, type Column, type Value } from '../../dataset/types';
import { lineColumn, where } from '../../docpath/location';
import { uniqueName } from '../../docpath/typing';
import { ScriptError } from '../../errors';
import type { CsvOptions } from './options';

/**
 * CSV text → a dataset of string columns (APPLY SCHEMA types them). papaparse parses to arrays
 * (twice as fast as to objects) and its row arrays become the dataset rows as they are: no copy,
 * no per-cell work unless trim/flatten ask for it.
 */
export function parseCsv(text: string, options: CsvOptions, source?: string): Dataset {
  let input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (options.skip > 0) input = afterLines(input, options.skip);
  if (options.comments.length > 0) input = blankComments(input, options.comments);
  const rows = options.fields ? splitFixed(input, options.fields) : splitDelimited(input, options, options.skip + 1, source);
  if (rows.length === 0) return new Dataset();

  const header = options.headers ? rows.shift()! : undefined;
  let width = header ? header.length : 0;
  if (!header) for (const r of rows) if (r.length > width) width = r.length;
  const taken = new Set<string>();
  const columns: Column[] = [];
  for (let c = 0; c < width; c++) {
    const name = header ? header[c].trim() : '';
    columns.push({ name: uniqueName(name === '' ? `Column${c + 1}` : name, taken), type: STRING });
  }
  fitRows(rows, width, source);
  if (options.trim || options.flatten) cleanCells(rows, options.trim, options.flatten);
  return new Dataset(columns, rows as Value[][]);
}

/** The text after the first `n` lines. */
function afterLines(text: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return '';
    at = nl + 1;
  }
  return text.slice(at);
}

/** Comment lines become empty lines (skipped as such), so line numbers in errors stay right. */
function blankComments(text: string, tokens: string[]): string {
  const starts = tokens.map((t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
  return text.replace(new RegExp(`^(?:${starts})[^\\n\\r]*`, 'gm'), '');
}

function splitDelimited(input: string, options: CsvOptions, firstLine: number, source?: string): string[][] {
  const result = Papa.parse<string[]>(input, {
    delimiter: options.delimiter,
    quoteChar: options.quote ?? '"',
    // Without quoting, papaparse's fast mode splits lines and fields and ignores quote characters.
    fastMode: options.quote === undefined ? true : undefined,
    skipEmptyLines: true,
  });
  const error = result.errors.find((e) => e.type === 'Quotes');
  if (error) {
    const at = typeof error.index === 'number' ? ` at ${lineColumn(input, error.index, firstLine)}` : ` in row ${(error.row ?? 0) + 1}`;
    throw new ScriptError(`${where(source)}invalid CSV${at}: ${error.message.toLowerCase()}`, 'runtime');
  }
  return result.data;
}

/** Fixed-width lines: each column takes its width; text past the last width is ignored. */
function splitFixed(input: string, widths: number[]): string[][] {
  const rows: string[][] = [];
  for (const line of input.split(/\r?\n/)) {
    if (line === '') continue;
    const row: string[] = new Array(widths.length);
    let at = 0;
    for (let c = 0; c < widths.length; c++) {
      row[c] = line.slice(at, at + widths[c]);
      at += widths[c];
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Every row to the header's width: short rows get nulls; extra fields are an error unless they are
 * empty (a trailing delimiter), in which case they are dropped.
 */
function fitRows(rows: unknown[][], width: number, source?: string): void {
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (row.length === width) continue;
    if (row.length < width) {
      for (let c = row.length; c < width; c++) row.push(null);
      continue;
    }
    for (let c = width; c < row.length; c++) {
      if (row[c] !== '') {
        throw new ScriptError(`${where(source)}invalid CSV: data row ${r + 1} has ${row.length} fields; the header has ${width}`, 'runtime');
      }
    }
    row.length = width;
  }
}

const LINE_FEEDS = /[\r\n]+/g;

function cleanCells(rows: unknown[][], trim: boolean, flatten: boolean): void {
  for (const row of rows) {
    for (let c = 0; c < row.length; c++) {
      if (typeof row[c] !== 'string') continue;
      let v = row[c] as string;
      if (flatten && (v.includes('\n') || v.includes('\r'))) v = v.replace(LINE_FEEDS, '');
      if (trim) v = v.trim();
      row[c] = v;
    }
  }
}
