import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PAGE_ROWS } from '../../runtime/db/engine';
import { dbTest, number, schemaOf, type DbCase } from './helpers';

const ROWS = 2 * PAGE_ROWS + PAGE_ROWS / 2;
const SERIES = `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${ROWS}) select i, 'row ' || i as label from s`;

/** `[src]`: a SQLite database of its own to read pages from, so the pipeline may write to `[db]` meanwhile. */
async function withSource(db: DbCase): Promise<void> {
  await db.run('%connection add src sqlite:src.db');
}

async function count(db: DbCase, table: string): Promise<number> {
  return number((await db.rows(`select count(*) from ${table}`))[0][0]);
}

async function tableExists(db: DbCase, name: string): Promise<boolean> {
  const sql =
    db.engine === 'sqlite'
      ? `select count(*) from sqlite_master where name = '${name}'`
      : `select count(*) from pg_tables where tablename = '${name}'`;
  return number((await db.rows(sql))[0][0]) === 1;
}

function json(db: DbCase, file: string, rows: unknown[]): void {
  writeFileSync(join(db.dir, file), JSON.stringify(rows));
}

dbTest('SINK creates a missing table from the dataset and appends on later runs', async (db) => {
  json(db, 'a.json', [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
  ]);
  assert.deepEqual(await db.run("SELECT * FROM DRIVE 'a.json'; SINK INTO DB [db] TABLE 'items';"), [
    "SINK INTO DB: 2 rows written to 'items'",
  ]);
  await db.run("SINK INTO DB [db] TABLE 'items';");
  assert.deepEqual(await db.rows('select id, name from items order by id, name'), [
    [1, 'a'],
    [1, 'a'],
    [2, 'b'],
    [2, 'b'],
  ]);
});

dbTest('TRUNCATE empties the table first; RECREATE drops it and creates it from the dataset', async (db) => {
  json(db, 'a.json', [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
  ]);
  await db.run(
    "SELECT * FROM DRIVE 'a.json'; SINK INTO DB [db] TABLE 'items'; SINK INTO DB [db] TABLE 'items' WITH TRUNCATE;",
  );
  assert.equal(await count(db, 'items'), 2);
  json(db, 'b.json', [{ code: 'x' }]);
  await db.run("SELECT * FROM DRIVE 'b.json'; SINK INTO DB [db] TABLE 'items' WITH RECREATE;");
  assert.deepEqual(schemaOf(await db.data('SELECT * FROM DB [db] (select * from items);')), ['code:string']);
  assert.equal(db.session.dataset.cell(0, 0), 'x');
});

dbTest(
  'in an inline pipeline TRUNCATE and RECREATE reset the table per page, the _APPEND forms once per run',
  async (db) => {
    await withSource(db);
    const paged = (mode: string) =>
      `SELECT * FROM DB [src] (${SERIES}) APPLY PIPELINE (SINK INTO DB [db] TABLE 'paged' WITH ${mode});`;
    await db.run(
      'EXEC ON DB [db] (create table paged (i int, label text, old text)); EXEC ON DB [db] (insert into paged (i) values (-1));',
    );

    assert.deepEqual(await db.run(paged('TRUNCATE_APPEND')), [
      "SINK INTO DB: 10,000 rows written to 'paged'",
      "SINK INTO DB: 10,000 rows written to 'paged'",
      "SINK INTO DB: 5,000 rows written to 'paged'",
    ]);
    assert.deepEqual(
      (await db.rows('select count(*), min(i), max(i) from paged')).map((r) => r.map(number)),
      [[ROWS, 1, ROWS]],
    );
    // A new run resets it again.
    await db.run(paged('TRUNCATE_APPEND'));
    assert.equal(await count(db, 'paged'), ROWS);

    await db.run(paged('TRUNCATE'));
    assert.deepEqual(
      (await db.rows('select count(*), min(i) from paged')).map((r) => r.map(number)),
      [[PAGE_ROWS / 2, 2 * PAGE_ROWS + 1]],
    );

    await db.run(paged('RECREATE_APPEND'));
    assert.equal(await count(db, 'paged'), ROWS);
    assert.deepEqual(
      schemaOf(await db.data('SELECT * FROM DB [db] (select * from paged where i = 1);')),
      ['i:int', 'label:string'],
      'recreated without the old column',
    );

    await db.run(paged('RECREATE'));
    assert.equal(await count(db, 'paged'), PAGE_ROWS / 2);
  },
);

