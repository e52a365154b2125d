import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Dataset } from '../dataset/dataset';
import type { Column, Value } from '../dataset/types';
import { uniqueName } from '../docpath/typing';
import { cancelled, ScriptError } from '../errors';
import { POSTGRES } from './dialect';
import {
  PAGE_ROWS,
  type BulkRows,
  type DbSession,
  type Engine,
  type PageHandler,
  type Prepared,
  type QueryOptions,
  type TableColumn,
  type TableName,
  type Upserted,
} from './engine';
import { PageBuffer } from './pages';
import { temporaryName } from './tables';
import { engineError } from './errors';
import { postgresColumnType } from './types';
import { copyEncoder, postgresParser, postgresValue } from './values';
import { inTurns } from '../util/turn';

/** Connections a session keeps open per PostgreSQL connection: a read with an inline pipeline holds one while the pipeline uses others. */
const POOL_SIZE = 4;
/** Rows per COPY chunk written to the socket. */
const COPY_CHUNK_ROWS = 2_000;

/**
 * The sslmode values whose meaning pg changes unless asked for libpq's: without `uselibpqcompat` pg
 * takes `require` as `verify-full` (a self-signed server certificate is refused) and prints a warning.
 * A connection line means what it means to psql: `require` encrypts without checking the certificate,
 * `verify-ca` checks it against `sslrootcert`. `verify-full`, `disable` and pg's own `no-verify` mean
 * the same either way and are left to pg.
 */
const LIBPQ_SSLMODE = /[?&]sslmode=(?:prefer|require|verify-ca)(?:&|$)/;
/** libpq's `prefer` (psql's default): TLS when the server takes it, else plain text; pg has no such fallback. */
const PREFER = /([?&]sslmode=)prefer(?=&|$)/;
/** What pg throws when the server answers its SSLRequest `N` (it has no TLS); pg gives it no code. */
const NO_TLS = 'The server does not support SSL connections';

const SYNTAX_ERROR = '42601';
/** ON CONFLICT DO UPDATE meeting one key twice in the rows it inserts. */
const CARDINALITY_VIOLATION = '21000';
const READS_ROWS = /^\s*(?:select|with|values|table|\()/i;
const NO_ROWS =
  'this SQL returns no rows to read through a cursor (PostgreSQL reads SELECT, VALUES and TABLE so): run it with EXEC ON DB';

/** pg's parsers replaced by ours (values.ts); text for the types without one. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: (oid: number) => postgresParser(oid) ?? ((text: string) => text),
};

/**
 * A PostgreSQL database through a pg Pool kept in the session's resources. Queries read through a
 * cursor (DECLARE … FETCH in a transaction), page by page, so a large result never sits in the driver
 * whole; bulk writes go through COPY FROM STDIN (pg-copy-streams).
 */
export class PostgresEngine implements Engine {
  readonly dialect = POSTGRES;
  private pool: pg.Pool;
  private readonly secrets: string[];
  /** With sslmode=prefer: the connection string without TLS, taken when the server refuses it. */
  private readonly plain?: string;

  constructor(url: string, password: string | undefined) {
    this.secrets = password ? [password, encodeURIComponent(password)] : [];
    // A query parameter, because pg lets the connection string's empty password win over a separate one.
    const query = [
      ...(password === undefined ? [] : [`password=${encodeURIComponent(password)}`]),
      ...(LIBPQ_SSLMODE.test(url) && !/[?&]uselibpqcompat=/.test(url) ? ['uselibpqcompat=true'] : []),
    ];
    const connectionString = query.length ? `${url}${url.includes('?') ? '&' : '?'}${query.join('&')}` : url;
    this.pool = newPool(connectionString);
    if (PREFER.test(url)) this.plain = connectionString.replace(PREFER, '$1disable');
  }

  session<T>(work: (db: DbSession) => Promise<T>, signal: AbortSignal): Promise<T> {
    return this.lend(work, false, signal);
  }

  transaction<T>(work: (db: DbSession) => Promise<T>, signal: AbortSignal): Promise<T> {
    return this.lend(work, true, signal);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /**
   * A connection from the pool. With sslmode=prefer, a server that refuses TLS is talked to in plain
   * text from then on, as libpq does; a server that takes TLS is never talked to without it.
   */
  private async connect(): Promise<pg.PoolClient> {
    const pool = this.pool;
    try {
      return await pool.connect();
    } catch (e) {
      if (this.plain === undefined || (e as Error).message !== NO_TLS) throw e;
      // Another connection may have met the refusal first and switched already.
      if (this.pool === pool) {
        this.pool = newPool(this.plain);
        void pool.end().catch(() => undefined);
      }
      return this.pool.connect();
    }
  }

  private async lend<T>(work: (db: DbSession) => Promise<T>, transaction: boolean, signal: AbortSignal): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.connect();
    } catch (e) {
      throw engineError(e, this.secrets);
    }
    let broken: Error | undefined;
    // Ctrl-C during a long statement: the server is asked to cancel it, which fails it at once.
    const pid = (client as unknown as { processID: number }).processID;
    const cancel = () => void this.pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
    signal.addEventListener('abort', cancel, { once: true });
    try {
      if (!transaction) return await work(new PostgresSession(client, false));
      await client.query('BEGIN');
      try {
        const out = await work(new PostgresSession(client, true));
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
        throw e;
      }
    } catch (e) {
      throw signal.aborted ? cancelled() : engineError(e, this.secrets);
    } finally {
      signal.removeEventListener('abort', cancel);
      client.release(broken);
    }
  }
}

