import type { Value } from './types';

/** Builds an output row from an input row and one computed value. */
export type RowMaker = (from: readonly Value[], value: Value) => Value[];

/**
 * The row builder of a statement that keeps some input cells and sets one computed cell: slot j of
 * the new row is input cell `keep[j]`, and slot `target` (possibly one past the kept cells) is the
 * value. It is generated once per statement as an array literal, which V8 allocates packed at its
 * exact size: measured twice as fast as filling `new Array(width)` in a loop, a tenth of ADD COLUMN
 * FORMAT JSON's time over a million rows.
 */
export function rowMaker(keep: readonly number[], target: number): RowMaker {
  const cells = keep.map((ordinal) => `from[${ordinal | 0}]`);
  cells[target] = 'value';
  // Built from integer ordinals only.
  return new Function('from', 'value', `return [${cells.join(', ')}];`) as RowMaker;
}
