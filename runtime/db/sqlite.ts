import Database from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { converterTo } from '../dataset/convert';
import { Dataset } from '../dataset/dataset';
import { formatValue } from '../dataset/format-value';
import { STRING, type Column, type ColumnType, type Value } from '../dataset/types';
import { uniqueName } from '../docpath/typing';
import { cancelled, ScriptError } from '../errors';
import { SQLITE } from './dialect';
import type {
  BulkRows,
  DbSession,
  Engine,
  PageHandler,
  Prepared,
  QueryOptions,
  TableColumn,
  TableName,
  Upserted,
} from './engine';
import { engineError } from './errors';
import { SerialLock } from './lock';
import { PageBuffer } from './pages';
import { sqliteColumnType } from './types';
import { inTurns, type Pause } from '../util/turn';
import { chunkRows, valuesRows, writeRows, type RowWriter } from './sqlite-rows';
import { bytesView, sqliteValue, type SqliteValue } from './values';

/** Rows written or read between two turns of the event loop (Ctrl-C and the kernel's heartbeat wait that long). */
const BATCH_ROWS = 5_000;

/** Write statements a connection keeps prepared: a few tables' insert, chunk insert and update. */
const STATEMENTS_KEPT = 16;

/** better-sqlite3's message when a write comes while a query on the connection is still being read. */
const BUSY_READING = 'This database connection is busy executing a query';

/**
 * A SQLite database file through better-sqlite3: one connection per file for the session. The driver
 * is synchronous, so reads and writes go in batches with a turn of the event loop between them, where
 * the run's signal is checked.
 */
export class SqliteEngine implements Engine {
  readonly dialect = SQLITE;
  private readonly db: Database.Database;
  private readonly lock = new SerialLock();
  private readonly connection: DbSession;
  private savepoints = 0;

  constructor(
    file: string,
    /** The connection's name, for messages. */
    private readonly name: string,
  ) {
    try {
      this.db = new Database(file);
    } catch (e) {
      throw new ScriptError(
        `cannot open the SQLite database '${file}' of [${name}]: ${(e as Error).message}`,
        'runtime',
      );
    }
    this.connection = new SqliteSession(this.db);
  }

  // The signal is checked between batches: a SQLite statement runs on this thread and cannot be interrupted from it.
  session<T>(work: (db: DbSession) => Promise<T>): Promise<T> {
    return this.lock.run(() => this.guard(() => work(this.connection)));
  }

  transaction<T>(work: (db: DbSession) => Promise<T>): Promise<T> {
    return this.lock.run(() =>
      this.guard(async () => {
        // Inside another unit's transaction (a pipeline run per page of a query that has one), a savepoint.
        const savepoint = this.db.inTransaction ? `sqlcdc_${++this.savepoints}` : undefined;
        this.db.exec(savepoint ? `SAVEPOINT ${savepoint}` : 'BEGIN');
        try {
          const out = await work(this.connection);
          this.db.exec(savepoint ? `RELEASE ${savepoint}` : 'COMMIT');
          return out;
        } catch (e) {
          if (this.db.inTransaction)
            this.db.exec(savepoint ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : 'ROLLBACK');
          throw e;
        }
      }),
    );
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (e instanceof TypeError && e.message === BUSY_READING) {
        throw new ScriptError(
          `[${this.name}] is being read by a SELECT FROM DB whose APPLY PIPELINE runs this statement, and SQLite cannot ` +
            'write to a database it is reading on the same connection: read the rows first (SELECT FROM DB without APPLY PIPELINE), then write them',
          'runtime',
        );
      }
      throw engineError(e);
    }
  }
}

class SqliteSession implements DbSession {
  readonly dialect = SQLITE;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  async query(
    sql: string,
    params: readonly Value[],
    onPage: PageHandler,
    { signal, pageRows }: QueryOptions,
  ): Promise<void> {
    const stmt = this.db.prepare(sql);
    if (!stmt.reader) throw new ScriptError('this SQL returns no rows: run it with EXEC ON DB', 'runtime');
    const columns = stmt.columns();
    const taken = new Set<string>();
    const shape: Shape = {
      names: columns.map((c) => uniqueName(c.name, taken)),
      declared: columns.map((c) => sqliteColumnType(c.type)),
    };
    const bound = params.map(sqliteValue);
    stmt.raw(true);
    // Exact integers cost the driver a bigint each, even for an INT column. A read in one page (nothing
    // runs per page) tries plain numbers first when every column is declared, and reads again exactly
    // when a value may have lost digits or does not fit its column: nothing was handed over yet.
    const exact = shape.declared.some(mayHoldIntegers);
    if (exact && pageRows === Infinity && shape.declared.every((t) => t !== undefined)) {
      if (await this.read(stmt, bound, shape, { pageRows, signal, exact: false, tentative: true }, onPage)) return;
    }
    await this.read(stmt, bound, shape, { pageRows, signal, exact, tentative: false }, onPage);
  }

