import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PAGE_ROWS } from '../../runtime/db/engine';
import { dbTest, plain, schemaOf, type DbCase } from './helpers';

const ROWS = 2 * PAGE_ROWS + PAGE_ROWS / 2;

/** A query of `n` rows (i = 1..n, label 'row i') in each engine's own words. */
function series(db: DbCase, n: number): string {
  return db.engine === 'sqlite'
    ? `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n}) select i, 'row ' || i as label from s`
    : `select i, 'row ' || i as label from generate_series(1, ${n}) as i`;
}

dbTest('a large result is read in pages, and an inline APPLY PIPELINE runs once per page', async (db) => {
  const messages = await db.run(`SELECT * FROM DB [db] (${series(db, ROWS)})
    APPLY PIPELINE (PRINT 'page of #data.count() rows');`);
  assert.deepEqual(messages, [
    `page of ${PAGE_ROWS} rows`,
    `page of ${PAGE_ROWS} rows`,
    `page of ${PAGE_ROWS / 2} rows`,
  ]);
  const ds = db.session.dataset;
  assert.equal(ds.rowCount, ROWS);
  assert.deepEqual(ds.row(0).map(plain), [1, 'row 1']);
  assert.deepEqual(ds.row(ROWS - 1).map(plain), [ROWS, `row ${ROWS}`]);
});

dbTest('BREAK_ON_EMPTY in the inline pipeline stops reading further pages', async (db) => {
  const messages = await db.run(`SELECT * FROM DB [db] (${series(db, ROWS)})
    APPLY PIPELINE (APPLY FILTER 'i <= ${PAGE_ROWS} OR i > ${2 * PAGE_ROWS}'; PRINT 'kept #data.count() rows') BREAK_ON_EMPTY;`);
  // The second page filters down to nothing: the third, which would print, is never read.
  assert.deepEqual(messages, [`kept ${PAGE_ROWS} rows`]);
  assert.equal(db.session.dataset.rowCount, PAGE_ROWS);
});

dbTest('a query without rows gives its columns and no rows', async (db) => {
  const ds = await db.data(`SELECT * FROM DB [db] (select * from (${series(db, 3)}) q where i > 5);`);
  assert.deepEqual(
    ds.columns.map((c) => c.name),
    ['i', 'label'],
  );
  assert.equal(ds.rowCount, 0);
});

dbTest('functions in the SQL are bind parameters computed once', async (db) => {
  const ds = await db.data(
    `SELECT * FROM DB [db] (select label from (${series(db, 50)}) q where i = #increment(41) or label = #format('row {0}', 7) order by i);`,
  );
  assert.deepEqual(ds.rows(), [['row 7'], ['row 42']]);
});

dbTest('a {{field}} in a SELECT is an error at the field: the query runs once', async (db) => {
  const cell = 'SELECT * FROM DB [db] (select 1 as x where 1 = {{id}});';
  const e = await db.error(cell);
  assert.match(
    e.message,
    /\{\{id\}\} reads a row, but SELECT FROM DB runs its query once: join the pipeline rows through @pipelinedata\(\) instead/,
  );
  assert.deepEqual([e.position?.line, e.position?.column], [1, cell.indexOf('{{') + 1]);
});

dbTest('@pipelinedata() joins the pipeline rows with the database rows', async (db) => {
  writeFileSync(
    join(db.dir, 'basket.json'),
    JSON.stringify([
      { code: 'a', qty: 2 },
      { code: 'b', qty: 3 },
      { code: 'z', qty: 9 },
    ]),
  );
  await db.run(`EXEC ON DB [db] (create table prices (code varchar(5), price decimal(6,2));
    insert into prices values ('a', 1.25), ('b', 10.00));`);
  const ds = await db.data(`SELECT * FROM DRIVE 'basket.json';
    SELECT * FROM DB [db] (select p.code, p.qty * d.price as total from @pipelinedata() p join prices d on d.code = p.code order by p.code);`);
  assert.deepEqual(
    ds.rows().map(([code, total]) => [code, Number(String(total))]),
    [
      ['a', 2.5],
      ['b', 30],
    ],
  );
  // The temporary table is dropped with the statement (SQLite's live on the session's one connection).
  const temporaries = db.engine === 'sqlite' ? 'sqlite_temp_master where name' : 'pg_class where relname';
  const left = await db.data(`SELECT * FROM DB [db] (select count(*) as n from ${temporaries} like 'sqlcdc_%');`);
  assert.equal(Number(left.cell(0, 0)), 0);
});

