import type { Column } from '../dataset/types';
import type { DocFormat } from '../script/ast';
import { csvWriter } from './csv';
import { jsonObjectWriter } from './json';
import type { WriterOptions } from './options';
import type { RowWriter } from './row-writer';
import { xmlElementWriter } from './xml';

export interface Records {
  /** CSV with `header` set: the header line, without its line end. */
  header?: string;
  record: RowWriter;
}

/**
 * The record writer of a format: a CSV line, a JSON object or XML elements per row. With `texts`, the
 * fields it flags (by index in `ordinals`, each `textual`) hold their cell's invariant text instead of
 * its Date or Decimal (vector.ts `textView`): the CSV and XML writers write a string cell's text as it
 * is, which for such text is what they write for the value; JSON writes it as the value's JSON.
 */
export function recordWriter(
  format: DocFormat,
  columns: readonly Column[],
  ordinals: readonly number[],
  options: WriterOptions,
  texts?: readonly boolean[],
): Records {
  switch (format) {
    case 'JSON':
      return { record: jsonObjectWriter(columns, ordinals, options, texts) };
    case 'XML':
      return { record: xmlElementWriter(columns, ordinals, options) };
    case 'CSV': {
      const csv = csvWriter(columns, ordinals, options);
      return options.header ? csv : { record: csv.record };
    }
  }
}

/**
 * Which fields a writer can take as their invariant text (`formatValue`) in place of the value: decimals,
 * and datetimes unless a date format needs the Date.
 */
export function textualFields(
  columns: readonly Column[],
  ordinals: readonly number[],
  options: WriterOptions,
): boolean[] {
  return ordinals.map((o) => {
    const base = columns[o].type.base;
    return base === 'decimal' || (base === 'datetime' && options.date === undefined);
  });
}
