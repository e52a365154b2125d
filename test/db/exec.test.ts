import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { postgresUnavailable } from '../helpers/postgres';
import { dbTest, newCase, plain, type DbCase } from './helpers';

const HOSTILE = [
  { id: 1, name: "x'); DROP TABLE people; --" },
  { id: 2, name: "Robert'); DELETE FROM people WHERE ('1' = '1" },
  { id: 3, name: 'quote " backslash \\ semicolon ; {{braces}} $1 ? :name' },
  { id: 4, name: '' },
  { id: 5, name: null },
];

async function people(db: DbCase): Promise<void> {
  writeFileSync(join(db.dir, 'people.json'), JSON.stringify(HOSTILE));
  await db.run(
    `EXEC ON DB [db] (create table people (id int primary key, name text));\nSELECT * FROM DRIVE 'people.json';`,
  );
}

dbTest('{{field}} values are bind parameters: hostile text is stored as the text it is', async (db) => {
  await people(db);
  await db.run('EXEC ON DB [db] (insert into people (id, name) values ({{id}}, {{name}})) PER_ROW;');
  assert.deepEqual(
    await db.rows('select id, name from people order by id'),
    HOSTILE.map((p) => [p.id, p.name]),
  );
});

dbTest('a {{field}} inside a quoted SQL literal is an error that says to write it bare; nothing runs', async (db) => {
  await people(db);
  const cell = "EXEC ON DB [db] (insert into people (id, name) values ({{id}}, 'Mr {{name}}')) PER_ROW;";
  const e = await db.error(cell);
  assert.equal(e.statement, 'EXEC ON DB');
  assert.match(
    e.message,
    /\{\{name\}\} is inside a quoted SQL literal: values are sent as bind parameters, never spliced into the SQL text, so write it bare/,
  );
  assert.deepEqual([e.position?.line, e.position?.column], [1, cell.indexOf('{{name') + 1]);
  assert.deepEqual(await db.rows('select count(*) from people'), [[db.engine === 'sqlite' ? 0 : '0n']]);
  // Quotes inside comments and doubled quotes do not confuse the reading of the SQL.
  await db.run(`EXEC ON DB [db] (
    -- it's a comment with a quote
    insert into people (id, name) values ({{id}}, 'it''s' || {{name}}) /* 'still a comment' */
  ) PER_ROW;`);
  assert.deepEqual(await db.rows('select name from people where id = 1'), [["it'sx'); DROP TABLE people; --"]]);
});

