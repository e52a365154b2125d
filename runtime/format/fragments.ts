import type { Column, Value } from '../dataset/types';
import { ScriptError } from '../errors';
import type { DocFormat } from '../script/ast';
import type { FormatOptions } from './options';
import { objectRowWriter } from './json-object';
import { jsonWriter, textWriter } from './values';

/**
 * Row fragment writers for FORMAT JSON|XML|CSV: built once for a schema, the selected fields and
 * the options (keys, tags, writers and quoting decided up front), then called once per row.
 */
export type RowWriter = (row: readonly Value[]) => string;

/**
 * A fragment built by `+=` is a rope of small pieces; kept by the million they cost more in garbage
 * collection than building them did. Reading a character makes V8 flatten it into one string.
 */
function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}

export function rowWriter(format: DocFormat, columns: readonly Column[], ordinals: number[], options: FormatOptions): RowWriter {
  switch (format) {
    case 'JSON':
      return jsonRow(columns, ordinals, options);
    case 'XML':
      return xmlRow(columns, ordinals, options);
    case 'CSV':
      return csvRow(columns, ordinals, options);
  }
}

const enum JsonCell {
  Number,
  Text,
  Other,
}

/**
 * The kind of cell a JSON field holds, so the row loop can write plain numbers and strings inline
 * (the bulk of real rows) and call a column's writer only for the other types.
 */
function jsonCell(column: Column, options: FormatOptions): JsonCell {
  switch (column.type.base) {
    case 'tinyint':
    case 'short':
    case 'int':
    case 'double':
      return JsonCell.Number;
    case 'string':
    case 'char':
    case 'guid':
      return options.trim || options.flatten ? JsonCell.Other : JsonCell.Text;
    default:
      return JsonCell.Other;
  }
}

function jsonRow(columns: readonly Column[], ordinals: number[], options: FormatOptions): RowWriter {
  const n = ordinals.length;
  if (n === 0) return () => '{}';
  const keys = ordinals.map((o, k) => `${k === 0 ? '{' : ','}${JSON.stringify(columns[o].name)}:`);
  const cells = ordinals.map((o) => jsonCell(columns[o], options));
  const writers = ordinals.map((o) => jsonWriter(columns[o].type, options));
  const concatenated: RowWriter = (row) => {
    let s = '';
    for (let k = 0; k < n; k++) {
      const v = row[ordinals[k]];
      if (v === null) s += `${keys[k]}null`;
      else if (cells[k] === JsonCell.Number && typeof v === 'number' && Number.isFinite(v)) s += keys[k] + v;
      else if (cells[k] === JsonCell.Text && typeof v === 'string') s += keys[k] + JSON.stringify(v);
      else s += keys[k] + writers[k](v);
    }
    return flat(`${s}}`);
  };
  return objectRowWriter(columns, ordinals, options, concatenated) ?? concatenated;
}

// ----------------------------------------------------------------------------- XML

/** Characters XML 1.0 does not allow at all (even as references), and the ones that must be escaped. */
const XML_INVALID =
  // eslint-disable-next-line no-control-regex -- the control characters XML forbids are what this finds
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const XML_SPECIAL = /[&<>\r]/;

/** Escapes element content; characters XML cannot carry become U+FFFD (documented). */
export function xmlEscape(s: string): string {
  XML_INVALID.lastIndex = 0;
  const clean = XML_INVALID.test(s) ? s.replace(XML_INVALID, '\ufffd') : s;
  if (!XML_SPECIAL.test(clean)) return clean;
  return clean.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
}

/**
 * An element name for a column, as .NET's XmlConvert.EncodeLocalName writes it: each character not
 * allowed in a name becomes _xHHHH_ (a space is _x0020_), so any column name gives valid XML.
 */
export function xmlName(name: string): string {
  let out = '';
  let first = true;
  for (const ch of name) {
    const ok = first ? /[\p{L}_]/u.test(ch) : /[\u0300-\u036f\p{L}\p{N}_.\-\u00b7\u203f\u2040]/u.test(ch);
    out += ok ? ch : [...ch].map((c) => `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`).join('');
    first = false;
  }
  return out === '' ? '_' : out;
}

function xmlRow(columns: readonly Column[], ordinals: number[], options: FormatOptions): RowWriter {
  const n = ordinals.length;
  const open = ordinals.map((o) => `<${xmlName(columns[o].name)}>`);
  const close = ordinals.map((o) => `</${xmlName(columns[o].name)}>`);
  const writers = ordinals.map((o) => textWriter(columns[o].type, options));
  const before = options.element ? `<${options.element}>` : '';
  const after = options.element ? `</${options.element}>` : '';
  return (row) => {
    let s = before;
    for (let k = 0; k < n; k++) {
      const v = row[ordinals[k]];
      // .NET's DataSet.WriteXml omits null fields; readers then see the element as missing.
      if (v !== null) s += open[k] + xmlEscape(writers[k](v)) + close[k];
    }
    return flat(s + after);
  };
}

// ----------------------------------------------------------------------------- CSV

/** One CSV field: RFC 4180 quoting by default, or always/never as the `quoted` option says. */
function csvQuoter(options: FormatOptions): (s: string) => string {
  const quote = options.quote;
  if (quote === '') return (s) => s;
  const q = quote ?? '"';
  const doubled = q + q;
  const escape = (s: string) => q + s.split(q).join(doubled) + q;
  if (quote !== undefined) return escape;
  const delimiter = options.delimiter;
  return (s) => (s.includes(delimiter) || s.includes(q) || s.includes('\n') || s.includes('\r') ? escape(s) : s);
}

function csvRow(columns: readonly Column[], ordinals: number[], options: FormatOptions): RowWriter {
  const n = ordinals.length;
  const widths = options.widths;
  if (widths && widths.length !== n) {
    throw new ScriptError(`OPTIONS fields gives ${widths.length} width${widths.length === 1 ? '' : 's'} for ${n} field${n === 1 ? '' : 's'}`, 'semantic');
  }
  const quote = csvQuoter(options);
  const writers = ordinals.map((o) => textWriter(columns[o].type, options));
  const field = widths
    ? (s: string, k: number) => (s.length >= widths[k] ? s.slice(0, widths[k]) : s.padEnd(widths[k]))
    : (s: string) => quote(s);
  const separator = widths ? '' : options.delimiter;
  const line = (cells: (string | null)[]) => cells.map((c, k) => field(c ?? '', k)).join(separator);
  const comments = options.comments;
  const guard =
    comments.length > 0 && options.quote !== '' && !widths
      ? (s: string, first: string) => (comments.some((c) => s.startsWith(c)) && !first.startsWith(options.quote ?? '"') ? quoteFirst(s, first, options) : s)
      : undefined;
  const header = options.headers ? `${line(ordinals.map((o) => columns[o].name))}\r\n` : '';
  return (row) => {
    let s = '';
    let first = '';
    for (let k = 0; k < n; k++) {
      const v = row[ordinals[k]];
      const cell = field(v === null ? '' : writers[k](v), k);
      if (k === 0) first = cell;
      s += k === 0 ? cell : separator + cell;
    }
    return flat(header + (guard ? guard(s, first) : s));
  };
}

/** Re-quotes the first field of a line that a reader would otherwise take for a comment. */
function quoteFirst(line: string, first: string, options: FormatOptions): string {
  const q = options.quote ?? '"';
  return q + first.split(q).join(q + q) + q + line.slice(first.length);
}
