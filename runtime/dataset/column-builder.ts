import { TextColumnBuilder } from './text-vector';
import type { Vector } from './vector';

/**
 * The text columns of a loader, filled row by row: each column is a `TextColumnBuilder` (a
 * dictionary while it repeats, packed blocks of text once it does not), sized up front from the
 * estimated row count. Every row adds exactly one cell to every column.
 */
export class ColumnBuilder {
  private readonly columns: TextColumnBuilder[] = [];
  /** Rows added so far. */
  count = 0;

  /** `expectedRows`: the estimated final row count (0 when unknown), which sizes the columns. */
  constructor(
    width: number,
    private readonly expectedRows = 0,
  ) {
    this.widen(width);
  }

  get width(): number {
    return this.columns.length;
  }

  /** The cell of column `c` in the row being added. */
  add(c: number, v: string | null): void {
    this.columns[c].add(v);
  }

  /** Adds columns (a headerless file's wider row): null in the rows already read. */
  widen(width: number): void {
    while (this.columns.length < width) {
      const column = new TextColumnBuilder(Math.max(this.expectedRows, this.count));
      for (let r = 0; r < this.count; r++) column.add(null);
      this.columns.push(column);
    }
  }

  /** The columns, exactly `count` long; the builder must not be used after. */
  finish(): Vector[] {
    return this.columns.map((column) => column.finish());
  }
}
