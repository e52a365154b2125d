import type { Column } from '../dataset/types';
import type { DocFormat } from '../script/ast';
import { CRLF } from './csv';
import type { WriterOptions } from './options';
import { recordWriter } from './records';
import { flat, type RowWriter } from './row-writer';

/**
 * FORMAT JSON|XML|CSV (ADD COLUMN): one record per row, kept as a cell. A CSV fragment written with
 * `headers:1` starts with its own header line, so each one is a complete document (ZIP keeps it once).
 * `texts` as recordWriter's (records.ts).
 */
export function rowWriter(
  format: DocFormat,
  columns: readonly Column[],
  ordinals: readonly number[],
  options: WriterOptions,
  texts?: readonly boolean[],
): RowWriter {
  const { header, record } = recordWriter(format, columns, ordinals, options, texts);
  if (header === undefined) return (row) => flat(record(row));
  const head = header + CRLF;
  return (row) => flat(head + record(row));
}
