import { ScriptError, type Position } from '../errors';

/**
 * Rows grouped into calls (spec §4.3, §8): BATCH 1 (the default) makes one call per row and needs a
 * payload without an array operator; BATCH N > 1 makes one call per N rows and needs one
 * (@concatjson, @concatjsonarr, @concatxml, @sql…), which expands over the rows of the batch.
 */
export function batchSize(batch: number | undefined, hasOperator: boolean, pos?: Position): number {
  const size = batch ?? 1;
  if (!Number.isInteger(size) || size < 1) throw new ScriptError(`BATCH must be a whole number of rows of at least 1, not ${size}`, 'semantic', pos);
  if (size > 1 && !hasOperator) {
    throw new ScriptError(
      `BATCH ${size} needs a payload with an array operator (@concatjson, @concatjsonarr, @concatxml, @sql…) that expands over the rows of a batch; without one, use BATCH 1 (one call per row)`,
      'semantic',
      pos,
    );
  }
  if (size === 1 && hasOperator) {
    throw new ScriptError('an array operator (@concatjson, @concatxml, @sql…) needs WITH BATCH N greater than 1', 'semantic', pos);
  }
  return size;
}

/** The number of calls for `rows` rows in batches of `size`. */
export function batchCount(rows: number, size: number): number {
  return Math.ceil(rows / size);
}