dbTest("SINK adds the dataset's new columns to an existing table", async (db) => {
  json(db, 'a.json', [{ id: 1 }]);
  json(db, 'b.json', [{ id: 2, note: 'new' }]);
  await db.run(
    "SELECT * FROM DRIVE 'a.json'; SINK INTO DB [db] TABLE 'grow'; SELECT * FROM DRIVE 'b.json'; SINK INTO DB [db] TABLE 'grow';",
  );
  assert.deepEqual(await db.rows('select id, note from grow order by id'), [
    [1, null],
    [2, 'new'],
  ]);
});

dbTest('REPLACE replaces the rows whose primary key matches; a table without one is an error', async (db) => {
  await db.run(`EXEC ON DB [db] (create table keyed (id int primary key, name text, extra text));
    EXEC ON DB [db] (insert into keyed values (1, 'a', 'kept'), (3, 'c', 'kept'));`);
  json(db, 'k.json', [
    { id: 1, name: 'A' },
    { id: 2, name: 'b' },
  ]);
  await db.run("SELECT * FROM DRIVE 'k.json'; APPLY SCHEMA (int id); SINK INTO DB [db] TABLE 'keyed' WITH REPLACE;");
  assert.deepEqual(await db.rows('select id, name, extra from keyed order by id'), [
    [1, 'A', 'kept'],
    [2, 'b', null],
    [3, 'c', 'kept'],
  ]);

  await db.run("SINK INTO DB [db] TABLE 'unkeyed';");
  for (const table of ['unkeyed', 'missing']) {
    const e = await db.error(`SINK INTO DB [db] TABLE '${table}' WITH REPLACE;`);
    assert.match(
      e.message,
      new RegExp(`REPLACE replaces the rows of '${table}' whose primary key matches, and it has no primary key`),
    );
  }
  assert.equal(await count(db, 'unkeyed'), 2, 'the failed REPLACE wrote nothing');
  assert.equal(await tableExists(db, 'missing'), false);
});

dbTest('AUTO_CLEAN drops the table when the run ends, even when it fails', async (db) => {
  json(db, 'a.json', [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
  ]);
  await db.run(`SELECT * FROM DRIVE 'a.json';
    SINK INTO DB [db] TABLE 'stage' WITH AUTO_CLEAN;
    EXEC ON DB [db] (create table final as select * from stage);`);
  assert.equal(await tableExists(db, 'stage'), false);
  assert.equal(await count(db, 'final'), 2);

  const e = await db.error(
    "SINK INTO DB [db] TABLE 'stage2' WITH AUTO_CLEAN; EXEC ON DB [db] (select * from nowhere);",
  );
  assert.equal(e.statement, 'EXEC ON DB');
  assert.equal(await tableExists(db, 'stage2'), false);
});

dbTest('table names: schema-qualified, quoted, computed by functions; a malformed one is an error', async (db) => {
  json(db, 'a.json', [{ id: 1 }]);
  const schema = db.engine === 'sqlite' ? 'main' : 'public';
  await db.run(`SELECT * FROM DRIVE 'a.json';
    SINK INTO DB [db] TABLE '${schema}.qualified';
    SINK INTO DB [db] TABLE '"odd.name"';
    SINK INTO DB [db] TABLE 't_#tolower(ABC)';`);
  assert.equal(await count(db, 'qualified'), 1);
  assert.equal(await count(db, '"odd.name"'), 1);
  assert.equal(await count(db, 't_abc'), 1);
  const e = await db.error("SINK INTO DB [db] TABLE 'a.b.c';");
  assert.match(e.message, /'a\.b\.c' is not a table name: write 'table' or 'schema\.table'/);
  assert.equal(e.position?.column, 26);
});

dbTest('SINK needs a dataset with columns', async (db) => {
  const empty = await db.error("SINK INTO DB [db] TABLE 'nothing';");
  assert.match(empty.message, /SINK INTO DB needs a dataset with columns to write: the pipeline has none/);
});

