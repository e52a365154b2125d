import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkRows } from '../../runtime/db/sqlite-rows';
import { dbTest, plain, type DbCase } from './helpers';

/**
 * SINK INTO DB and PUSH INTO DB … AUTO_MERGE write SQLite rows several to a statement: these pin what
 * row-by-row writing did, around the edges of those statements (a row count that is not a multiple of
 * their rows, a key repeated among them, a failing row in their middle, tables whose constraints
 * resolve conflicts themselves).
 */

/** Rows to a statement, for the tables here: two columns, and the fourteen of typedRow. */
const K = chunkRows(2);
assert.equal(chunkRows(14), K);
/** Two full statements and three rows written one at a time. */
const N = 2 * K + 3;
/** A row in the middle of the second statement. */
const MIDDLE = K + K / 2;

function json(db: DbCase, file: string, rows: unknown[]): void {
  writeFileSync(join(db.dir, file), JSON.stringify(rows));
}

/** Row i with a value of every type, nulls and edge values spread over the rows. */
function typedRow(i: number, version = 0): Record<string, unknown> {
  const v = i + version;
  return {
    id: String(i + 1),
    price: v % 11 === 5 ? null : `${v}.${String(v % 100).padStart(2, '0')}`,
    wide: v % 2 ? '12345678901234567890.1234567890' : `-0.000000000${v % 10}`,
    big: String((v % 2 ? -1n : 1n) * (9007199254740993n + BigInt(v))),
    at: new Date(Date.UTC(2024, 0, 1) + v * 3_600_123).toISOString().slice(0, 23),
    ok: v % 3 === 0 ? null : String(v % 2 === 0),
    name: v % 5 === 0 ? '' : v % 7 === 0 ? null : `Zoë ${v} 🚀 'q'\t"`,
    bytes: v % 4 === 0 ? null : v.toString(16).padStart(6, '0'),
    g: `0F8FAD5B-D9CB-469F-A165-${v.toString(16).padStart(12, '0').toUpperCase()}`,
    d: v % 9 === 0 ? '-1e-300' : String(v / 7),
    f: String(v + 0.25),
    small: String(((v * 257) % 65536) - 32768),
    tiny: String(v % 256),
    code: `C${v % 100}`,
  };
}

const SCHEMA = `APPLY SCHEMA (
  int id
  decimal(10,2) price
  decimal(38,10) wide
  long big
  datetime at
  bool ok
  string name
  byte[] bytes
  guid g
  double d
  float f
  short small
  tinyint tiny
  string[4] code
) STRICT_COLUMNS`;

/** The rows of `file` typed by SCHEMA; returns them as plain values. */
async function typed(db: DbCase, file: string, rows: Record<string, unknown>[]): Promise<string> {
  json(db, file, rows);
  return `SELECT * FROM DRIVE '${file}';\n${SCHEMA};`;
}

async function readBack(db: DbCase, table: string): Promise<unknown[][]> {
  const back = await db.data(`SELECT * FROM DB [db] (select * from ${table} order by id);`);
  return back.rows().map((r) => r.map(plain));
}

dbTest(
  'SINK of a row count that is not a multiple of the rows a statement writes reads back every type exactly',
  async (db) => {
    const rows = Array.from({ length: N }, (_, i) => typedRow(i));
    const messages = await db.run(`${await typed(db, 'typed.json', rows)}\nSINK INTO DB [db] TABLE 'typed';`);
    assert.deepEqual(messages, [`SINK INTO DB: ${N} rows written to 'typed'`]);
    const written = db.session.dataset.rows().map((r) => r.map(plain));
    assert.deepEqual(await readBack(db, 'typed'), written);
    // Each type bound as before: integers as INTEGER (bools 1/0), decimals and dates as TEXT, blobs as BLOB.
    const classes = 'id, price, wide, big, at, ok, name, bytes, g, d, f, small, tiny, code'
      .split(', ')
      .map((c) => `typeof(${c})`)
      .join(', ');
    assert.deepEqual(
      await db.rows(
        `select distinct ${classes} from typed where price is not null and ok is not null and name is not null and bytes is not null`,
      ),
      [
        [
          ...['integer', 'text', 'text', 'integer', 'text', 'integer', 'text', 'blob', 'text'],
          ...['real', 'real', 'integer', 'integer', 'text'],
        ],
      ],
    );
  },
  ['sqlite'],
);