dbTest('a function inside a quoted literal is an error too', async (db) => {
  const e = await db.error("EXEC ON DB [db] (select '#now()');");
  assert.match(e.message, /#now\(…\) is inside a quoted SQL literal/);
});

dbTest('without PER_ROW the SQL runs once: a {{field}} is an error, functions run once', async (db) => {
  await people(db);
  const e = await db.error('EXEC ON DB [db] (delete from people where id = {{id}});');
  assert.match(e.message, /\{\{id\}\} reads a row, but EXEC ON DB runs its SQL once without PER_ROW: add PER_ROW/);
  await db.run(
    "EXEC ON DB [db] (insert into people (id, name) values (#increment(99), #format('{0}-{1}', #toupper('a'), #data.count())));",
  );
  assert.deepEqual(await db.rows('select id, name from people'), [[100, 'A-5']]);
});

dbTest('PER_ROW computes #f() per row too (spec 4.4)', async (db) => {
  await people(db);
  await db.run('EXEC ON DB [db] (insert into people (id, name) values ({{id}}, #rndguid())) PER_ROW;');
  assert.deepEqual(await db.rows('select count(distinct name) from people'), [[db.engine === 'sqlite' ? 5 : '5n']]);
});

dbTest('PER_ROW runs in one transaction: a failing row leaves no row of the run written', async (db) => {
  await people(db);
  const e = await db.error(
    "APPLY FILTER 'id < 3'; ADD COLUMN 'int again=1'; EXEC ON DB [db] (insert into people (id) values ({{again}})) PER_ROW;",
  );
  assert.equal(e.statement, 'EXEC ON DB');
  assert.match(
    e.message,
    db.engine === 'sqlite'
      ? /UNIQUE constraint failed: people\.id/
      : /duplicate key value violates unique constraint .*Key \(id\)=\(1\) already exists/,
  );
  assert.deepEqual(await db.rows('select count(*) from people'), [[db.engine === 'sqlite' ? 0 : '0n']]);
});

dbTest('@pipelinedata() names the pipeline rows as a table', async (db) => {
  await people(db);
  await db.run(
    'EXEC ON DB [db] (insert into people (id, name) select id + 10, name from @pipelinedata() where id >= 4);',
  );
  assert.deepEqual(await db.rows('select id, name from people order by id'), [
    [14, ''],
    [15, null],
  ]);
  // With PER_ROW too: the table is there for every row's statement.
  await db.run(
    'EXEC ON DB [db] (update people set name = (select count(*) from @pipelinedata()) where id = {{id}} + 10) PER_ROW;',
  );
  assert.deepEqual(await db.rows('select name from people order by id'), [['5'], ['5']]);
});

dbTest('@pipelinedata() of a pipeline without columns is an error before anything runs', async (db) => {
  const e = await db.error(
    'EXEC ON DB [db] (create table never (x int); insert into never select * from @pipelinedata());',
  );
  assert.match(e.message, /@pipelinedata\(\) is a table of the pipeline's rows, and the pipeline has no columns/);
  const tables = db.engine === 'sqlite' ? 'sqlite_master where name' : 'information_schema.tables where table_name';
  assert.deepEqual(await db.rows(`select count(*) from ${tables} = 'never'`), [[db.engine === 'sqlite' ? 0 : '0n']]);
});

dbTest('several statements: a script without parameters, statement by statement with them', async (db) => {
  await people(db);
  await db.run(
    `EXEC ON DB [db] (create table log (id int, note text); insert into log values (0, 'start; still text'); insert into log values (-1, 'x'));`,
  );
  await db.run(
    "APPLY FILTER 'id <= 2'; EXEC ON DB [db] (insert into log values ({{id}}, 'a;b'); insert into log values (#increment({{id}}, 100), {{name}})) PER_ROW;",
  );
  assert.deepEqual(await db.rows('select id, note from log order by id'), [
    [-1, 'x'],
    [0, 'start; still text'],
    [1, 'a;b'],
    [2, 'a;b'],
    [101, HOSTILE[0].name],
    [102, HOSTILE[1].name],
  ]);
});

dbTest('long beyond 2^53, decimals, datetimes and bytes keep their values as parameters', async (db) => {
  writeFileSync(
    join(db.dir, 'v.json'),
    JSON.stringify([{ big: '9007199254740993', price: '1234567890.12', at: '2024-05-06T07:08:09.010', raw: 'c0ffee' }]),
  );
  const decimal = db.engine === 'sqlite' ? 'text' : 'numeric(12,2)';
  const binary = db.engine === 'sqlite' ? 'blob' : 'bytea';
  await db.run(`EXEC ON DB [db] (create table v (big bigint, price ${decimal}, at timestamp, raw ${binary}));
    SELECT * FROM DRIVE 'v.json';
    APPLY SCHEMA (long big\n decimal(12,2) price\n datetime at\n byte[] raw);
    EXEC ON DB [db] (insert into v values ({{big}}, {{price}}, {{at}}, {{raw}})) PER_ROW;`);
  assert.deepEqual(await db.rows('select big, price, at, raw from v'), [
    [
      '9007199254740993n',
      db.engine === 'sqlite' ? '1234567890.12' : '1234567890.12m',
      '2024-05-06T07:08:09.010Z',
      '0xc0ffee',
    ],
  ]);
});

dbTest('EXEC leaves the dataset as it was', async (db) => {
  await people(db);
  const before = db.session.dataset;
  await db.run('EXEC ON DB [db] (delete from people);');
  assert.equal(db.session.dataset, before);
  assert.deepEqual(before.rows().map((r) => r.map(plain))[0], [1, HOSTILE[0].name]);
});

dbTest('a database error is placed in the SQL of EXEC with the engine message', async (db) => {
  const line = 'EXEC ON DB [db] (update nowhere set x = 1);';
  const e = await db.error(`\n\n${line}`);
  assert.equal(e.statement, 'EXEC ON DB');
  const word = db.engine === 'sqlite' ? 'update' : 'nowhere';
  assert.deepEqual([e.position?.line, e.position?.column], [3, line.indexOf(word) + 1]);
  assert.match(e.message, db.engine === 'sqlite' ? /no such table: nowhere/ : /relation "nowhere" does not exist/);
});

dbTest(
  'a connection password never appears in an error',
  async (db) => {
    await db.run('%connection add locked postgres://app:Pa55-w0rd.Secret@127.0.0.1:1/shop');
    const e = await db.error('EXEC ON DB [locked] (select 1);');
    assert.equal(e.statement, 'EXEC ON DB');
    assert.match(e.message, /ECONNREFUSED/);
    assert.ok(!e.message.includes('Pa55-w0rd'), e.message);
  },
  ['postgres'],
);

dbTest(
  'an unknown connection, or one of another kind, is an error at the connection',
  async (db) => {
    await db.run('%connection add api http://127.0.0.1:9/');
    const unknown = await db.error('EXEC ON DB [nowhere] (select 1);');
    assert.match(unknown.message, /unknown connection \[nowhere\]/);
    assert.equal(unknown.position?.column, 12);
    const other = await db.error('EXEC ON DB [api] (select 1);');
    assert.match(other.message, /connection \[api\] is a http connection; expected sqlite or postgres/);
  },
  ['sqlite'],
);

test(
  'Ctrl-C cancels a long PostgreSQL statement on the server',
  { skip: postgresUnavailable(), timeout: 120_000 },
  async () => {
    const db = await newCase('postgres');
    const url = (db.session.connections.getOf('db', 'postgres') as { url: string }).url;
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    const controller = new AbortController();
    let running = true;
    // Aborts once the server shows the statement running; a sleep this long ends only by being cancelled.
    const sleeping = async () =>
      (
        await watcher.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where state = 'active' and query like '%pg_sleep(600)%' and pid <> pg_backend_pid()",
        )
      ).rows[0].n > 0;
    const watch = (async () => {
      while (running) {
        if (await sleeping()) return controller.abort();
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const e = await db.run('EXEC ON DB [db] (select pg_sleep(600));', controller.signal).then(
        () => assert.fail('the statement was not cancelled'),
        (error: { kind?: string; statement?: string }) => error,
      );
      assert.equal(e.kind, 'cancelled');
      assert.equal(e.statement, 'EXEC ON DB');
      // The server stopped the statement: its backend goes idle (a moment after answering), long before
      // the sleep would end; were it not cancelled, the test would run into its timeout here.
      while (await sleeping()) await new Promise((resolve) => setImmediate(resolve));
      // The pool is still usable.
      assert.deepEqual(await db.run('EXEC ON DB [db] (select 1);'), []);
    } finally {
      running = false;
      await watch;
      await watcher.end();
      await db.session.close();
    }
  },
);

dbTest(
  'a PostgreSQL dollar-quoted body or a /* comment */ holding a quote or a parenthesis is part of the SQL block',
  async (db) => {
    await db.run(`EXEC ON DB [db] (
      create function greeting(who text) returns text as $body$
        -- it's a comment in the body (
        select 'it''s ' || who || $$ :) don't $$
      $body$ language sql /* ( don't */
    );`);
    await db.run(`SELECT * FROM DB [db] (select greeting('bob') as g, $x$it's ($x$ as t /* ) it's */);`);
    const row = db.session.dataset.rows()[0].map(plain);
    assert.equal(row[0], "it's bob :) don't ");
    assert.equal(row[1], "it's (");
  },
  ['postgres'],
);

dbTest('a /* comment */ holding a quote or a parenthesis is part of the SQL block', async (db) => {
  await db.run(`SELECT * FROM DB [db] (select 1 as n /* don't ( */);`);
  assert.deepEqual(db.session.dataset.rows(), [[1]]);
});

dbTest(
  'a whole number from a function or an int field binds as an INTEGER, a fraction as a REAL',
  async (db) => {
    writeFileSync(join(db.dir, 'n.json'), JSON.stringify([{ id: 7, ratio: 0.5 }]));
    // Columns without a type (and TEXT) keep what is bound as it is: 1.0 would stay a REAL, or the text '1.0'.
    await db.run(
      `EXEC ON DB [db] (create table v (a, b, c, d, e, t text));\nSELECT * FROM DRIVE 'n.json';\n` +
        `EXEC ON DB [db] (insert into v values (#increment(1), #len(abc), {{id}}, #parsejson('{"x": 2.5}', x), {{ratio}}, #len(abcd))) PER_ROW;`,
    );
    assert.deepEqual(
      await db.rows('select typeof(a), a, typeof(b), b, typeof(c), c, typeof(d), d, typeof(e), e, typeof(t), t from v'),
      [['integer', 2, 'integer', 3, 'integer', 7, 'real', 2.5, 'real', 0.5, 'text', '4']],
    );
    // Rows written by SINK: an int column is an INTEGER, a double a REAL, whatever the table's columns say.
    await db.run(`EXEC ON DB [db] (create table w (id, ratio, label text));\nSINK INTO DB [db] TABLE 'w';`);
    assert.deepEqual(await db.rows('select typeof(id), id, typeof(ratio), ratio from w'), [
      ['integer', 7, 'real', 0.5],
    ]);
  },
  ['sqlite'],
);

dbTest(
  "with values bound as parameters, PostgreSQL's caret is placed in the SQL as the script wrote it",
  async (db) => {
    await people(db);
    // The SQL sent has $1, $2… where the script has {{field}} and #f(): the caret PostgreSQL gives in
    // it is moved back past what each placeholder stands for.
    const cases = [
      '  EXEC ON DB [db] (update people set name = {{name}} where id = {{id}} and nosuch = 1) PER_ROW;',
      "  EXEC ON DB [db] (select #toupper('a') as a;\n    select #tolower('B') as b, {{@executionId}} as e, nosuch from people);",
      "  SELECT * FROM DB [db] (select #toupper('abc') as a,\n    /* {{id}} */ nosuch from people);",
    ];
    for (const script of cases) {
      const e = await db.error(`PRINT 'before';\n${script}`);
      const lines = `PRINT 'before';\n${script}`.split('\n');
      const line = lines.findIndex((l) => l.includes('nosuch'));
      assert.match(e.message, /column "nosuch" does not exist/, script);
      assert.deepEqual([e.position?.line, e.position?.column], [line + 1, lines[line].indexOf('nosuch') + 1], script);
    }
  },
  ['postgres'],
);
