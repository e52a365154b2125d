import type { Value } from './types';

/**
 * Column arrays filled row by row (a loader), sized up front when the row count can be estimated.
 *
 * Arrays grown by push leave every outgrown backing store behind as garbage: at a million rows that
 * is megabytes per column, and the peak memory of a load is what users hit. So the arrays are
 * allocated at an estimated size, written by index, and cut to the row count at the end (V8 trims
 * an array in place). A wrong estimate only costs a copy: the arrays then grow by half.
 */
export class ColumnBuilder {
  /** The column arrays; cells at and past `count` are unset. */
  readonly data: Value[][] = [];
  count = 0;
  private capacity = 0;

  constructor(width: number) {
    this.widen(width);
  }

  get width(): number {
    return this.data.length;
  }

  /**
   * Room for `rows` more rows; `expectedTotal` (an estimate of the final row count, when known) sizes
   * the arrays the first time they must grow.
   */
  reserve(rows: number, expectedTotal = 0): void {
    const needed = this.count + rows;
    if (needed <= this.capacity) return;
    const capacity = Math.max(needed, this.capacity === 0 ? expectedTotal : Math.ceil(this.capacity * 1.5));
    for (let c = 0; c < this.data.length; c++) this.data[c] = resized(this.data[c], this.count, capacity);
    this.capacity = capacity;
  }

  /** Adds columns (a headerless file's wider row): null in the rows already read. */
  widen(width: number): void {
    while (this.data.length < width) {
      const values = new Array<Value>(this.capacity);
      for (let r = 0; r < this.count; r++) values[r] = null;
      this.data.push(values);
    }
  }

  /** The column arrays, exactly `count` long; the builder must not be used after. */
  finish(): Value[][] {
    for (const values of this.data) values.length = this.count;
    return this.data;
  }
}

function resized(values: Value[], count: number, capacity: number): Value[] {
  const out = new Array<Value>(capacity);
  for (let r = 0; r < count; r++) out[r] = values[r];
  return out;
}