dbTest(
  'AUTO_MERGE upserts every type exactly: new keys, changed and unchanged rows, over more rows than a statement writes',
  async (db) => {
    const first = Array.from({ length: N }, (_, i) => typedRow(i));
    const push = "CAPTURE 'typed' ON KEYS 'id' WITH PATH 'logs';\nPUSH INTO DB [db] TABLE 'typed' AUTO_MERGE;";
    const out = await db.run(`${await typed(db, 'typed.json', first)}\n${push}`);
    assert.equal(
      out.at(-1),
      `PUSH INTO DB [db]: ${N} upserts by AUTO_MERGE ('typed': ${N} inserted, 0 updated) in 1 transaction`,
    );
    // Every third row changed, K + 5 new rows after them.
    const second = Array.from({ length: N + K + 5 }, (_, i) => typedRow(i, i % 3 === 0 && i < N ? 1000 : 0));
    const again = await db.run(`${await typed(db, 'typed.json', second)}\n${push}`);
    const changed = Math.ceil(N / 3);
    assert.equal(
      again.at(-1),
      `PUSH INTO DB [db]: ${changed + K + 5} upserts by AUTO_MERGE ('typed': ${K + 5} inserted, ${changed} updated) in 1 transaction`,
    );
    assert.deepEqual(
      await readBack(db, 'typed'),
      db.session.dataset.rows().map((r) => r.map(plain)),
    );
  },
  ['sqlite'],
);

dbTest(
  'AUTO_MERGE of a key repeated within the rows of one statement: the later row wins, counted as row by row',
  async (db) => {
    await db.run('EXEC ON DB [db] (create table items (sku varchar(10) primary key, qty int));');
    await db.run("EXEC ON DB [db] (insert into items values ('k3', 3), ('k70', 0), ('k200', 200));");
    const rows = Array.from({ length: N }, (_, i) => ({ sku: `k${i}`, qty: i }));
    // A new key again two rows later, and again in the next statement; a known key twice in one statement.
    rows[12] = { sku: 'k10', qty: 1012 };
    rows[K + 1] = { sku: 'k10', qty: 1065 };
    rows[K + 8] = { sku: 'k70', qty: 1072 };
    rows[K + 9] = { sku: 'k3', qty: 3 };
    json(db, 'items.json', rows);
    // Row by row: k10 is inserted, then updated twice; k70 (in the table) updated by rows[70], then by
    // rows[K + 8]; k3 twice as the table has it. 6 rows insert nothing, 4 update.
    const out = await db.run("SELECT * FROM DRIVE 'items.json'; PUSH INTO DB [db] TABLE 'items' AUTO_MERGE;");
    assert.equal(
      out.at(-1),
      `PUSH INTO DB [db]: ${N} upserts by AUTO_MERGE ('items': ${N - 6} inserted, 4 updated) in 1 transaction`,
    );
    const table = await db.rows('select sku, qty from items');
    const bySku = new Map(table.map(([sku, qty]) => [sku, qty]));
    assert.equal(bySku.size, N - 3);
    assert.equal(bySku.get('k10'), 1065);
    assert.equal(bySku.get('k70'), 1072);
    assert.equal(bySku.get('k3'), 3);
    assert.equal(bySku.get('k200'), 200);
    assert.equal(bySku.get(`k${N - 1}`), N - 1);
  },
  ['sqlite'],
);

function checked(db: DbCase): Promise<string[]> {
  const rows = Array.from({ length: N }, (_, i) => ({ id: i + 1, v: i === MIDDLE ? 400 : i }));
  json(db, 'rows.json', rows);
  return db.run('EXEC ON DB [db] (create table t (id int primary key, v int check (v < 400)));');
}

dbTest(
  'a row failing a constraint in the middle of a statement fails SINK as row by row did, and nothing is written',
  async (db) => {
    await checked(db);
    const cell = "SELECT * FROM DRIVE 'rows.json';\nSINK INTO DB [db] TABLE 't';";
    const error = await db.error(cell);
    assert.equal(error.statement, 'SINK INTO DB');
    assert.equal(error.message, 'CHECK constraint failed: v < 400');
    assert.deepEqual([error.position?.line, error.position?.column], [2, 1]);
    assert.deepEqual(await db.rows('select count(*) from t'), [[0]]);
  },
  ['sqlite'],
);

