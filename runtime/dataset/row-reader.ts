import type { Value } from './types';
import type { Vector } from './vector';

/** The cells of row `r`, in a row array the reader reuses for every call. */
export type RowReader = (r: number) => Value[];

type Filler = (row: Value[], data: readonly Vector[], r: number) => Value[];

/**
 * A reader of rows out of column vectors, for the per-row closures (expressions, templates, writers)
 * that index a row by ordinal. It fills one reused array instead of allocating a row per call, and
 * only the `ordinals` the caller reads: a filter naming two columns of fifty copies two cells. The
 * filler is straight-line code generated once per list of ordinals and cached, as readers are made
 * per statement and per document (APPLY FILTER TX).
 */
export function rowReader(data: readonly Vector[], ordinals?: readonly number[]): RowReader {
  const row: Value[] = new Array<Value>(data.length).fill(null);
  const fill = fillerFor(ordinals ?? data.map((_, i) => i));
  return (r) => fill(row, data, r);
}

const fillers = new Map<string, Filler>();
const FILLER_CACHE_LIMIT = 1000;

function fillerFor(ordinals: readonly number[]): Filler {
  const key = ordinals.join(',');
  let fill = fillers.get(key);
  if (!fill) {
    // Built from integer ordinals only.
    const body = ordinals.map((ordinal) => `row[${ordinal | 0}] = data[${ordinal | 0}].get(r);`).join(' ');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled once per column set, run per row
    fill = new Function('row', 'data', 'r', `${body} return row;`) as Filler;
    if (fillers.size >= FILLER_CACHE_LIMIT) fillers.clear();
    fillers.set(key, fill);
  }
  return fill;
}
