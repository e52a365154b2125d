import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dbTest, schemaOf, type DbCase } from './helpers';

function json(db: DbCase, file: string, rows: unknown[]): void {
  writeFileSync(join(db.dir, file), JSON.stringify(rows));
}

const FIRST = [
  { id: 1, name: 'a', qty: 1 },
  { id: 2, name: 'b', qty: 2 },
  { id: 3, name: 'c', qty: 3 },
];
/** 1 unchanged, 2 changed, 3 gone, 4 new. */
const SECOND = [
  { id: 1, name: 'a', qty: 1 },
  { id: 2, name: 'B', qty: 20 },
  { id: 4, name: 'd', qty: 4 },
];

async function merged(db: DbCase, options: string): Promise<string[]> {
  json(db, 'first.json', FIRST);
  json(db, 'second.json', SECOND);
  await db.run("SELECT * FROM DRIVE 'first.json'; MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id';");
  return db.run(`SELECT * FROM DRIVE 'second.json'; MERGE INTO [db] TABLE 'stock' ${options};`);
}

const rowsOf = (db: DbCase) => db.rows('select id, name, qty from stock order by id');

dbTest(
  'MERGE by key: inserts new rows, updates changed ones, deletes missing ones; all three when none is named',
  async (db) => {
    assert.deepEqual(await merged(db, "WITH KEY COLUMNS 'id'"), [
      "MERGE INTO 'stock': 1 inserted, 1 updated, 1 deleted",
    ]);
    assert.deepEqual(await rowsOf(db), [
      [1, 'a', 1],
      [2, 'B', 20],
      [4, 'd', 4],
    ]);
  },
);

dbTest('MERGE creates a missing table with the key columns as primary key', async (db) => {
  await merged(db, "WITH KEY COLUMNS 'id'");
  const key =
    db.engine === 'sqlite'
      ? await db.rows("select name from pragma_table_info('stock') where pk > 0")
      : await db.rows(`select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
                        where i.indrelid = 'stock'::regclass and i.indisprimary`);
  assert.deepEqual(key, [['id']]);
});

dbTest('MERGE … INSERTS UPDATES keeps the rows the dataset lacks', async (db) => {
  assert.deepEqual(await merged(db, "WITH KEY COLUMNS 'id' INSERTS UPDATES"), [
    "MERGE INTO 'stock': 1 inserted, 1 updated, 0 deleted",
  ]);
  assert.deepEqual(await rowsOf(db), [
    [1, 'a', 1],
    [2, 'B', 20],
    [3, 'c', 3],
    [4, 'd', 4],
  ]);
});

dbTest('MERGE … INSERTS only adds rows; UPDATES only changes them; DELETES only removes them', async (db) => {
  assert.deepEqual(await merged(db, "WITH KEY COLUMNS 'id' INSERTS"), [
    "MERGE INTO 'stock': 1 inserted, 0 updated, 0 deleted",
  ]);
  assert.deepEqual(await rowsOf(db), [
    [1, 'a', 1],
    [2, 'b', 2],
    [3, 'c', 3],
    [4, 'd', 4],
  ]);
  assert.deepEqual(await db.run("MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id' UPDATES;"), [
    "MERGE INTO 'stock': 0 inserted, 1 updated, 0 deleted",
  ]);
  assert.deepEqual(await db.run("MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id' DELETES;"), [
    "MERGE INTO 'stock': 0 inserted, 0 updated, 1 deleted",
  ]);
  assert.deepEqual(await rowsOf(db), [
    [1, 'a', 1],
    [2, 'B', 20],
    [4, 'd', 4],
  ]);
});

dbTest('MERGE without key columns appends every row, and says UPDATES and DELETES need keys', async (db) => {
  json(db, 'first.json', FIRST);
  await db.run("SELECT * FROM DRIVE 'first.json'; MERGE INTO [db] TABLE 'stock';");
  assert.deepEqual(await db.run("MERGE INTO [db] TABLE 'stock' WITH UPDATES DELETES;"), [
    'MERGE without KEY COLUMNS appends every row: UPDATES and DELETES need key columns to match rows by',
    "MERGE INTO 'stock': 3 inserted, 0 updated, 0 deleted",
  ]);
  assert.equal((await rowsOf(db)).length, 6);
});

