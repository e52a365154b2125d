import { ScriptError } from '../errors';
import { rowReader, type RowReader } from './row-reader';
import type { Column, Value } from './types';
import { ValuesVector, vectorOf, type Vector } from './vector';

/**
 * The pipeline dataset: a typed schema and its cells stored by column.
 *
 * Columns, not rows, because a loaded file's memory is mostly its cells' containers: one array per
 * row costs 136 bytes for ten cells, ten column arrays cost 80 bytes a row (docs/sources.md,
 * "Performance"). Each column is a `Vector` (vector.ts): typed columns in typed arrays, repeated text
 * in a dictionary, the rest in plain arrays. Statements that change one column (ADD COLUMN, APPLY
 * SCHEMA) build that column and share the others. Per-row closures still see a row: `reader()` fills
 * one reused array per row. `column(c)` gives a column as an array of values, built on each call for
 * a typed column (a cache would keep the objects the typed storage saves): the hot paths read
 * `vector(c)` or `cell(r, c)` instead.
 *
 * A filtered dataset is a selection of its input's rows (`pick`): each column is copied out the
 * first time a statement reads it, so a filter costs its predicate, and a table shown after it
 * copies nothing. Until then it keeps its input's columns alive.
 *
 * Column names are case-insensitive (spec 2.6 types, .NET DataTable semantics) but keep their
 * original spelling for display.
 *
 * Ownership rule: a dataset's column arrays are never modified once it is published. A command
 * returns a new Dataset, sharing the column arrays it does not change. The session keeps the
 * previous one until the statement succeeds, which is how a failing statement leaves the pipeline as
 * it was at no copying cost.
 */
export class Dataset {
  readonly columns: Column[];
  readonly rowCount: number;
  /** Ordinals by lower-case name, made at the first lookup: many datasets (a webhook call's) are never asked. */
  private index: Map<string, number> | undefined;
  /** One vector per column, each `rowCount` long; a column of a selection is undefined until read. */
  private readonly cells: (Vector | undefined)[];
  /**
   * Set when this dataset is rows of another (`pick`, what APPLY FILTER returns): a column is gathered
   * from the source the first time it is read, and the source is let go once all have been. Display
   * reads cells through it without gathering anything.
   */
  private selection: { source: Dataset; rows: ArrayLike<number> } | undefined;

  /**
   * `rowCount` is only needed when there are no columns (rows of empty records). A column given as an
   * array is kept as it is (see `encoded` for typed storage).
   */
  constructor(
    columns: Column[] = [],
    data: readonly (Value[] | Vector)[] = [],
    rowCount = data.length > 0 ? data[0].length : 0,
  ) {
    if (data.length !== columns.length)
      throw new Error(`dataset: ${columns.length} columns but ${data.length} column arrays`);
    this.columns = columns;
    this.cells = data.map((d) => (Array.isArray(d) ? new ValuesVector(d) : d));
    this.rowCount = rowCount;
  }

  static empty(): Dataset {
    return new Dataset();
  }

  /** A dataset whose columns are stored as their types allow (vector.ts): what sources and typing produce. */
  static encoded(columns: Column[], data: readonly (Value[] | Vector)[], rowCount?: number): Dataset {
    const vectors = data.map((d, c) => (Array.isArray(d) ? vectorOf(columns[c].type, d) : d));
    return new Dataset(columns, vectors, rowCount);
  }

  /** A dataset from rows of cells in column order (sources that produce records one by one). */
  static fromRows(columns: Column[], rows: readonly (readonly Value[])[]): Dataset {
    const data = columns.map((_, c) => {
      const values = new Array<Value>(rows.length);
      for (let r = 0; r < rows.length; r++) values[r] = rows[r][c] ?? null;
      return values;
    });
    return Dataset.encoded(columns, data, rows.length);
  }

  private names(): Map<string, number> {
    return (this.index ??= new Map(this.columns.map((c, i) => [c.name.toLowerCase(), i])));
  }

