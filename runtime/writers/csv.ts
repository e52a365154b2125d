import type { Column } from '../dataset/types';
import { ScriptError } from '../errors';
import { keepsStrings, textWriter } from './cells';
import type { CsvOptions } from './options';
import type { RowWriter } from './row-writer';

/** The record terminator (RFC 4180). */
export const CRLF = '\r\n';

export interface CsvWriter {
  /** The field names, quoted as the records' fields are; no line end. */
  header: string;
  /** One record, no line end. */
  record: RowWriter;
}

/**
 * CSV records of the selected fields. Null is an empty field, never quoted, an empty string `""`; the cell text is the column's invariant form (docs/types.md) shaped by the options.
 */
export function csvWriter(columns: readonly Column[], ordinals: readonly number[], options: CsvOptions): CsvWriter {
  const n = ordinals.length;
  const widths = options.widths;
  if (widths && widths.length !== n) {
    throw new ScriptError(
      `${options.widthsFrom?.name ?? 'fields'} gives ${widths.length} width${widths.length === 1 ? '' : 's'} for ${n} field${n === 1 ? '' : 's'}`,
      'semantic',
      options.widthsFrom?.pos,
    );
  }
  const field = fieldWriter(options);
  const separator = widths ? '' : options.delimiter;
  const text = ordinals.map((o) => textWriter(columns[o].type, options));
  const plain = keepsStrings(options);
  // Null is an unquoted empty field and an empty string `""` however fields are quoted (but never),
  // so the CSV reader tells them apart: PostgreSQL COPY … CSV's rule.
  const nulls = ordinals.map((_, k) => (widths ? field('', k) : ''));
  const guard =
    options.comments.length > 0 && options.quoting !== 'never' && !widths ? commentGuard(options) : undefined;
  const record: RowWriter = (row) => {
    let s = '';
    let first = '';
    for (let k = 0; k < n; k++) {
      const v = row[ordinals[k]];
      const cell = v === null ? nulls[k] : field(plain && typeof v === 'string' ? v : text[k](v), k);
      if (k === 0) s = first = cell;
      else s += separator + cell;
    }
    return guard ? guard(s, first) : s;
  };
  return { header: ordinals.map((o, k) => field(columns[o].name, k)).join(separator), record };
}

const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** One field's text as written: padded or cut to a fixed width, or quoted as `quoting` says. */
function fieldWriter(options: CsvOptions): (s: string, k: number) => string {
  const { widths, quote, quoting } = options;
  if (widths) return (s, k) => (s.length >= widths[k] ? s.slice(0, widths[k]) : s.padEnd(widths[k]));
  if (quoting === 'never') return (s) => s;
  const doubled = quote + quote;
  const escape = (s: string) => quote + s.replaceAll(quote, doubled) + quote;
  if (quoting === 'always') return escape;
  const special = new RegExp(
    `[\r\n]|${quote.replace(REGEXP_SPECIAL, '\\$&')}|${options.delimiter.replace(REGEXP_SPECIAL, '\\$&')}`,
  );
  return (s) => (s === '' ? doubled : special.test(s) ? escape(s) : s);
}

/** Re-quotes the first field of a record that a reader would otherwise take for a comment. */
function commentGuard(options: CsvOptions): (record: string, first: string) => string {
  const { comments, quote } = options;
  return (record, first) =>
    comments.some((c) => record.startsWith(c)) && !first.startsWith(quote)
      ? quote + first.replaceAll(quote, quote + quote) + quote + record.slice(first.length)
      : record;
}