dbTest('a database error is placed in the SQL (where PostgreSQL says) and carries the engine message', async (db) => {
  const line = '  SELECT * FROM DB [db] (select * from missing_table);';
  const e = await db.error(`PRINT 'before';\n${line}`);
  assert.equal(e.statement, 'SELECT FROM DB');
  // PostgreSQL gives the character it failed at; SQLite's message names no place: the SQL's first word.
  const word = db.engine === 'sqlite' ? 'select' : 'missing_table';
  assert.deepEqual([e.position?.line, e.position?.column], [2, line.indexOf(word) + 1]);
  assert.match(
    e.message,
    db.engine === 'sqlite' ? /no such table: missing_table/ : /relation "missing_table" does not exist/,
  );
});

dbTest('an error in the inline pipeline is positioned on the nested statement', async (db) => {
  const e = await db.error(
    `SELECT * FROM DB [db] (${series(db, 3)})\n  APPLY PIPELINE (\n    APPLY FILTER 'nope = 1');`,
  );
  assert.equal(e.statement, 'APPLY FILTER');
  assert.equal(e.position?.line, 3);
  assert.match(e.message, /nope/);
});

dbTest('SQL that returns no rows is pointed to EXEC ON DB', async (db) => {
  await db.run('EXEC ON DB [db] (create table t (x int));');
  const e = await db.error('SELECT * FROM DB [db] (insert into t values (1));');
  assert.match(e.message, /this SQL returns no rows.*: run it with EXEC ON DB/);
  assert.deepEqual(await db.rows('select count(*) from t'), [[db.engine === 'sqlite' ? 0 : '0n']]);
});

dbTest(
  'SQLite cannot write to the database a SELECT is still reading: the message says what to do',
  async (db) => {
    // A result of one page is read whole before its pipeline runs; a longer one is still being read.
    assert.deepEqual(
      await db.run(`SELECT * FROM DB [db] (${series(db, 3)}) APPLY PIPELINE (SINK INTO DB [db] TABLE 'small');`),
      ["SINK INTO DB: 3 rows written to 'small'"],
    );
    const e = await db.error(
      `SELECT * FROM DB [db] (${series(db, ROWS)}) APPLY PIPELINE (SINK INTO DB [db] TABLE 'copy');`,
    );
    assert.equal(e.statement, 'SINK INTO DB');
    assert.match(
      e.message,
      /\[db\] is being read by a SELECT FROM DB whose APPLY PIPELINE runs this statement.*read the rows first/,
    );
    assert.deepEqual(await db.rows("select count(*) from sqlite_master where name = 'copy'"), [[0]]);
  },
  ['sqlite'],
);

dbTest(
  'a PostgreSQL read leaves the pipeline free to write to the same database per page',
  async (db) => {
    const messages = await db.run(
      `SELECT * FROM DB [db] (${series(db, ROWS)}) APPLY PIPELINE (SINK INTO DB [db] TABLE 'copy');`,
    );
    assert.equal(messages.length, 3);
    assert.deepEqual(await db.rows('select count(*), max(i) from copy'), [[`${ROWS}n`, ROWS]]);
  },
  ['postgres'],
);

dbTest('the dataset of a query shows in the cell like any source', async (db) => {
  const results = await db.session.run(`SELECT * FROM DB [db] (${series(db, 2)});`);
  const table = results.find((r) => r.kind === 'table');
  assert.ok(table && table.kind === 'table');
  assert.deepEqual(schemaOf(table.dataset), ['i:int', 'label:string']);
});
