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

/** The record writer of a format: a CSV line, a JSON object or XML elements per row. */
export function recordWriter(
  format: DocFormat,
  columns: readonly Column[],
  ordinals: readonly number[],
  options: WriterOptions,
): Records {
  switch (format) {
    case 'JSON':
      return { record: jsonObjectWriter(columns, ordinals, options) };
    case 'XML':
      return { record: xmlElementWriter(columns, ordinals, options) };
    case 'CSV': {
      const csv = csvWriter(columns, ordinals, options);
      return options.header ? csv : { record: csv.record };
    }
  }
}