dbTest(
  'a row failing a constraint in the middle of a statement fails AUTO_MERGE as row by row did, and its batch is rolled back',
  async (db) => {
    await checked(db);
    await db.run('EXEC ON DB [db] (insert into t values (1, 1), (2, 2));');
    const cell = "SELECT * FROM DRIVE 'rows.json';\nPUSH INTO DB [db] TABLE 't' AUTO_MERGE;";
    const error = await db.error(cell);
    assert.equal(error.statement, 'PUSH INTO DB');
    assert.equal(
      error.message,
      `AUTO_MERGE: upsert batch 1 of 1 (rows 1–${N}) was rolled back: CHECK constraint failed: v < 400`,
    );
    assert.deepEqual([error.position?.line, error.position?.column], [2, 1]);
    assert.deepEqual(await db.rows('select id, v from t'), [
      [1, 1],
      [2, 2],
    ]);
  },
  ['sqlite'],
);

dbTest(
  'a trigger rolling back the transaction in the middle of a statement leaves nothing written, as row by row',
  async (db) => {
    await db.run('EXEC ON DB [db] (create table t (id int, v int));');
    await db.run(
      "EXEC ON DB [db] (create trigger big before insert on t when new.v >= 400 begin select raise(rollback, 'v too big'); end);",
    );
    json(
      db,
      'rows.json',
      Array.from({ length: N }, (_, i) => ({ id: i + 1, v: i === MIDDLE ? 400 : i })),
    );
    const error = await db.error("SELECT * FROM DRIVE 'rows.json';\nSINK INTO DB [db] TABLE 't';");
    assert.equal(error.message, 'v too big');
    assert.deepEqual(await db.rows('select count(*) from t'), [[0]]);
  },
  ['sqlite'],
);

dbTest(
  "rows a trigger's RAISE(IGNORE) skips in the middle of a statement are updated by AUTO_MERGE, as row by row",
  async (db) => {
    await db.run('EXEC ON DB [db] (create table t (id int primary key, v int));');
    // Keys the table has are not inserted again: the trigger skips them, and the upsert updates them.
    await db.run(
      'EXEC ON DB [db] (create trigger known before insert on t when exists (select 1 from t where id = new.id) begin select raise(ignore); end);',
    );
    await db.run('EXEC ON DB [db] (insert into t values (3, 0), (10, 9), (40, 0));');
    json(
      db,
      'rows.json',
      Array.from({ length: N }, (_, i) => ({ id: i + 1, v: i })),
    );
    const pushed = await db.run("SELECT * FROM DRIVE 'rows.json';\nPUSH INTO DB [db] TABLE 't' AUTO_MERGE;");
    assert.equal(
      pushed.at(-1),
      `PUSH INTO DB [db]: ${N} upserts by AUTO_MERGE ('t': ${N - 3} inserted, 2 updated) in 1 transaction`,
    );
    assert.deepEqual(await db.rows('select count(*), sum(v) from t'), [[N, ((N - 1) * N) / 2]]);
  },
  ['sqlite'],
);

dbTest(
  "a table's own conflict clauses apply to each row as row by row: IGNORE skips a row, REPLACE counts an update",
  async (db) => {
    await db.run('EXEC ON DB [db] (create table ignored (id int unique on conflict ignore, v int));');
    const rows = Array.from({ length: N }, (_, i) => ({ id: i === MIDDLE ? 1 : i + 1, v: i }));
    json(db, 'rows.json', rows);
    const sunk = await db.run("SELECT * FROM DRIVE 'rows.json';\nSINK INTO DB [db] TABLE 'ignored';");
    assert.deepEqual(sunk, [`SINK INTO DB: ${N} rows written to 'ignored'`]);
    assert.deepEqual(await db.rows('select count(*), sum(v) from ignored'), [[N - 1, ((N - 1) * N) / 2 - MIDDLE]]);

    await db.run('EXEC ON DB [db] (create table replaced (id int primary key on conflict replace, v int));');
    await db.run('EXEC ON DB [db] (insert into replaced values (5, 0));');
    const pushed = await db.run(
      "SELECT * FROM DRIVE 'rows.json';\nAPPLY FILTER 'id > 1';\nPUSH INTO DB [db] TABLE 'replaced' AUTO_MERGE;",
    );
    assert.equal(
      pushed.at(-1),
      `PUSH INTO DB [db]: ${N - 2} upserts by AUTO_MERGE ('replaced': ${N - 3} inserted, 1 updated) in 1 transaction`,
    );
  },
  ['sqlite'],
);
