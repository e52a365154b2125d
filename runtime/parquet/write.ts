import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import type { Vector } from '../dataset/vector';
import { ScriptError, type Position } from '../errors';
import { COMPRESSORS, parquetWriterLib } from './library';
import { parquetColumn } from './schema';
import { turnOrCancel } from '../util/turn';

export type ParquetCodec = 'SNAPPY' | 'GZIP' | 'BROTLI' | 'UNCOMPRESSED';

export interface ParquetOptions {
  codec: ParquetCodec;
  /** Rows per row group: what is converted and held at once while writing. */
  rowsPerGroup: number;
}

/** Row groups of 100K rows: what readers and the library itself default to, and a bounded buffer. */
export const DEFAULT_ROWS_PER_GROUP = 100_000;

const CODECS: Record<string, ParquetCodec> = {
  snappy: 'SNAPPY',
  gzip: 'GZIP',
  brotli: 'BROTLI',
  none: 'UNCOMPRESSED',
  uncompressed: 'UNCOMPRESSED',
};

/** COMPRESSION '<snappy|gzip|brotli|none>' and ROWS_PER_GROUP n, checked where they were written. */
export function parquetOptions(
  compression: { value: string; pos?: Position } | undefined,
  rowsPerGroup: number | undefined,
  pos?: Position,
): ParquetOptions {
  const codec = compression ? CODECS[compression.value.trim().toLowerCase()] : 'SNAPPY';
  if (!codec)
    throw new ScriptError(
      `COMPRESSION '${compression!.value}' is not a Parquet codec here; use snappy (default), gzip, brotli or none`,
      'semantic',
      compression!.pos,
    );
  const rows = rowsPerGroup ?? DEFAULT_ROWS_PER_GROUP;
  if (!Number.isInteger(rows) || rows < 1)
    throw new ScriptError(`ROWS_PER_GROUP must be a whole number of at least 1, not ${rows}`, 'semantic', pos);
  return { codec, rowsPerGroup: rows };
}

/**
 * Writes `ds` as a Parquet file at `file`, one row group at a time: each group's cells are converted,
 * encoded and flushed (hyparquet-writer's file writer writes every megabyte) before the next, so memory
 * holds one group beside the dataset whatever its size. `signal` stops the write between row groups
 * (hyparquet-writer encodes a group synchronously).
 */
export async function writeParquet(
  ds: Dataset,
  file: string,
  options: ParquetOptions,
  signal: AbortSignal,
): Promise<void> {
  if (ds.columns.length === 0)
    throw new ScriptError('a Parquet file needs at least one column; the dataset has none', 'runtime');
  const lib = parquetWriterLib();
  const columns = ds.columns.map((_, c) => parquetColumn(ds, c));
  const schema = [{ name: 'root', num_children: columns.length }, ...columns.map((c) => c.element)];
  const vectors = ds.columns.map((_, c) => ds.vector(c));
  const writer = new lib.ParquetWriter({
    writer: lib.fileWriter(file),
    schema: schema as never,
    codec: options.codec,
    compressors: COMPRESSORS,
    createdBy: 'sqlcdc',
  });
  for (let start = 0; start < ds.rowCount; start += options.rowsPerGroup) {
    const end = Math.min(ds.rowCount, start + options.rowsPerGroup);
    // Cells as values one group at a time: a typed column is never a whole array of objects.
    const columnData = columns.map((c, k) => ({
      name: c.element.name,
      data: c.convert(groupValues(vectors[k], start, end), 0, end - start),
    }));
    await writer.write({ columnData, rowGroupSize: end - start });
    await turnOrCancel(signal);
  }
  await writer.finish();
}

function groupValues(vector: Vector, start: number, end: number): Value[] {
  const out = new Array<Value>(end - start);
  for (let r = start; r < end; r++) out[r - start] = vector.get(r);
  return out;
}