/** A pool of connections to `connectionString`. */
function newPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: POOL_SIZE,
    types: TYPES,
    // Fixed text forms for the parsers: timestamps in UTC, bytea as hex.
    options: '-c TimeZone=UTC -c bytea_output=hex',
  });
  // An idle connection the server drops must not bring the process down; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

class PostgresSession implements DbSession {
  readonly dialect = POSTGRES;
  private cursors = 0;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly inTransaction: boolean,
  ) {}

  async query(
    sql: string,
    params: readonly Value[],
    onPage: PageHandler,
    { signal, pageRows }: QueryOptions,
  ): Promise<void> {
    // A cursor lives in a transaction: the unit's own, or one opened for the read.
    if (!this.inTransaction) await this.client.query('BEGIN');
    try {
      const declare = `DECLARE sqlcdc_cursor_${++this.cursors} NO SCROLL CURSOR FOR `;
      const cursor = `sqlcdc_cursor_${this.cursors}`;
      await this.client.query(declare + sql, params.map(postgresValue)).catch((e: unknown) => {
        // A cursor reads SELECT, VALUES and TABLE only: anything else fails as a syntax error at its first word.
        if ((e as { code?: string }).code === SYNTAX_ERROR && !READS_ROWS.test(sql))
          throw new ScriptError(NO_ROWS, 'runtime');
        // The character PostgreSQL names is counted in the statement sent: made one of `sql` again.
        const at = e as { position?: string };
        if (Number(at.position) > declare.length) at.position = String(Number(at.position) - declare.length);
        throw e;
      });
      let buffer: PageBuffer | undefined;
      let columns: Column[] = [];
      for (;;) {
        const wanted = Math.min(PAGE_ROWS, buffer?.room ?? pageRows);
        const result = await this.client.query<unknown[]>({
          text: `FETCH FORWARD ${wanted} FROM ${cursor}`,
          rowMode: 'array',
        });
        if (!buffer) {
          columns = columnsOf(result);
          buffer = new PageBuffer(columns.length, pageRows);
        }
        const done = result.rows.length < wanted;
        buffer.reserve(result.rows.length);
        for (const row of result.rows) buffer.add(row);
        if (done || buffer.room <= 0) {
          const page = await inTurns(buffer.take(), signal);
          if (!page || (await onPage(new Dataset(columns, page.columns as Value[][], page.rows))) || done) break;
        }
        if (signal.aborted) throw cancelled();
      }
      await this.client.query(`CLOSE ${cursor}`);
      if (!this.inTransaction) await this.client.query('COMMIT');
    } catch (e) {
      if (!this.inTransaction) await this.client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  async script(sql: string): Promise<void> {
    await this.client.query(sql);
  }

  async exec(sql: string, params: readonly Value[]): Promise<number> {
    return (await this.client.query(sql, params.map(postgresValue))).rowCount ?? 0;
  }

  prepare(sql: string): Prepared {
    // Named, so the server parses and plans it once for this connection.
    const name = `sqlcdc_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    return {
      run: async (params) =>
        (await this.client.query({ name, text: sql, values: params.map(postgresValue) })).rowCount ?? 0,
    };
  }

  async insert(table: string, rows: BulkRows, signal: AbortSignal): Promise<number> {
    const { columns } = rows;
    const stream = this.client.query(copyFrom(`COPY ${table} (${columns.map(POSTGRES.quote).join(', ')}) FROM STDIN`));
    await pipeline(Readable.from(copyChunks(rows)), stream, { signal });
    return stream.rowCount;
  }

  /**
   * The rows COPied into a staging table, then one `INSERT … ON CONFLICT DO UPDATE` from it: one probe
   * of the key's index a row, where the portable merge (upsert.ts) makes two (an UPDATE joined on the
   * keys, then an INSERT of the keys not there) and ran at half the speed of this (bench/db.ts). A
   * conflicting row is updated only when a value differs; `xmax = 0` tells a row this statement
   * inserted from one it updated. Rows of one key in the batch: the last one wins.
   */
  async upsertByPrimaryKey(
    table: string,
    rows: BulkRows,
    keys: readonly string[],
    signal: AbortSignal,
  ): Promise<Upserted> {
    const { quote, differs } = POSTGRES;
    const list = rows.columns.map(quote);
    const stage = quote(temporaryName('stage'));
    await this.script(`CREATE TEMP TABLE ${stage} AS SELECT ${list.join(', ')} FROM ${table} WHERE 1 = 0`);
    try {
      await this.insert(stage, rows, signal);
      const others = rows.columns.filter((c) => !keys.includes(c)).map(quote);
      const onConflict =
        others.length === 0
          ? 'DO NOTHING'
          : `DO UPDATE SET ${others.map((c) => `${c} = excluded.${c}`).join(', ')} ` +
            `WHERE ${others.map((c) => differs(`t.${c}`, `excluded.${c}`)).join(' OR ')}`;
      const upsert = () =>
        this.client.query<{ inserted: string; updated: string }>(
          `WITH done AS (INSERT INTO ${table} AS t (${list.join(', ')}) SELECT ${list.join(', ')} FROM ${stage} ` +
            `ON CONFLICT (${keys.map(quote).join(', ')}) ${onConflict} RETURNING (xmax = 0) AS inserted) ` +
            'SELECT count(*) FILTER (WHERE inserted) AS inserted, count(*) FILTER (WHERE NOT inserted) AS updated FROM done',
        );
      if (this.inTransaction) await this.script('SAVEPOINT sqlcdc_upsert');
      let result;
      try {
        result = await upsert();
      } catch (e) {
        if ((e as { code?: string }).code !== CARDINALITY_VIOLATION) throw e;
        // Rows of one key in the batch, which one statement cannot apply both of: the last one wins,
        // as when rows are played one by one (SQLite). COPY filled the staging table in their order.
        if (this.inTransaction) await this.script('ROLLBACK TO SAVEPOINT sqlcdc_upsert');
        const same = keys.map((k) => `a.${quote(k)} = b.${quote(k)}`).join(' AND ');
        await this.script(`DELETE FROM ${stage} AS a USING ${stage} AS b WHERE ${same} AND a.ctid < b.ctid`);
        result = await upsert();
      }
      const { inserted, updated } = result.rows[0];
      return { inserted: Number(inserted), updated: Number(updated) };
    } finally {
      await this.script(`DROP TABLE IF EXISTS ${stage}`);
    }
  }

  async columns(table: TableName): Promise<TableColumn[] | undefined> {
    const result = await this.client.query<{ name: string; declared: string; pk: bigint | null }>(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS declared, key.n AS pk
         FROM pg_attribute a
         LEFT JOIN LATERAL (
           SELECT k.n FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
            WHERE i.indrelid = a.attrelid AND i.indisprimary AND k.attnum = a.attnum
         ) key ON true
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
      [table.sql],
    );
    if (result.rows.length === 0) return undefined;
    return result.rows.map((r) => ({ name: r.name, declared: r.declared, primaryKey: Number(r.pk ?? 0) }));
  }
}

/** The columns of a FETCH result; its cells are already dataset values (the pool's type parsers). */
function columnsOf(result: pg.QueryResult<unknown[]>): Column[] {
  const taken = new Set<string>();
  return result.fields.map((f) => ({
    name: uniqueName(f.name, taken),
    type: postgresColumnType(f.dataTypeID, f.dataTypeModifier),
  }));
}

/** The rows in COPY's text format, a few thousand per chunk. */
function* copyChunks({ data, ordinals }: BulkRows): Generator<string> {
  const values = ordinals.map((o) => data.vector(o));
  const encoders = ordinals.map((o) => copyEncoder(data.columns[o].type));
  const last = values.length - 1;
  let chunk = '';
  for (let r = 0; r < data.rowCount; r++) {
    for (let c = 0; c <= last; c++) {
      const v = values[c].get(r);
      chunk += v === null ? '\\N' : encoders[c](v);
      chunk += c === last ? '\n' : '\t';
    }
    if ((r + 1) % COPY_CHUNK_ROWS === 0) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}
