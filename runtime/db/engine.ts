import type { Dataset } from '../dataset/dataset';
import type { ColumnType, Value } from '../dataset/types';

/**
 * What the database statements (SELECT FROM DB, EXEC ON DB, SINK INTO DB, MERGE) need from a database,
 * whatever it is: SQLite (sqlite.ts) or PostgreSQL (postgres.ts). Commands build their SQL from the
 * engine's `Dialect` and run it on a `DbSession`, a connection lent for one unit of work.
 */

/** Rows of a page of the inline APPLY PIPELINE, and the rows PostgreSQL sends per FETCH. */
export const PAGE_ROWS = 10_000;

/**
 * The SQL that differs between engines. Its members are plain functions, not methods (no `this`):
 * callers take them off the dialect and pass them to map.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** 'SQLite' or 'PostgreSQL', for messages. */
  readonly label: string;
  /** An identifier in double quotes (case kept, quotes doubled). */
  readonly quote: (identifier: string) => string;
  /** The n-th (1-based) bind parameter. */
  readonly placeholder: (n: number) => string;
  /** The column type a table created from a dataset column declares (types.ts). */
  readonly ddl: (type: ColumnType) => string;
  /** Empties a table. */
  readonly truncate: (table: string) => string;
  /** A condition true when two values of a column differ, nulls included. */
  readonly differs: (a: string, b: string) => string;
  /**
   * SQL bounding each statement of the current transaction to `ms` milliseconds, run first in it; undefined
   * when the engine has none (a SQLite statement runs on the interpreter's thread, no timer can stop it).
   */
  readonly statementTimeout: (ms: number) => string | undefined;
}

/** A column of an existing table. */
export interface TableColumn {
  name: string;
  /** Its type as the engine declares it (`numeric(10,2)`, `DECIMAL_TEXT(10,2)`). */
  declared: string;
  /** Its 1-based place in the primary key; 0 when not part of it. */
  primaryKey: number;
}

/** A table named in a statement: schema and name apart, and as SQL (each part quoted). */
export interface TableName {
  schema?: string;
  name: string;
  sql: string;
}

/** Rows written in bulk: the dataset's columns at `ordinals` go to the table's `columns`, in order. */
export interface BulkRows {
  columns: readonly string[];
  data: Dataset;
  ordinals: readonly number[];
}

export interface QueryOptions {
  signal: AbortSignal;
  /** Rows per page: PAGE_ROWS for an inline pipeline, Infinity for one page of every row. */
  pageRows: number;
}

/** Receives each page of a query; resolves true to stop reading (BREAK_ON_EMPTY). */
export type PageHandler = (page: Dataset) => Promise<boolean>;

/** One statement prepared once and run many times (EXEC ON DB … PER_ROW); `run` resolves the rows affected. */
export interface Prepared {
  run(params: readonly Value[]): Promise<number>;
}

/** A connection lent to one unit of work (see Engine). */
export interface DbSession {
  readonly dialect: Dialect;
  /**
   * Runs a query and hands its rows over in pages, typed from the engine's column types. A result
   * without rows is one page with its columns and no rows.
   */
  query(sql: string, params: readonly Value[], onPage: PageHandler, options: QueryOptions): Promise<void>;
  /** Runs SQL of one or more statements without parameters. */
  script(sql: string): Promise<void>;
  /** Runs one statement with parameters; resolves the rows affected. */
  exec(sql: string, params: readonly Value[]): Promise<number>;
  prepare(sql: string): Prepared;
  /** Inserts rows in bulk (SQLite: one prepared statement; PostgreSQL: COPY); resolves the rows written. */
  insert(table: string, rows: BulkRows, signal: AbortSignal): Promise<number>;
  /** The columns of a table, in order; undefined when there is no such table. */
  columns(table: TableName): Promise<TableColumn[] | undefined>;
  /**
   * Upserts rows by `keys`, the table's primary key, the engine's fastest way: SQLite, where
   * statements run in-process, one prepared statement per row; PostgreSQL, the rows copied into a
   * staging table, then one `INSERT … ON CONFLICT` from it. Without it, keys that are not a primary
   * key go through the portable merge of upsert.ts.
   */
  upsertByPrimaryKey?(table: string, rows: BulkRows, keys: readonly string[], signal: AbortSignal): Promise<Upserted>;
}

/** What an upsert did: rows inserted, and rows updated because a value differed. */
export interface Upserted {
  inserted: number;
  updated: number;
}

/**
 * An open database, kept in the session's resources (one per connection, engine-for.ts). Errors it
 * throws are ScriptErrors carrying the engine's message, never a password.
 */
export interface Engine {
  readonly dialect: Dialect;
  /**
   * Lends a connection to `work`; each statement commits as it runs. Aborting `signal` cancels the
   * statement running on the server (PostgreSQL); loops check it between batches.
   */
  session<T>(work: (db: DbSession) => Promise<T>, signal: AbortSignal): Promise<T>;
  /** Lends a connection to `work` in a transaction: committed when `work` resolves, rolled back when it throws. */
  transaction<T>(work: (db: DbSession) => Promise<T>, signal: AbortSignal): Promise<T>;
  close(): Promise<void>;
}
