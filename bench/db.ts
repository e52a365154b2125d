import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Database from 'better-sqlite3';
import type Decimal from 'decimal.js';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Dataset } from '../runtime/dataset/dataset';
import { parseDecimal } from '../runtime/dataset/decimal-scale';
import type { Column, Value } from '../runtime/dataset/types';
import { Session } from '../runtime/session';
import { postgresUnavailable, startPostgres } from '../test/helpers/postgres';
import { seededRandom } from './measure';

/**
 * `npm run bench -- db`: 1,000,000 typed rows (long, int, decimal(10,2), double, datetime, two strings,
 * bool) through SINK INTO DB and SELECT FROM DB, each beside the driver doing the same by hand in the
 * same run: a better-sqlite3 prepared insert loop in one transaction, a COPY of the rows written by
 * hand, and each driver reading the table into arrays. Goals (reference time / ours): SQLite sink
 * ≥ 0.8, PostgreSQL sink ≥ 0.7, reads ≥ 0.7. PUSH INTO DB … AUTO_MERGE upserts the rows as a change
 * log's upsert stream into a table keyed by id: in SQLite beside a better-sqlite3 `INSERT … ON CONFLICT
 * DO UPDATE` loop in one transaction (goal ≥ 0.8), in PostgreSQL beside a COPY of the rows into a
 * temp table and one `INSERT … SELECT … ON CONFLICT DO UPDATE` from it (goal ≥ 0.7).
 */

const ROWS = 1_000_000;
const RUNS = 3;

const COLUMNS: Column[] = [
  { name: 'id', type: { base: 'long' } },
  { name: 'qty', type: { base: 'int' } },
  { name: 'price', type: { base: 'decimal', precision: 10, scale: 2 } },
  { name: 'amount', type: { base: 'double' } },
  { name: 'at', type: { base: 'datetime' } },
  { name: 'code', type: { base: 'string' } },
  { name: 'customer', type: { base: 'string' } },
  { name: 'ok', type: { base: 'bool' } },
];

function generate(): Dataset {
  const random = seededRandom();
  const data: Value[][] = COLUMNS.map(() => new Array<Value>(ROWS));
  const start = Date.UTC(2024, 0, 1);
  for (let r = 0; r < ROWS; r++) {
    data[0][r] = BigInt(r) + 9_000_000_000_000_000n;
    data[1][r] = Math.floor(random() * 100);
    data[2][r] = parseDecimal((random() * 10_000).toFixed(2));
    data[3][r] = Math.round(random() * 1e8) / 100;
    data[4][r] = new Date(start + Math.floor(random() * 365 * 86_400) * 1000);
    data[5][r] = `C${Math.floor(random() * 1e6)
      .toString(36)
      .toUpperCase()}`;
    data[6][r] = `Customer ${r % 50_000}`;
    data[7][r] = random() < 0.5;
  }
  return new Dataset(COLUMNS, data, ROWS);
}

/**
 * Best wall times, in seconds, of the reference and of ours, run in turns: on a shared machine the load
 * changes over a minute, and turns expose both to the same conditions.
 */
async function inTurns(reference: () => unknown, ours: () => unknown): Promise<{ reference: number; ours: number }> {
  const best = { reference: Infinity, ours: Infinity };
  for (let i = 0; i < RUNS; i++) {
    for (const [key, run] of [
      ['reference', reference],
      ['ours', ours],
    ] as const) {
      const start = process.hrtime.bigint();
      await run();
      best[key] = Math.min(best[key], Number(process.hrtime.bigint() - start) / 1e9);
    }
  }
  return best;
}

interface Figure {
  name: string;
  ours: number;
  reference: number;
  referenceName: string;
  goal: number;
}

function report(f: Figure): void {
  const ratio = f.reference / f.ours;
  console.log(
    `  ${f.name.padEnd(26)} ${f.ours.toFixed(2).padStart(6)} s   ${f.referenceName.padEnd(34)} ${f.reference.toFixed(2).padStart(6)} s   ` +
      `ratio ${ratio.toFixed(2)} (goal ≥ ${f.goal}): ${ratio >= f.goal ? 'met' : 'MISSED'}`,
  );
}

const DDL =
  'id BIGINT, qty INT, price DECIMAL_TEXT(10,2), amount DOUBLE, at DATETIME, code TEXT, customer TEXT, ok BOOLEAN';