  /** Steps the statement in batches into pages; false when a tentative read met a value it cannot type surely. */
  private async read(
    stmt: Database.Statement,
    params: SqliteValue[],
    shape: Shape,
    how: ReadMode,
    onPage: PageHandler,
  ): Promise<boolean> {
    const rows = stmt.safeIntegers(how.exact).iterate(params) as IterableIterator<unknown[]>;
    const buffer = new PageBuffer(shape.names.length, how.pageRows);
    try {
      for (;;) {
        buffer.reserve(BATCH_ROWS);
        let done = false;
        for (let n = Math.min(BATCH_ROWS, buffer.room); n > 0; n--) {
          const next = rows.next();
          if (next.done) {
            done = true;
            break;
          }
          buffer.add(next.value);
        }
        if (done || buffer.room === 0) {
          const page = await inTurns(buffer.take(), how.signal);
          if (!page) return true;
          const typed = await inTurns(
            typedPage(shape, page.columns as SqliteValue[][], page.rows, how.tentative),
            how.signal,
          );
          if (!typed) return false;
          if ((await onPage(typed)) || done) return true;
        }
        await nextTurn();
        if (how.signal.aborted) throw cancelled();
      }
    } finally {
      rows.return?.();
    }
  }

  async script(sql: string): Promise<void> {
    this.db.exec(sql);
  }

  async exec(sql: string, params: readonly Value[]): Promise<number> {
    return this.prepare(sql).run(params);
  }

  prepare(sql: string): Prepared {
    const stmt = this.db.prepare(sql);
    if (stmt.reader) {
      // A statement that returns rows (SELECT, … RETURNING) is run for its effects; its rows are dropped.
      return { run: async (params) => stmt.all(params.map(sqliteValue)).length };
    }
    return { run: async (params) => stmt.run(params.map(sqliteValue)).changes };
  }

  async insert(table: string, rows: BulkRows, signal: AbortSignal): Promise<number> {
    const into = `${table} (${rows.columns.map(SQLITE.quote).join(', ')})`;
    const width = rows.columns.length;
    const row = this.statement(`INSERT INTO ${into} VALUES ${valuesRows(width, 1)}`);
    // Spread: better-sqlite3 binds separate arguments ~10% faster a row than one array of them.
    await writeRows(
      this.db,
      rows,
      { row: (args) => row.run(...args), chunk: this.chunk(into, rows) },
      BATCH_ROWS,
      signal,
    );
    return rows.data.rowCount;
  }

  async upsertByPrimaryKey(
    table: string,
    rows: BulkRows,
    keys: readonly string[],
    signal: AbortSignal,
  ): Promise<Upserted> {
    const { columns } = rows;
    const { quote } = SQLITE;
    const keyAt = keys.map((k) => columns.indexOf(k));
    if (keyAt.includes(-1)) throw new Error(`upsert: key ${keys.join(', ')} not among the columns written`);
    const otherAt = columns.map((_, i) => i).filter((i) => !keyAt.includes(i));
    const into = `${table} (${columns.map(quote).join(', ')})`;
    // A new key is inserted; a key the table has conflicts, and then the row is updated when a value differs.
    const insert = this.statement(
      `INSERT INTO ${into} VALUES ${valuesRows(columns.length, 1)} ON CONFLICT (${keys.map(quote).join(', ')}) DO NOTHING`,
    );
    const others = otherAt.map((i) => quote(columns[i]));
    const update =
      others.length > 0
        ? this.statement(
            `UPDATE ${table} SET ${others.map((c) => `${c} = ?`).join(', ')} WHERE ${keys.map((k) => `${quote(k)} = ?`).join(' AND ')} ` +
              `AND (${others.map((c) => `${c} IS NOT ?`).join(' OR ')})`,
          )
        : undefined;
    const updateArgs = new Array<SqliteValue>(otherAt.length * 2 + keyAt.length);
    const done: Upserted = { inserted: 0, updated: 0 };
    /** Updates the row whose values start at `at` in `args` where a value differs. */
    const updateRow = (args: SqliteValue[], at: number): void => {
      if (!update) return;
      let k = 0;
      for (const i of otherAt) updateArgs[k++] = args[at + i];
      for (const i of keyAt) updateArgs[k++] = args[at + i];
      for (const i of otherAt) updateArgs[k++] = args[at + i];
      done.updated += update.run(...updateArgs).changes;
    };
    const row = (args: SqliteValue[]): void => {
      if (insert.run(...args).changes > 0) done.inserted++;
      else updateRow(args, 0);
    };
    // A chunk of new keys inserts them all; one with a key the table has (or has twice) fails, and its rows go by `row`.
    const chunk = this.chunk(into, rows);
    const width = columns.length;
    const inserting = chunk && {
      rows: chunk.rows,
      write: (args: SqliteValue[]) => {
        const inserted = chunk.write(args);
        done.inserted += inserted;
        // Rows missing from the count were skipped by a trigger's RAISE(IGNORE), which row by row would have
        // been followed by the update: each row of the chunk gets it (a row inserted has nothing to change).
        if (inserted < chunk.rows) for (let r = 0; r < chunk.rows; r++) updateRow(args, r * width);
        return inserted;
      },
    };
    await writeRows(this.db, rows, { row, chunk: inserting }, BATCH_ROWS, signal);
    return done;
  }

