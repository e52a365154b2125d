import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_BATCH } from '../../runtime/commands/push-db';
import { dbTest, number, plain, schemaOf, type DbCase } from './helpers';

function json(db: DbCase, file: string, rows: unknown[]): void {
  writeFileSync(join(db.dir, file), JSON.stringify(rows));
}

/** The change log files under the case's `logs` folder, relative to it. */
function logs(db: DbCase): string[] {
  const root = join(db.dir, 'logs');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.eds'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

const CAPTURE =
  "SELECT * FROM DRIVE 'orders.json';\nCAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';";

/** One run: the source as it is now, captured, then pushed with `push`. */
async function captureAndPush(db: DbCase, rows: unknown[], push: string): Promise<string[]> {
  json(db, 'orders.json', rows);
  return db.run(`${CAPTURE}\n${push}`);
}

const MERGE = "PUSH INTO DB [db] TABLE 'orders' AUTO_MERGE;";

dbTest('CAPTURE then PUSH INTO DB … AUTO_MERGE: inserts, updates and deletes over several runs', async (db) => {
  const first = await captureAndPush(
    db,
    [
      { id: 1, status: 'new' },
      { id: 2, status: 'new' },
      { id: 3, status: 'new' },
    ],
    MERGE,
  );
  assert.equal(
    first.at(-1),
    "PUSH INTO DB [db]: 3 upserts by AUTO_MERGE ('orders': 3 inserted, 0 updated) in 1 transaction",
  );
  const second = await captureAndPush(
    db,
    [
      { id: 1, status: 'new' },
      { id: 2, status: 'paid' },
      { id: 4, status: 'new' },
    ],
    MERGE,
  );
  assert.equal(
    second.at(-1),
    "PUSH INTO DB [db]: 2 upserts by AUTO_MERGE, 1 delete by AUTO_MERGE ('orders': 1 inserted, 1 updated, 1 deleted) in 2 transactions",
  );
  await captureAndPush(
    db,
    [
      { id: 2, status: 'shipped' },
      { id: 4, status: 'new' },
      { id: 5, status: 'new' },
    ],
    MERGE,
  );
  assert.deepEqual(await db.rows('select id, status from orders order by id'), [
    [2, 'shipped'],
    [4, 'new'],
    [5, 'new'],
  ]);
  // The table was created with the log's key as its primary key.
  const key =
    db.engine === 'sqlite'
      ? await db.rows("select name from pragma_table_info('orders') where pk > 0")
      : await db.rows(`select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
                        where i.indrelid = 'orders'::regclass and i.indisprimary`);
  assert.deepEqual(key, [['id']]);
});

dbTest('LOAD then PUSH INTO DB plays a change log captured by another pipeline', async (db) => {
  json(db, 'orders.json', [
    { id: 1, status: 'new' },
    { id: 2, status: 'new' },
  ]);
  await db.run(CAPTURE);
  json(db, 'orders.json', [{ id: 2, status: 'paid' }]);
  await db.run(CAPTURE);
  const load = "LOAD UPSERTS DELETES FROM 'orders' PATH 'logs';\n" + MERGE;
  const played = [...(await db.run(load)), ...(await db.run(load))];
  assert.match(played[1], /^PUSH INTO DB \[db\]: 2 upserts by AUTO_MERGE \(/);
  assert.match(played[3], /^PUSH INTO DB \[db\]: 1 upsert by AUTO_MERGE, 1 delete .*1 updated, 1 deleted/);
  assert.deepEqual(await db.rows('select id, status from orders order by id'), [[2, 'paid']]);
});

dbTest('AUTO_MERGE creates the table from the log with exact decimals, longs and dates', async (db) => {
  json(db, 'orders.json', [
    { id: '9007199254740993', amount: '12345678901234.5678', at: '2026-01-31T23:59:58.123Z', note: 'a' },
    { id: '-9007199254740993', amount: '0.1000', at: '1999-12-31T00:00:00Z', note: null },
  ]);
  await db.run(
    "SELECT * FROM DRIVE 'orders.json';\nAPPLY SCHEMA (long id\n decimal(20,4) amount\n datetime at\n string note);\n" +
      "CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';\n" +
      MERGE,
  );
  const back = await db.data('SELECT * FROM DB [db] (select * from orders order by id);');
  assert.deepEqual(schemaOf(back), ['id:long', 'amount:decimal(20,4)', 'at:datetime', 'note:string']);
  assert.deepEqual(
    back.rows().map((r) => r.map(plain)),
    [
      ['-9007199254740993n', '0.1000m', '1999-12-31T00:00:00.000Z', null],
      ['9007199254740993n', '12345678901234.5678m', '2026-01-31T23:59:58.123Z', 'a'],
    ],
  );
});

dbTest('without a change log the dataset is pushed as upserts, merged by the primary key of the table', async (db) => {
  await db.run('EXEC ON DB [db] (create table items (sku varchar(10) primary key, qty int));');
  await db.run("EXEC ON DB [db] (insert into items values ('a', 1), ('b', 2), ('d', null), ('e', 5));");
  // a as it is (neither inserted nor updated), b and d (from null) changed, c new; e not in the rows.
  json(db, 'items.json', [
    { sku: 'a', qty: 1 },
    { sku: 'b', qty: 20 },
    { sku: 'c', qty: 3 },
    { sku: 'd', qty: 4 },
  ]);
  const out = await db.run("SELECT * FROM DRIVE 'items.json'; PUSH INTO DB [db] TABLE 'items' AUTO_MERGE;");
  assert.equal(
    out.at(-1),
    "PUSH INTO DB [db]: 4 upserts by AUTO_MERGE ('items': 1 inserted, 2 updated) in 1 transaction",
  );
  assert.deepEqual(await db.rows('select sku, qty from items order by sku'), [
    ['a', 1],
    ['b', 20],
    ['c', 3],
    ['d', 4],
    ['e', 5],
  ]);
});

dbTest('rows with the same key in one push leave the last of them in the table', async (db) => {
  await db.run('EXEC ON DB [db] (create table items (sku varchar(10) primary key, qty int));');
  await db.run("EXEC ON DB [db] (insert into items values ('a', 1));");
  // A new key twice and a known key twice, as a webhook's payload may hold them.
  json(db, 'items.json', [
    { sku: 'x', qty: 1 },
    { sku: 'a', qty: 7 },
    { sku: 'x', qty: 2 },
    { sku: 'a', qty: 8 },
  ]);
  const out = await db.run("SELECT * FROM DRIVE 'items.json'; PUSH INTO DB [db] TABLE 'items' AUTO_MERGE;");
  assert.match(out.at(-1)!, /^PUSH INTO DB \[db\]: 4 upserts by AUTO_MERGE \('items': 1 inserted, /);
  assert.deepEqual(await db.rows('select sku, qty from items order by sku'), [
    ['a', 8],
    ['x', 2],
  ]);
});

dbTest('a table named with its schema is merged by its primary key as well', async (db) => {
  const schema = db.engine === 'postgres' ? 'shop' : 'main';
  if (db.engine === 'postgres') await db.run('EXEC ON DB [db] (create schema shop);');
  await db.run(`EXEC ON DB [db] (create table ${schema}.items (sku varchar(10) primary key, qty int));`);
  await db.run(`EXEC ON DB [db] (insert into ${schema}.items values ('a', 1), ('b', 2));`);
  json(db, 'items.json', [
    { sku: 'a', qty: 1 },
    { sku: 'b', qty: 20 },
    { sku: 'c', qty: 3 },
  ]);
  const out = await db.run(`SELECT * FROM DRIVE 'items.json'; PUSH INTO DB [db] TABLE '${schema}.items' AUTO_MERGE;`);
  assert.equal(
    out.at(-1),
    `PUSH INTO DB [db]: 3 upserts by AUTO_MERGE ('${schema}.items': 1 inserted, 1 updated) in 1 transaction`,
  );
  assert.deepEqual(await db.rows(`select sku, qty from ${schema}.items order by sku`), [
    ['a', 1],
    ['b', 20],
    ['c', 3],
  ]);
});

const HOSTILE = "x'); DROP TABLE people; --";

dbTest(
  'ON_UPSERT and ON_DELETE run their SQL per row with {{field}} as bind parameters; @pipelinedata() per batch',
  async (db) => {
    await db.run('EXEC ON DB [db] (create table people (id int primary key, name text));');
    await db.run('EXEC ON DB [db] (create table audit (id int, op text, at_batch int));');
    json(db, 'orders.json', [
      { id: 1, name: HOSTILE },
      { id: 2, name: 'b' },
      { id: 3, name: 'c' },
    ]);
    const push = `PUSH INTO DB [db]
      ON_UPSERT (insert into people (id, name) values ({{id}}, {{name}}) on conflict (id) do update set name = excluded.name) BATCH 2
      ON_DELETE (delete from people where id = {{id}})`;
    await db.run(
      `SELECT * FROM DRIVE 'orders.json';\nCAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';\n${push};`,
    );
    assert.deepEqual(await db.rows('select id, name from people order by id'), [
      [1, HOSTILE],
      [2, 'b'],
      [3, 'c'],
    ]);
    json(db, 'orders.json', [{ id: 1, name: `${HOSTILE} again` }]);
    const out = await db.run(
      `SELECT * FROM DRIVE 'orders.json';\nCAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';\n${push}\n` +
        '  ;',
    );
    assert.equal(out.at(-1), 'PUSH INTO DB [db]: 1 upsert by ON_UPSERT, 2 deletes by ON_DELETE in 2 transactions');
    assert.deepEqual(await db.rows('select id, name from people order by id'), [[1, `${HOSTILE} again`]]);
    // The same deletes once per batch, over a table of the batch's rows.
    json(db, 'orders.json', []);
    await db.run(
      `SELECT * FROM DRIVE 'orders.json';\nAPPLY SCHEMA (int id\n string name);\nCAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';\n` +
        "PUSH INTO DB [db] ON_DELETE (insert into audit select id, 'D', #data.count() from @pipelinedata(); delete from people where id in (select id from @pipelinedata()));",
    );
    assert.deepEqual(await db.rows('select count(*) from people'), [[db.engine === 'sqlite' ? 0 : '0n']]);
    assert.deepEqual(await db.rows('select id, op from audit'), [[1, 'D']]);
  },
);

dbTest('ON_INIT runs before the streams; ON_COMPLETION after, with @success true or false', async (db) => {
  const init = 'ON_INIT (create table if not exists runs (execution text, ok boolean, n int))';
  const completion = 'ON_COMPLETION (insert into runs values (@executionId, @success, (select count(*) from orders)))';
  await captureAndPush(
    db,
    [{ id: 1, status: 'new' }],
    `PUSH INTO DB [db] TABLE 'orders' AUTO_MERGE ${init} ${completion};`,
  );
  const [log] = logs(db);
  const id = /_(\d+)\.eds$/.exec(log)![1];
  // A failing stream: @success is false, and the push's own error is what the cell fails with.
  json(db, 'orders.json', [
    { id: 1, status: 'new' },
    { id: 2, status: 'new' },
  ]);
  const error = await db.error(
    `${CAPTURE}\nPUSH INTO DB [db] ON_UPSERT (insert into missing_table values ({{id}})) ${init} ${completion};`,
  );
  assert.equal(error.statement, 'PUSH INTO DB');
  assert.match(error.message, /^ON_UPSERT: upsert batch 1 of 1 \(rows 1–1\) was rolled back: .*missing_table/);
  const runs = (await db.rows('select execution, ok, n from runs order by execution')).map(([e, ok, n]) => [
    e,
    ok,
    number(n),
  ]);
  assert.equal(runs.length, 2);
  assert.deepEqual(runs[0], [id, true, 1]);
  assert.deepEqual(runs[1].slice(1), [false, 1]);
  assert.notEqual(runs[1][0], id, 'the second run has its own execution id');
});

dbTest(
  'one transaction per batch: a failing batch rolls back only itself, the error names the statement, and a replay resumes',
  async (db) => {
    await db.run('EXEC ON DB [db] (create table t (id int primary key, v int check (v < 100)));');
    json(db, 'orders.json', [
      { id: 1, v: 1 },
      { id: 2, v: 2 },
      { id: 3, v: 3 },
      { id: 4, v: 400 },
      { id: 5, v: 5 },
    ]);
    const push = 'PUSH INTO DB [db] ON_UPSERT (insert into t values ({{id}}, {{v}})) BATCH 2';
    const error = await db.error(`${CAPTURE}\n${push};`);
    assert.equal(error.statement, 'PUSH INTO DB');
    // In the section's SQL: neither engine names a place for a failed CHECK, so its first word.
    assert.deepEqual([error.position?.line, error.position?.column], [3, push.indexOf('insert') + 1]);
    assert.match(
      error.message,
      /^ON_UPSERT: upsert batch 2 of 3 \(rows 3–4\) was rolled back: .*check.*; the 1 batch before it stays committed$/i,
    );
    assert.deepEqual(await db.rows('select id from t order by id'), [[1], [2]]);
    // Replaying the same log (LOAD of that file) skips the committed batch and retries from batch 2.
    await db.run('EXEC ON DB [db] (update t set v = v);');
    await db.run(
      db.engine === 'sqlite'
        ? 'EXEC ON DB [db] (create table t2 (id int primary key, v int)); EXEC ON DB [db] (insert into t2 select * from t); EXEC ON DB [db] (drop table t); EXEC ON DB [db] (alter table t2 rename to t);'
        : 'EXEC ON DB [db] (alter table t drop constraint t_v_check);',
    );
    const [log] = logs(db);
    const out = await db.run(`LOAD UPSERTS FROM '${log}' PATH 'logs';\n${push};`);
    assert.ok(
      out.includes(
        'upsert stream: resuming at batch 2 of 3 (batches before it were committed by an earlier push of this change log)',
      ),
      out.join('\n'),
    );
    assert.ok(
      out.includes('PUSH INTO DB [db]: 3 upserts by ON_UPSERT (2 more committed by an earlier push) in 2 transactions'),
      out.join('\n'),
    );
    assert.deepEqual(await db.rows('select id, v from t order by id'), [
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 400],
      [5, 5],
    ]);
  },
);

dbTest('WITH DISCARD_ON_SUCCESS removes the played log; DLQ_ON_ERROR moves a log that failed', async (db) => {
  const out = await captureAndPush(db, [{ id: 1, status: 'new' }], `${MERGE.slice(0, -1)} WITH DISCARD_ON_SUCCESS;`);
  assert.match(out.at(-1)!, /^change log orders_\d+\.eds discarded after success$/);
  assert.deepEqual(logs(db), []);
  assert.deepEqual(await db.rows('select id from orders'), [[1]]);
  json(db, 'orders.json', [{ id: 1, status: 'paid' }]);
  // An insert of a key the table has: the push fails.
  const error = await db.error(
    `${CAPTURE}\nPUSH INTO DB [db] ON_UPSERT (insert into orders values ({{id}}, {{status}})) WITH DLQ_ON_ERROR 'failed';`,
  );
  assert.equal(error.statement, 'PUSH INTO DB');
  const [moved] = logs(db);
  assert.match(moved, /^failed\/orders_\d+\.eds$/);
  assert.deepEqual(await db.rows('select id, status from orders'), [[1, 'new']]);
});

dbTest('mistakes are found before anything runs', async (db) => {
  const noTable = await db.error('PUSH INTO DB [db] AUTO_MERGE;');
  assert.match(noTable.message, /AUTO_MERGE needs TABLE/);
  const noMerge = await db.error("PUSH INTO DB [db] TABLE 'x';");
  assert.match(noMerge.message, /TABLE names the table AUTO_MERGE writes/);
  const nothing = await db.error('PUSH INTO DB [db];');
  assert.match(nothing.message, /PUSH INTO DB needs TABLE '<table>' AUTO_MERGE, or ON_UPSERT/);
  const quoted = await db.error("PUSH INTO DB [db] ON_UPSERT (insert into x values ('{{id}}'));");
  assert.match(quoted.message, /inside a quoted SQL literal/);
  const field = await db.error(
    'PUSH INTO DB [db] ON_UPSERT (select 1) ON_COMPLETION (insert into runs values ({{id}}));',
  );
  assert.match(field.message, /\{\{id\}\} reads a row, but ON_COMPLETION runs once/);
  const success = await db.error('EXEC ON DB [db] (select @success);');
  assert.match(success.message, /@success is only set in the ON_COMPLETION SQL of PUSH INTO DB/);
});

dbTest(
  'TIMEOUT bounds the SQL of a section (PostgreSQL cancels the statement on the server)',
  async (db) => {
    json(db, 'orders.json', [{ id: 1 }]);
    const error = await db.error(
      `${CAPTURE}\nPUSH INTO DB [db] ON_UPSERT (select pg_sleep(30) where {{id}}::int > 0) TIMEOUT 1;`,
    );
    assert.match(
      error.message,
      /^ON_UPSERT: upsert batch 1 of 1 \(rows 1–1\) was rolled back: canceling statement due to statement timeout/,
    );
  },
  ['postgres'],
);

dbTest(
  'TIMEOUT on SQLite is checked every 1,000 rows of a batch; WITH RETRY plays a failed batch again',
  async (db) => {
    await db.run('%connection add src sqlite:src.db');
    await db.run(
      'SELECT * FROM DB [src] (with recursive s(i) as (select 1 union all select i + 1 from s where i < 1500) select i as id from s);\n' +
        "CAPTURE 'ids' ON KEYS 'id' WITH PATH 'logs';",
    );
    await db.run('EXEC ON DB [db] (create table ids (id int primary key));');
    const timeout = await db.error(
      "LOAD UPSERTS FROM 'ids' PATH 'logs';\nPUSH INTO DB [db] ON_UPSERT (insert into ids values ({{id}})) TIMEOUT 0;",
    );
    assert.match(
      timeout.message,
      /^ON_UPSERT: upsert batch 1 of 1 \(rows 1–1,?500\) was rolled back: TIMEOUT 0: the rows took longer than 0 s$/,
    );
    assert.deepEqual(await db.rows('select count(*) from ids'), [[0]]);
    await db.run('EXEC ON DB [db] (insert into ids values (1500));');
    const retried = await db.error(
      "LOAD UPSERTS FROM 'ids' PATH 'logs';\nPUSH INTO DB [db] ON_UPSERT (insert into ids values ({{id}})) WITH RETRY LINEAR (2, 0);",
    );
    assert.match(retried.message, /UNIQUE constraint failed: ids\.id \(after 2 retries\)$/);
    assert.deepEqual(await db.rows('select count(*) from ids'), [[1]]);
  },
  ['sqlite'],
);

dbTest(
  'Ctrl-C stops a long push between batches: the batches committed stay, the rest is left to a replay',
  async (db) => {
    await db.run('%connection add src sqlite:src.db');
    const rows = 3 * DEFAULT_BATCH;
    await db.run(
      `SELECT * FROM DB [src] (with recursive s(i) as (select 1 union all select i + 1 from s where i < ${rows}) select i as id, 'row ' || i as label from s);\n` +
        "CAPTURE 'big' ON KEYS 'id' WITH PATH 'logs';",
    );
    const probe = new Database(join(db.dir, 'test.db'), { timeout: 0 });
    const controller = new AbortController();
    let running = true;
    let sawWriting = false;
    // A second connection sees the first batch committed between two turns of the event loop.
    const look = () => {
      if (!running) return;
      const exists = probe.prepare("select count(*) from sqlite_master where name = 'big'").pluck().get();
      if (exists && (probe.prepare('select count(*) from big').pluck().get() as number) > 0) {
        sawWriting = true;
        controller.abort();
        return;
      }
      setImmediate(look);
    };
    setImmediate(look);
    let error: unknown;
    try {
      await db.run(
        "LOAD UPSERTS FROM 'big' PATH 'logs';\nPUSH INTO DB [db] TABLE 'big' AUTO_MERGE ON_COMPLETION (create table completed (x int));",
        controller.signal,
      );
    } catch (e) {
      error = e;
    } finally {
      running = false;
    }
    assert.equal(sawWriting, true, String(error));
    assert.equal((error as { kind?: string }).kind, 'cancelled');
    assert.equal((error as { statement?: string }).statement, 'PUSH INTO DB');
    const written = probe.prepare("select count(*) from sqlite_master where name = 'big'").pluck().get()
      ? (probe.prepare('select count(*) from big').pluck().get() as number)
      : 0;
    assert.equal(written % DEFAULT_BATCH, 0, 'whole batches only');
    assert.ok(written < rows, `${written} of ${rows} rows: stopped early`);
    assert.equal(
      probe.prepare("select count(*) from sqlite_master where name = 'completed'").pluck().get(),
      0,
      'ON_COMPLETION does not run after Ctrl-C',
    );
    probe.close();
    await db.run("LOAD UPSERTS FROM 'big' PATH 'logs';\nPUSH INTO DB [db] TABLE 'big' AUTO_MERGE;");
    assert.equal(number((await db.rows('select count(*) from big'))[0][0]), rows);
  },
  ['sqlite'],
);

dbTest('SINK INTO DB … ON COLUMN shreds the XML or JSON document of each row into the table', async (db) => {
  json(db, 'docs.json', [
    {
      order: 1,
      doc: '<order><line><sku>a</sku><qty>2</qty></line><line><sku>b</sku><qty>5</qty></line></order>',
    },
    { order: 2, doc: '[{"sku": "c", "qty": 7}]' },
    { order: 3, doc: null },
    { order: 4, doc: '  ' },
  ]);
  const out = await db.run("SELECT * FROM DRIVE 'docs.json'; SINK INTO DB [db] TABLE 'lines' ON COLUMN 'doc';");
  assert.deepEqual(out, ["SINK INTO DB: 3 rows written to 'lines'"]);
  assert.deepEqual(
    db.session.dataset.columns.map((c) => c.name),
    ['order', 'doc'],
    'the dataset itself is unchanged',
  );
  const back = await db.data('SELECT * FROM DB [db] (select * from lines order by sku);');
  assert.deepEqual(schemaOf(back), ['order:int', 'sku:string', 'qty:int']);
  assert.deepEqual(back.rows(), [
    [1, 'a', 2],
    [1, 'b', 5],
    [2, 'c', 7],
  ]);
  const bad = await db.error("SELECT * FROM DRIVE 'docs.json'; SINK INTO DB [db] TABLE 'lines' ON COLUMN 'nope';");
  assert.match(bad.message, /unknown column 'nope'/);
  assert.equal(bad.position?.column, 77, "on the column's name");
});

dbTest(
  'column names from data are quoted in the SQL: a hostile one is a column like any other, a NUL in one is refused by name',
  async (db) => {
    const hostile = 'x"; DROP TABLE orders; --';
    json(db, 'named.json', [{ id: 1, [hostile]: 'kept' }]);
    await db.run("SELECT * FROM DRIVE 'named.json';\nSINK INTO DB [db] TABLE 'named';");
    await db.run("SELECT * FROM DRIVE 'named.json';\nMERGE INTO [db] TABLE 'named' WITH KEY COLUMNS 'id';");
    assert.deepEqual(await db.rows(`select "${hostile.replace(/"/g, '""')}" from named`), [['kept']]);
    json(db, 'nul.json', [{ id: 1, 'n\u0000ul': 'z' }]);
    await assert.rejects(db.run("SELECT * FROM DRIVE 'nul.json';\nSINK INTO DB [db] TABLE 'nul';"), (e: Error) => {
      assert.equal(
        e.message,
        `the name 'n\\u0000ul' holds a NUL character, which ${db.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} cannot take in a table or column name`,
      );
      return true;
    });
  },
);