async function sqliteFigures(ds: Dataset, session: Session, dir: string): Promise<void> {
  const db = new Database(join(dir, 'bench.db'));
  await session.run(`%connection add lite sqlite:${join(dir, 'bench.db')}`);
  const [id, qty, price, amount, at, code, customer, ok] = ds.data;
  session.setDataset(ds);
  const sink = await inTurns(
    () => {
      db.exec(`DROP TABLE IF EXISTS reference; CREATE TABLE reference (${DDL})`);
      const insert = db.prepare('INSERT INTO reference VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      db.transaction(() => {
        for (let r = 0; r < ROWS; r++) {
          const iso = (at[r] as Date).toISOString();
          insert.run(
            id[r],
            qty[r],
            (price[r] as Decimal).toFixed(2),
            amount[r],
            `${iso.slice(0, 10)} ${iso.slice(11, 19)}`,
            code[r],
            customer[r],
            ok[r] ? 1 : 0,
          );
        }
      })();
    },
    () => session.run("SINK INTO DB [lite] TABLE 'bench' WITH RECREATE;"),
  );
  check(count(db, 'reference'), ROWS);
  check(count(db, 'bench'), ROWS);
  report({ name: 'SINK INTO DB (SQLite)', ...sink, referenceName: 'prepared insert loop, 1 transaction', goal: 0.8 });

  const read = await inTurns(
    () => check(db.prepare('SELECT * FROM bench').raw(true).all().length, ROWS),
    async () => {
      await session.run('SELECT * FROM DB [lite] (SELECT * FROM bench);');
      check(session.dataset.rowCount, ROWS);
    },
  );
  report({ name: 'SELECT FROM DB (SQLite)', ...read, referenceName: 'better-sqlite3 .raw().all()', goal: 0.7 });
  db.close();
}

/**
 * The rows upserted into an empty table whose primary key is id. Without CAPTURE or LOAD in the run, PUSH
 * plays the dataset as the upsert stream, matched by the table's key: what it does with a loaded log's
 * upserts, without timing the log's decoding (bench/changelog.ts measures that).
 */
async function sqlitePushFigure(ds: Dataset, session: Session, dir: string): Promise<void> {
  const db = new Database(join(dir, 'bench.db'));
  const [id, qty, price, amount, at, code, customer, ok] = ds.data;
  const keyed = DDL.replace('id BIGINT', 'id BIGINT PRIMARY KEY');
  session.setDataset(ds);
  const push = await inTurns(
    () => {
      db.exec(`DROP TABLE IF EXISTS reference; CREATE TABLE reference (${keyed})`);
      const upsert = db.prepare(
        'INSERT INTO reference VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET qty = excluded.qty, ' +
          'price = excluded.price, amount = excluded.amount, at = excluded.at, code = excluded.code, ' +
          'customer = excluded.customer, ok = excluded.ok',
      );
      db.transaction(() => {
        for (let r = 0; r < ROWS; r++) {
          const iso = (at[r] as Date).toISOString();
          upsert.run(
            id[r],
            qty[r],
            (price[r] as Decimal).toFixed(2),
            amount[r],
            `${iso.slice(0, 10)} ${iso.slice(11, 19)}`,
            code[r],
            customer[r],
            ok[r] ? 1 : 0,
          );
        }
      })();
    },
    async () => {
      db.exec(`DROP TABLE IF EXISTS pushed; CREATE TABLE pushed (${keyed})`);
      await session.run("PUSH INTO DB [lite] TABLE 'pushed' AUTO_MERGE;");
    },
  );
  check(count(db, 'reference'), ROWS);
  check(count(db, 'pushed'), ROWS);
  report({ name: 'PUSH INTO DB (SQLite)', ...push, referenceName: 'upsert loop, 1 transaction', goal: 0.8 });
  db.close();
}

function count(db: Database.Database, table: string): number {
  return db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
}

function check(actual: number, expected: number): void {
  if (actual !== expected) throw new Error(`${actual} rows, expected ${expected}`);
}