dbTest(
  'Ctrl-C stops a long SQLite sink between batches and rolls it back; the session stays usable',
  async (db) => {
    await withSource(db);
    await db.run(`SELECT * FROM DB [src] (${SERIES.replace(String(ROWS), '200000')});`);
    // A second connection tells when the sink is writing: SQLite then refuses it the write lock. It
    // can only look between two batches, when the sink has given the event loop a turn.
    const probe = new Database(join(db.dir, 'test.db'), { timeout: 0 });
    const controller = new AbortController();
    let running = true;
    let sawWriting = false;
    const look = () => {
      if (!running) return;
      try {
        probe.exec('BEGIN IMMEDIATE; ROLLBACK;');
      } catch (e) {
        if ((e as { code?: string }).code !== 'SQLITE_BUSY') throw e;
        sawWriting = true;
        controller.abort();
        return;
      }
      setImmediate(look);
    };
    setImmediate(look);
    let error: unknown;
    try {
      await db.run("SINK INTO DB [db] TABLE 'big';", controller.signal);
    } catch (e) {
      error = e;
    } finally {
      running = false;
    }
    assert.equal(sawWriting, true, 'the sink let the event loop turn while it wrote');
    assert.equal((error as { kind?: string }).kind, 'cancelled');
    assert.equal((error as { statement?: string }).statement, 'SINK INTO DB');
    assert.equal(
      probe.prepare("select count(*) from sqlite_master where name = 'big'").pluck().get(),
      0,
      'rolled back: not even the table is left',
    );
    probe.close();
    await db.run("APPLY FILTER 'i <= 3'; SINK INTO DB [db] TABLE 'big';");
    assert.equal(await count(db, 'big'), 3);
  },
  ['sqlite'],
);

dbTest(
  "a value the table's column refuses names where COPY met it, and nothing is written",
  async (db) => {
    json(db, 'bad.json', [
      { id: '1', v: 'a' },
      { id: 'abc', v: 'b' },
    ]);
    await db.run('EXEC ON DB [db] (create table st (id int, v text));');
    const e = await db.error("SELECT * FROM DRIVE 'bad.json';\nSINK INTO DB [db] TABLE 'st';");
    assert.equal(e.statement, 'SINK INTO DB');
    assert.match(e.message, /invalid input syntax for type integer: "abc" \(COPY st, line 2, column id: "abc"\)/);
    assert.equal(await count(db, 'st'), 0);
  },
  ['postgres'],
);

dbTest(
  "int and bool cells are INTEGERs in SQLite columns of any affinity, and an upsert compares a TEXT column's text",
  async (db) => {
    await db.run(
      `EXEC ON DB [db] (create table src (k INT, t TINYINT, s SMALLINT, i INT, b BOOLEAN));\n` +
        `EXEC ON DB [db] (insert into src values (1, 1, 2, 3, 1), (2, 4, 5, 6, 0));\n` +
        `EXEC ON DB [db] (create table loose (k, t, s, i, b));\n` +
        `EXEC ON DB [db] (create table texts (k text, t text, s text, i text, b text));\n` +
        `EXEC ON DB [db] (create table keyed (k INT PRIMARY KEY, t, s, i text, b));\n` +
        `EXEC ON DB [db] (insert into keyed values (1, 1, 2, '03', 1), (2, 4, 5, '6', 0));\n` +
        `SELECT * FROM DB [db] (select * from src order by k);\n` +
        `SINK INTO DB [db] TABLE 'loose';\nSINK INTO DB [db] TABLE 'texts';\n` +
        `PUSH INTO DB [db] TABLE 'keyed' AUTO_MERGE;`,
    );
    assert.deepEqual(
      db.session.dataset.columns.map((c) => c.type.base),
      ['int', 'tinyint', 'short', 'int', 'bool'],
    );
    // Without a type a column keeps what is bound: 3.0 and 1.0 would stay REALs.
    assert.deepEqual(
      await db.rows('select typeof(t), t, typeof(s), typeof(i), i, typeof(b), b from loose order by k'),
      [
        ['integer', 1, 'integer', 'integer', 3, 'integer', 1],
        ['integer', 4, 'integer', 'integer', 6, 'integer', 0],
      ],
    );
    assert.deepEqual(await db.rows('select k, t, s, i, b from texts order by k'), [
      ['1', '1', '2', '3', '1'],
      ['2', '4', '5', '6', '0'],
    ]);
    // '03' is not the text of 3: that row is updated; '6' is, so the other row is left as it is.
    assert.deepEqual(await db.rows('select k, typeof(i), i from keyed order by k'), [
      [1, 'text', '3'],
      [2, 'text', '6'],
    ]);
  },
  ['sqlite'],
);