  /** Ordinal of a column, or -1. */
  indexOf(name: string): number {
    return this.names().get(name.toLowerCase()) ?? -1;
  }

  has(name: string): boolean {
    return this.names().has(name.toLowerCase());
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

  /** The values of column `c`, in row order (never modified: a new array for a typed column). */
  column(c: number): Value[] {
    return this.vector(c).values();
  }

  /** How column `c` is stored. */
  vector(c: number): Vector {
    return this.cells[c] ?? this.gather(c);
  }

  /** Every column's values (`data[c][r]`). */
  get data(): Value[][] {
    return this.columns.map((_, c) => this.column(c));
  }

  /** The cell at row `r`, column `c`, without gathering a selection's column. */
  cell(r: number, c: number): Value {
    const values = this.cells[c];
    if (values) return values.get(r);
    const { source, rows } = this.selection!;
    return source.cell(rows[r], c);
  }

  /**
   * Column `c`'s cells, read one by one without gathering a selection's column (a display of its
   * first rows). `view` may give the vector to read in place of the column's own (a text view).
   */
  cellReader(c: number, view?: (vector: Vector) => Vector | undefined): (r: number) => Value {
    const own = this.cells[c];
    if (own) {
      const read = view?.(own) ?? own;
      return (r) => read.get(r);
    }
    const { source, rows } = this.selection!;
    const read = source.cellReader(c, view);
    return (r) => read(rows[r]);
  }

  /** A new array holding row `r`. */
  row(r: number): Value[] {
    const row = new Array<Value>(this.columns.length);
    for (let c = 0; c < row.length; c++) row[c] = this.cell(r, c);
    return row;
  }

  /** New arrays for rows `start` to `end` (exclusive): for small extracts, never a whole large dataset. */
  rows(start = 0, end = this.rowCount): Value[][] {
    const out: Value[][] = [];
    for (let r = start; r < end; r++) out.push(this.row(r));
    return out;
  }

  /**
   * Reads rows into one reused array; only `ordinals` are filled when given (see row-reader.ts), and
   * a column in `views` is read through that vector instead of its own (a writer's text view).
   */
  reader(ordinals?: readonly number[], views?: ReadonlyMap<number, Vector>): RowReader {
    const all = ordinals ?? this.columns.map((_, c) => c);
    const data: Vector[] = this.columns.map(() => EMPTY);
    for (const c of all) data[c] = views?.get(c) ?? this.vector(c);
    return rowReader(data, ordinals);
  }

  /** The rows at `indices`, in that order, under copies of the same columns; gathered when read. */
  pick(indices: ArrayLike<number>): Dataset {
    const out = new Dataset(
      this.copyColumns(),
      this.columns.map(() => []),
      indices.length,
    );
    out.cells.fill(undefined);
    out.selection = { source: this, rows: indices };
    return out;
  }

  /** Rows `start` to `end` (exclusive) under copies of the same columns. */
  slice(start: number, end: number): Dataset {
    const from = Math.max(0, Math.min(start, this.rowCount));
    const to = Math.max(from, Math.min(end, this.rowCount));
    const vectors = this.columns.map((_, c) => this.vector(c));
    if (from === 0 && to === this.rowCount) return new Dataset(this.copyColumns(), vectors, this.rowCount);
    const rows = Uint32Array.from({ length: to - from }, (_, k) => from + k);
    return new Dataset(
      this.copyColumns(),
      vectors.map((v) => v.pick(rows)),
      rows.length,
    );
  }

  private gather(c: number): Vector {
    const { source, rows } = this.selection!;
    const vector = source.vector(c).pick(rows);
    this.cells[c] = vector;
    if (!this.cells.includes(undefined)) this.selection = undefined;
    return vector;
  }

  private copyColumns(): Column[] {
    return this.columns.map((c) => ({ ...c }));
  }
}

const EMPTY: Vector = new ValuesVector([]);