  /** The INSERT OR ABORT of a chunk of rows into `into` (`table (columns)`); undefined when the rows are too few or too wide for one. */
  private chunk(into: string, { columns, data }: BulkRows): RowWriter['chunk'] {
    const rows = chunkRows(columns.length);
    if (rows === 0 || data.rowCount < rows) return undefined;
    const stmt = this.statement(`INSERT OR ABORT INTO ${into} VALUES ${valuesRows(columns.length, rows)}`);
    return { rows, write: (args) => stmt.run(...args).changes };
  }

  /**
   * A write statement prepared once for the connection: a push writes each batch with the same few
   * statements, and a statement of a chunk of rows takes as long to prepare as hundreds of rows to write.
   */
  private statement(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      // Staging tables have new names each time: their statements are dropped with the others past the bound.
      if (this.statements.size >= STATEMENTS_KEPT) this.statements.clear();
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  async columns(table: TableName): Promise<TableColumn[] | undefined> {
    const schema = table.schema === undefined ? '' : `${SQLITE.quote(table.schema)}.`;
    const info = this.db.prepare(`PRAGMA ${schema}table_info(${SQLITE.quote(table.name)})`).all() as {
      name: string;
      type: string;
      pk: number;
    }[];
    if (info.length === 0) return undefined;
    return info.map((c) => ({ name: c.name, declared: c.type, primaryKey: c.pk }));
  }
}

interface Shape {
  names: string[];
  /** Each column's type from its declaration; undefined when the values decide. */
  declared: (ColumnType | undefined)[];
}

interface ReadMode {
  pageRows: number;
  signal: AbortSignal;
  /** Integers as bigints (exact); else as numbers. */
  exact: boolean;
  /** Give up on a value that may have lost digits or does not fit its column, instead of typing the column by its values. */
  tentative: boolean;
}

/** Only TEXT and REAL affinity turn every integer into text or a float: other columns may hold SQLite integers. */
function mayHoldIntegers(type: ColumnType | undefined): boolean {
  return type === undefined || !['string', 'char', 'double', 'float'].includes(type.base);
}

/** Values converted between two turns of the event loop while a page is typed. */
const TYPING_SLICE = 1 << 16;

/**
 * A page of raw SQLite values as a dataset: each column typed from its declaration, else from its
 * values. Yields between columns and slices of conversions: a read in one page types a million rows
 * here, seconds of work the event loop (Ctrl-C, the kernel's heartbeat) must not wait for.
 */
function* typedPage(
  { names, declared }: Shape,
  raw: SqliteValue[][],
  rowCount: number,
  tentative: boolean,
): Generator<Pause, Dataset | undefined> {
  const columns: Column[] = [];
  const data: Value[][] = [];
  for (let c = 0; c < names.length; c++) {
    yield;
    const typed = tentative ? yield* surely(declared[c]!, raw[c]) : yield* typedColumn(declared[c], raw[c]);
    if (!typed) return undefined;
    columns.push({ name: names[c], type: typed.type });
    data.push(typed.values);
  }
  return new Dataset(columns, data, rowCount);
}

/**
 * A column read with plain numbers, typed as declared, or undefined when that is not sure: a number
 * beyond 2^53 may have lost digits, and a value that does not fit would type the column by its values,
 * which need the storage classes only exact integers tell apart.
 */
function* surely(declared: ColumnType, raw: SqliteValue[]): Generator<Pause, Typed | undefined> {
  if (declared.base !== 'double' && declared.base !== 'float') {
    for (const v of raw)
      if (typeof v === 'number' && (v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER)) return undefined;
  }
  return yield* declaredType(declared, raw);
}

interface Typed {
  type: ColumnType;
  values: Value[];
}

/**
 * SQLite keeps whatever a column is given, whatever its declared type: a value its declaration
 * cannot hold (text in an INT column, a number in a DATETIME one) makes the column typed from its
 * values on that page instead, so nothing is lost or rounded; pages are reconciled when stacked.
 */
function* typedColumn(declared: ColumnType | undefined, raw: SqliteValue[]): Generator<Pause, Typed> {
  return (declared && (yield* declaredType(declared, raw))) ?? inferred(raw);
}

/** The column typed as declared, or undefined when a value does not fit. */
function* declaredType(declared: ColumnType, raw: SqliteValue[]): Generator<Pause, Typed | undefined> {
  const whole = INTEGER_RANGES[declared.base];
  if (whole) return yield* integers(declared, whole, raw);
  if (declared.base === 'bytes') return blobs(declared, raw);
  return yield* converted(declared, raw);
}

/** A BLOB column: the driver's Buffers as the plain Uint8Arrays byte[] cells hold. */
function blobs(declared: ColumnType, raw: SqliteValue[]): Typed | undefined {
  if (raw.some((v) => v !== null && !Buffer.isBuffer(v))) return undefined;
  return { type: declared, values: raw.map((v) => (v === null ? null : bytesView(v as Buffer))) };
}

const INTEGER_RANGES: Partial<Record<ColumnType['base'], readonly [number, number]>> = {
  tinyint: [0, 255],
  short: [-32768, 32767],
  int: [-2147483648, 2147483647],
};

/** A column declared with a small integer type (SQLite stores 64 bits whatever the name): long when a value needs it. */
function* integers(
  declared: ColumnType,
  [min, max]: readonly [number, number],
  raw: SqliteValue[],
): Generator<Pause, Typed | undefined> {
  let fits = true;
  for (const v of raw) {
    if (v === null) continue;
    if (typeof v === 'bigint') {
      if (v < min || v > max) fits = false;
    } else if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) return undefined;
  }
  if (!fits) return yield* converted({ base: 'long' }, raw);
  const values = raw as Value[];
  for (let r = 0; r < raw.length; r++) if (typeof raw[r] === 'bigint') values[r] = Number(raw[r]);
  return { type: declared, values };
}