/** COPY text of the rows, written the plain way (each value's text, special characters escaped). */
function* copyText(ds: Dataset): Generator<string> {
  const [id, qty, price, amount, at, code, customer, ok] = ds.data;
  const escape = (s: string) =>
    /[\\\t\n\r]/.test(s)
      ? s.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!)
      : s;
  let chunk = '';
  for (let r = 0; r < ROWS; r++) {
    chunk += `${id[r] as bigint}\t${qty[r] as number}\t${(price[r] as Decimal).toFixed(2)}\t${amount[r] as number}\t${(at[r] as Date).toISOString()}\t${escape(code[r] as string)}\t${escape(customer[r] as string)}\t${ok[r] ? 't' : 'f'}\n`;
    if (r % 2000 === 1999) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

async function postgresFigures(ds: Dataset, session: Session): Promise<void> {
  const why = postgresUnavailable();
  if (why) {
    console.log(`  PostgreSQL skipped: ${why}`);
    return;
  }
  const server = startPostgres();
  try {
    const url = await server.newDatabase();
    await session.run(`%connection add pg ${url}`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const ddl =
      'id bigint, qty integer, price numeric(10,2), amount double precision, at timestamp, code text, customer text, ok boolean';
    session.setDataset(ds);
    const sink = await inTurns(
      async () => {
        await client.query(`DROP TABLE IF EXISTS reference; CREATE TABLE reference (${ddl})`);
        const stream = client.query(copyFrom('COPY reference FROM STDIN'));
        await pipeline(Readable.from(copyText(ds)), stream);
        check(stream.rowCount, ROWS);
      },
      () => session.run("SINK INTO DB [pg] TABLE 'bench' WITH RECREATE;"),
    );
    check(Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM bench')).rows[0].n), ROWS);
    report({
      name: 'SINK INTO DB (PostgreSQL)',
      ...sink,
      referenceName: 'COPY of the rows written by hand',
      goal: 0.7,
    });

    const read = await inTurns(
      async () => check((await client.query({ text: 'SELECT * FROM bench', rowMode: 'array' })).rows.length, ROWS),
      async () => {
        await session.run('SELECT * FROM DB [pg] (SELECT * FROM bench);');
        check(session.dataset.rowCount, ROWS);
      },
    );
    report({ name: 'SELECT FROM DB (PostgreSQL)', ...read, referenceName: 'pg query, rowMode array', goal: 0.7 });

    // As the SQLite push: the dataset played as the upsert stream into an empty table keyed by id.
    const keyed = ddl.replace('id bigint', 'id bigint PRIMARY KEY');
    const others = ['qty', 'price', 'amount', 'at', 'code', 'customer', 'ok'];
    const push = await inTurns(
      async () => {
        await client.query(`DROP TABLE IF EXISTS reference; CREATE TABLE reference (${keyed})`);
        await client.query('BEGIN');
        await client.query('CREATE TEMP TABLE staged (LIKE reference) ON COMMIT DROP');
        await pipeline(Readable.from(copyText(ds)), client.query(copyFrom('COPY staged FROM STDIN')));
        await client.query(
          `INSERT INTO reference SELECT * FROM staged ON CONFLICT (id) DO UPDATE SET ${others.map((c) => `${c} = excluded.${c}`).join(', ')}`,
        );
        await client.query('COMMIT');
      },
      async () => {
        await client.query(`DROP TABLE IF EXISTS pushed; CREATE TABLE pushed (${keyed})`);
        await session.run("PUSH INTO DB [pg] TABLE 'pushed' AUTO_MERGE;");
      },
    );
    for (const table of ['reference', 'pushed'])
      check(Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0].n), ROWS);
    report({
      name: 'PUSH INTO DB (PostgreSQL)',
      ...push,
      referenceName: 'COPY to a temp table, one upsert',
      goal: 0.7,
    });
    await client.end();
  } finally {
    await session.close();
    server.stop();
  }
}

export async function runDbBench(): Promise<void> {
  const ds = generate();
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-db-'));
  console.log(
    `db: ${ROWS.toLocaleString('en-US')} rows × ${COLUMNS.length} typed columns, best of ${RUNS} taken in turns with the reference; ratio = reference time / ours`,
  );
  const session = new Session({ cwd: dir, workspace: join(dir, 'ws') });
  try {
    await sqliteFigures(ds, session, dir);
    await sqlitePushFigure(ds, session, dir);
    await postgresFigures(ds, session);
  } finally {
    await session.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runDbBench().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
