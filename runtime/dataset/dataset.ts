import { ScriptError } from '../errors';
import type { Column, ColumnType, Value } from './types';

/**
 * The pipeline dataset: a typed schema and row-major rows (one array per row, cells in column
 * order). Rows are plain arrays because every loader (papaparse, JSON) produces them cheaply and
 * every per-row hot loop indexes them by a column ordinal resolved once before the loop.
 *
 * Column names are case-insensitive (spec 2.6 types, .NET DataTable semantics) but keep their
 * original spelling for display.
 *
 * Ownership rule: a command never mutates the dataset it is given. It returns a new Dataset (built
 * fresh, or a `clone()` it then mutates). The session keeps the previous one until the statement
 * succeeds, which is how a failing statement leaves the pipeline as it was at no copying cost.
 */
export class Dataset {
  readonly columns: Column[];
  rows: Value[][];
  private index: Map<string, number>;

  constructor(columns: Column[] = [], rows: Value[][] = []) {
    this.columns = columns;
    this.rows = rows;
    this.index = new Map(columns.map((c, i) => [c.name.toLowerCase(), i]));
  }

  static empty(): Dataset {
    return new Dataset();
  }

  get rowCount(): number {
    return this.rows.length;
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

  /** Appends a column filled with `fill` (or per-row values); returns its ordinal. */
  addColumn(name: string, type: ColumnType, fill: Value | ((row: Value[], i: number) => Value) = null): number {
    if (this.has(name)) throw new ScriptError(`column '${name}' already exists`, 'runtime');
    const ordinal = this.columns.length;
    this.columns.push({ name, type });
    this.index.set(name.toLowerCase(), ordinal);
    const rows = this.rows;
    if (typeof fill === 'function') {
      for (let i = 0; i < rows.length; i++) rows[i].push(fill(rows[i], i));
    } else {
      for (let i = 0; i < rows.length; i++) rows[i].push(fill);
    }
    return ordinal;
  }

  /** Removes columns by name (unknown names ignored). */
  dropColumns(names: Iterable<string>): void {
    const drop = new Set<number>();
    for (const n of names) {
      const i = this.indexOf(n);
      if (i >= 0) drop.add(i);
    }
    if (drop.size === 0) return;
    const keep = this.columns.map((_, i) => i).filter((i) => !drop.has(i));
    this.project(keep);
  }

  /** Keeps the given ordinals, in that order. */
  project(ordinals: number[]): void {
    const cols = ordinals.map((i) => this.columns[i]);
    this.columns.length = 0;
    this.columns.push(...cols);
    this.rows = this.rows.map((r) => ordinals.map((i) => r[i]));
    this.index = new Map(this.columns.map((c, i) => [c.name.toLowerCase(), i]));
  }

  /** Changes a column's type in place (values must already be converted by the caller). */
  setType(ordinal: number, type: ColumnType): void {
    this.columns[ordinal] = { ...this.columns[ordinal], type };
  }

  /** A copy sharing no mutable structure with this one: rows are new arrays (cells are immutable). */
  clone(): Dataset {
    return new Dataset(
      this.columns.map((c) => ({ ...c, type: { ...c.type } })),
      this.rows.map((r) => r.slice()),
    );
  }
}
