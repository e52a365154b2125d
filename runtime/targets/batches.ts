import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { ScriptError, type Position } from '../errors';

/**
 * Rows grouped into calls (spec §4.3, §8): BATCH 1 (the default) makes one call per row and needs a
 * payload without an array operator; BATCH N > 1 makes one call per N rows and needs one
 * (@concatjson, @concatjsonarr, @concatxml, @sql…), which expands over the rows of the batch.
 */
export function batchSize(batch: number | undefined, hasOperator: boolean, pos?: Position): number {
  // The parser has made BATCH a whole number of 1 or more.
  const size = batch ?? 1;
  if (size > 1 && !hasOperator) {
    throw new ScriptError(
      `BATCH ${size} needs a payload with an array operator (@concatjson, @concatjsonarr, @concatxml, @sql…) that expands over the rows of a batch; without one, use BATCH 1 (one call per row)`,
      'semantic',
      pos,
    );
  }
  if (size === 1 && hasOperator) {
    throw new ScriptError(
      'an array operator (@concatjson, @concatxml, @sql…) needs WITH BATCH N greater than 1',
      'semantic',
      pos,
    );
  }
  return size;
}

/** The number of calls for `rows` rows in batches of `size`. */
export function batchCount(rows: number, size: number): number {
  return Math.ceil(rows / size);
}

/**
 * The rows of the batch starting at a row, in row arrays reused from batch to batch: a push of 1M
 * rows would otherwise allocate 1M of them, a third of the cost of making @concatjson bodies
 * (bench/push.ts). The templates read a batch's rows while making its texts and keep none.
 */
export function batchRows(dataset: Dataset, size: number): (start: number) => Value[][] {
  const data = dataset.columns.map((_, c) => dataset.vector(c));
  const width = data.length;
  const full = Array.from({ length: Math.min(size, dataset.rowCount) }, () => new Array<Value>(width));
  return (start) => {
    const count = Math.min(size, dataset.rowCount - start);
    const rows = count === full.length ? full : full.slice(0, count);
    for (let k = 0; k < count; k++) {
      const row = rows[k];
      for (let c = 0; c < width; c++) row[c] = data[c].get(start + k);
    }
    return rows;
  };
}
