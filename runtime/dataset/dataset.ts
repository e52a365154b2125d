import { ScriptError } from '../errors';
import { rowReader, type RowReader } from './row-reader';
import type { Column, Value } from './types';

/**
 * The pipeline dataset: a typed schema and its cells stored by column (`data[c][r]`).
 *
 * Columns, not rows, because a loaded file's memory is mostly its cells' containers: one array per
 * row costs 136 bytes for ten cells, ten column arrays cost 80 bytes a row (docs/sources.md,
 * "Performance"). Statements that change one column (ADD COLUMN, APPLY SCHEMA) build that column and
 * share the others. Per-row closures still see a row: `reader()` fills one reused array per row.
 *
 * Column names are case-insensitive (spec 2.6 types, .NET DataTable semantics) but keep their
 * original spelling for display.
 *
 * Ownership rule: a dataset and its column arrays are never modified once built. A command returns
 * a new Dataset, sharing the column arrays it does not change. The session keeps the previous one
 * until the statement succeeds, which is how a failing statement leaves the pipeline as it was at no
 * copying cost.
 */
export class Dataset {
  readonly columns: Column[];
  /** One array per column, each `rowCount` long. */
  readonly data: Value[][];
  readonly rowCount: number;
  private readonly index: Map<string, number>;

  /** `rowCount` is only needed when there are no columns (rows of empty records). */
  constructor(columns: Column[] = [], data: Value[][] = [], rowCount = data.length > 0 ? data[0].length : 0) {
    if (data.length !== columns.length) throw new Error(`dataset: ${columns.length} columns but ${data.length} column arrays`);
    this.columns = columns;
    this.data = data;
    this.rowCount = rowCount;
    this.index = new Map(columns.map((c, i) => [c.name.toLowerCase(), i]));
  }

  static empty(): Dataset {
    return new Dataset();
  }

  /** A dataset from rows of cells in column order (sources that produce records one by one). */
  static fromRows(columns: Column[], rows: readonly (readonly Value[])[]): Dataset {
    const data = columns.map((_, c) => {
      const values = new Array<Value>(rows.length);
      for (let r = 0; r < rows.length; r++) values[r] = rows[r][c] ?? null;
      return values;
    });
    return new Dataset(columns, data, rows.length);
  }

  /** Ordinal of a column, or -1. */
  indexOf(name: string): number {
    return this.index.get(name.toLowerCase()) ?? -1;
  }

  has(name: string): boolean {
    return this.index.has(name.toLowerCase());
  }

  /** Ordinal of a column; a ScriptError naming the column and the ones that exist when absent. */
  require(name: string): number {
    const i = this.indexOf(name);
    if (i < 0) {
      const known = this.columns.map((c) => c.name).join(', ') || '(none)';
      throw new ScriptError(`unknown column '${name}' (columns: ${known})`, 'runtime');
    }
    return i;
  }

  /** A new array holding row `r`. */
  row(r: number): Value[] {
    const data = this.data;
    const row = new Array<Value>(data.length);
    for (let c = 0; c < data.length; c++) row[c] = data[c][r];
    return row;
  }

  /** New arrays for rows `start` to `end` (exclusive): for small extracts, never a whole large dataset. */
  rows(start = 0, end = this.rowCount): Value[][] {
    const out: Value[][] = [];
    for (let r = start; r < end; r++) out.push(this.row(r));
    return out;
  }

  /** Reads rows into one reused array; only `ordinals` are filled when given (see row-reader.ts). */
  reader(ordinals?: readonly number[]): RowReader {
    return rowReader(this.data, ordinals);
  }

  /** The rows at `indices`, in that order, under copies of the same columns. */
  pick(indices: ArrayLike<number>): Dataset {
    const n = indices.length;
    const data = this.data.map((values) => {
      const out = new Array<Value>(n);
      for (let k = 0; k < n; k++) out[k] = values[indices[k]];
      return out;
    });
    return new Dataset(this.copyColumns(), data, this.columns.length === 0 ? n : undefined);
  }

  /** Rows `start` to `end` (exclusive) under copies of the same columns. */
  slice(start: number, end: number): Dataset {
    const from = Math.max(0, Math.min(start, this.rowCount));
    const to = Math.max(from, Math.min(end, this.rowCount));
    if (from === 0 && to === this.rowCount) return new Dataset(this.copyColumns(), this.data, this.rowCount);
    return new Dataset(this.copyColumns(), this.data.map((values) => values.slice(from, to)), to - from);
  }

  private copyColumns(): Column[] {
    return this.columns.map((c) => ({ ...c }));
  }
}