dbTest("SCHEMA_DRIFT adds the dataset's new columns; without it they are not written, with a warning", async (db) => {
  json(db, 'first.json', FIRST);
  json(db, 'more.json', [
    { id: 1, name: 'a', qty: 1, colour: 'red' },
    { id: 5, name: 'e', qty: 5, colour: 'blue' },
  ]);
  await db.run("SELECT * FROM DRIVE 'first.json'; MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id';");
  assert.deepEqual(
    await db.run(
      "SELECT * FROM DRIVE 'more.json'; MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id' INSERTS UPDATES;",
    ),
    [
      "MERGE: 'stock' has no column colour: not written (SCHEMA_DRIFT adds them)",
      "MERGE INTO 'stock': 1 inserted, 0 updated, 0 deleted",
    ],
  );
  assert.deepEqual(schemaOf(await db.data('SELECT * FROM DB [db] (select * from stock where 1 = 0);')), [
    'id:int',
    'name:string',
    'qty:int',
  ]);
  assert.deepEqual(
    await db.run(
      "SELECT * FROM DRIVE 'more.json'; MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id' INSERTS UPDATES SCHEMA_DRIFT;",
    ),
    ["MERGE INTO 'stock': 0 inserted, 2 updated, 0 deleted"],
  );
  assert.deepEqual(await db.rows('select id, colour from stock order by id'), [
    [1, 'red'],
    [2, null],
    [3, null],
    [5, 'blue'],
  ]);
});

dbTest('composite keys, and key columns matched without regard to case', async (db) => {
  json(db, 'a.json', [
    { Region: 'eu', Code: 1, v: 'x' },
    { Region: 'us', Code: 1, v: 'y' },
  ]);
  json(db, 'b.json', [
    { Region: 'eu', Code: 1, v: 'X' },
    { Region: 'eu', Code: 2, v: 'z' },
  ]);
  await db.run("SELECT * FROM DRIVE 'a.json'; MERGE INTO [db] TABLE 'regional' WITH KEY COLUMNS 'region, code';");
  assert.deepEqual(
    await db.run(
      "SELECT * FROM DRIVE 'b.json'; MERGE INTO [db] TABLE 'regional' WITH KEY COLUMNS 'REGION,CODE' INSERTS UPDATES;",
    ),
    ["MERGE INTO 'regional': 1 inserted, 1 updated, 0 deleted"],
  );
  assert.deepEqual(await db.rows('select "Region", "Code", v from regional order by "Region", "Code"'), [
    ['eu', 1, 'X'],
    ['eu', 2, 'z'],
    ['us', 1, 'y'],
  ]);
});

dbTest('a repeated or null key in the dataset is an error, and the table is left as it was', async (db) => {
  json(db, 'first.json', FIRST);
  await db.run("SELECT * FROM DRIVE 'first.json'; MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id';");
  json(db, 'dup.json', [
    { id: 7, name: 'x', qty: 0 },
    { id: 7, name: 'y', qty: 0 },
  ]);
  const dup = await db.error("SELECT * FROM DRIVE 'dup.json'; MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id';");
  assert.match(dup.message, /rows 1 and 2 have the same key \(7\)/);
  json(db, 'null.json', [
    { id: 8, name: 'x', qty: 0 },
    { id: null, name: 'y', qty: 0 },
  ]);
  const empty = await db.error("SELECT * FROM DRIVE 'null.json'; MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id';");
  assert.match(empty.message, /key column 'id' is null in row 2/);
  const cell = "MERGE INTO [db] TABLE 'stock' WITH KEY COLUMNS 'id, sku';";
  const unknown = await db.error(cell);
  assert.match(unknown.message, /unknown column 'sku'/);
  assert.equal(unknown.position?.column, cell.indexOf('sku') + 1);
  assert.deepEqual(await rowsOf(db), [
    [1, 'a', 1],
    [2, 'b', 2],
    [3, 'c', 3],
  ]);
});

dbTest(
  "the staging table takes the target's types: text keys merge into an integer key column",
  async (db) => {
    await db.run('EXEC ON DB [db] (create table typed (id bigint primary key, amount numeric(8,2), note text));');
    json(db, 'text.json', [{ id: '10', amount: '1.50', note: 'ten' }]);
    await db.run("SELECT * FROM DRIVE 'text.json'; MERGE INTO [db] TABLE 'typed' WITH KEY COLUMNS 'id';");
    json(db, 'text2.json', [{ id: '10', amount: '2.25', note: 'ten' }]);
    assert.deepEqual(
      await db.run("SELECT * FROM DRIVE 'text2.json'; MERGE INTO [db] TABLE 'typed' WITH KEY COLUMNS 'id';"),
      ["MERGE INTO 'typed': 0 inserted, 1 updated, 0 deleted"],
    );
    assert.deepEqual(await db.rows('select id, note from typed'), [['10n', 'ten']]);
  },
  ['postgres'],
);