/** The column converted to `type`; undefined when a value does not convert (the raw values are left as they were). */
function* converted(type: ColumnType, raw: SqliteValue[]): Generator<Pause, Typed | undefined> {
  const convert = converterTo(type);
  const values = new Array<Value>(raw.length);
  try {
    for (let r = 0; r < raw.length; r++) {
      if (r % TYPING_SLICE === TYPING_SLICE - 1) yield;
      const v = raw[r];
      values[r] = v === null ? null : convert(v);
    }
  } catch (e) {
    if (e instanceof ScriptError) return undefined;
    throw e;
  }
  return { type, values };
}

type StorageClass = 'integer' | 'real' | 'text' | 'blob';

function storageClass(v: Exclude<SqliteValue, null>): StorageClass {
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return 'real';
  return typeof v === 'string' ? 'text' : 'blob';
}

/** A column typed by its values' storage classes: INTEGER int or long, REAL double, TEXT string, BLOB byte[]; mixed: string. */
function inferred(raw: SqliteValue[]): Typed {
  let kind: StorageClass | 'mixed' | undefined;
  let wide = false;
  for (const v of raw) {
    if (v === null) continue;
    const k = storageClass(v);
    if (typeof v === 'bigint' && (v < -2147483648n || v > 2147483647n)) wide = true;
    if (kind === undefined) kind = k;
    else if (kind !== k) kind = 'mixed';
  }
  const values = raw as Value[];
  switch (kind) {
    case 'integer':
      if (!wide) for (let r = 0; r < raw.length; r++) if (raw[r] !== null) values[r] = Number(raw[r]);
      return { type: { base: wide ? 'long' : 'int' }, values };
    case 'real':
      return { type: { base: 'double' }, values };
    case 'blob':
      return blobs({ base: 'bytes' }, raw)!;
    case 'mixed':
      for (let r = 0; r < raw.length; r++) {
        const v = values[r];
        if (v !== null && typeof v !== 'string') values[r] = formatValue(v, STRING);
      }
      return { type: STRING, values };
    default:
      return { type: STRING, values };
  }
}
