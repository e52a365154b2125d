import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatValue } from '../../runtime/dataset/format-value';
import { dbTest, plain, schemaOf, type DbCase } from './helpers';

/** Every spec 2.6 type, with the values that break naive mappings: scales, 64-bit extremes, Unicode, null beside ''. */
const ROWS = [
  {
    id: '1',
    price: '12.50',
    wide: '12345678901234567890.1234567890',
    big: '9007199254740993',
    low: '-9223372036854775808',
    at: '2024-01-02T03:04:05.123',
    ok: 'true',
    name: 'Zoë 🚀 日本語',
    bytes: '00ff10',
    empty: '',
    nothing: null,
    g: '0F8FAD5B-D9CB-469F-A165-70867728950E',
    d: '0.1',
    f: '1.5',
    small: '-32768',
    tiny: '255',
    code: 'AB',
  },
  {
    id: '2',
    price: '0.10',
    wide: '-0.0000000001',
    big: '-9007199254740993',
    low: '9223372036854775807',
    at: '1999-12-31T23:59:59',
    ok: 'false',
    name: "x'); DROP TABLE typed; --\ttab\\slash\nline",
    bytes: null,
    empty: null,
    nothing: '',
    g: null,
    d: '-1e-300',
    f: '-0.25',
    small: '32767',
    tiny: '0',
    code: 'Z',
  },
];

const SCHEMA = `APPLY SCHEMA (
  int id
  decimal(10,2) price
  decimal(38,10) wide
  long big
  long low
  datetime at
  bool ok
  string name
  byte[] bytes
  string empty
  string nothing
  guid g
  double d
  float f
  short small
  tinyint tiny
  string[4] code
) STRICT_COLUMNS`;

async function sinkTyped(db: DbCase): Promise<unknown[][]> {
  writeFileSync(join(db.dir, 'typed.json'), JSON.stringify(ROWS));
  const messages = await db.run(`SELECT * FROM DRIVE 'typed.json';\n${SCHEMA};\nSINK INTO DB [db] TABLE 'typed';`);
  assert.deepEqual(messages, ["SINK INTO DB: 2 rows written to 'typed'"]);
  return db.session.dataset.rows().map((r) => r.map(plain));
}

dbTest('a dataset written by SINK reads back with its types and exact values', async (db) => {
  const written = await sinkTyped(db);
  const back = await db.data('SELECT * FROM DB [db] (select * from typed order by id);');
  const expected = [
    'id:int',
    'price:decimal(10,2)',
    'wide:decimal(38,10)',
    'big:long',
    'low:long',
    'at:datetime',
    'ok:bool',
    'name:string',
    'bytes:bytes',
    'empty:string',
    'nothing:string',
    'g:guid',
    'd:double',
    'f:float',
    'small:short',
    // PostgreSQL has no one-byte integer: smallint holds tinyint's 0..255.
    db.engine === 'sqlite' ? 'tiny:tinyint' : 'tiny:short',
    'code:string[4]',
  ];
  assert.deepEqual(schemaOf(back), expected);
  assert.deepEqual(
    back.rows().map((r) => r.map(plain)),
    written,
  );
  // The decimal's scale survives: 0.10 stays 0.10, not 0.1.
  assert.equal(formatValue(back.cell(1, 1), back.columns[1].type), '0.10');
  assert.equal(plain(back.cell(0, 2)), '12345678901234567890.1234567890m');
  assert.equal(back.cell(0, 9), '', "'' stays ''");
  assert.equal(back.cell(1, 9), null, 'null stays null');
});

dbTest("tables created from a dataset declare each engine's types", async (db) => {
  await sinkTyped(db);
  const declared =
    db.engine === 'sqlite'
      ? await db.rows("select name, type from pragma_table_info('typed')")
      : await db.rows(`select a.attname, format_type(a.atttypid, a.atttypmod) from pg_attribute a
                        where a.attrelid = 'typed'::regclass and a.attnum > 0 order by a.attnum`);
  const types = Object.fromEntries(declared.map(([name, type]) => [name as string, type]));
  if (db.engine === 'sqlite') {
    assert.deepEqual(types, {
      id: 'INT',
      price: 'DECIMAL_TEXT(10,2)',
      wide: 'DECIMAL_TEXT(38,10)',
      big: 'BIGINT',
      low: 'BIGINT',
      at: 'DATETIME',
      ok: 'BOOLEAN',
      name: 'TEXT',
      bytes: 'BLOB',
      empty: 'TEXT',
      nothing: 'TEXT',
      g: 'GUID',
      d: 'DOUBLE',
      f: 'FLOAT',
      small: 'SMALLINT',
      tiny: 'TINYINT',
      code: 'VARCHAR(4)',
    });
  } else {
    assert.deepEqual(types, {
      id: 'integer',
      price: 'numeric(10,2)',
      wide: 'numeric(38,10)',
      big: 'bigint',
      low: 'bigint',
      at: 'timestamp without time zone',
      ok: 'boolean',
      name: 'text',
      bytes: 'bytea',
      empty: 'text',
      nothing: 'text',
      g: 'uuid',
      d: 'double precision',
      f: 'real',
      small: 'smallint',
      tiny: 'smallint',
      code: 'character varying(4)',
    });
  }
});

dbTest(
  "SQLite keeps a decimal's digits as text, never as a REAL",
  async (db) => {
    await sinkTyped(db);
    assert.deepEqual(
      await db.rows(
        "select typeof(price), price || '', typeof(wide), wide || '', typeof(big), big from typed order by id",
      ),
      [
        ['text', '12.50', 'text', '12345678901234567890.1234567890', 'integer', '9007199254740993n'],
        ['text', '0.10', 'text', '-0.0000000001', 'integer', '-9007199254740993n'],
      ],
    );
  },
  ['sqlite'],
);

dbTest(
  'PostgreSQL result types: int, bigint, numeric, timestamp(tz), date, bytea, json, varchar, bool',
  async (db) => {
    const ds = await db.data(`SELECT * FROM DB [db] (
    select 7::int as i, 9007199254740993::bigint as b, 1.50::numeric(5,2) as n, 2.5::numeric as free,
           '2024-01-02 03:04:05.678'::timestamp as ts, '2024-01-02 03:04:05+02'::timestamptz as tz, '2024-02-29'::date as dt,
           '\\x01ff'::bytea as by, '{"a": [1, 2]}'::json as j, 'abc'::varchar(5) as v, true as t, 1.25::real as r,
           '0f8fad5b-d9cb-469f-a165-70867728950e'::uuid as u, interval '1 day' as span
  );`);
    assert.deepEqual(schemaOf(ds), [
      'i:int',
      'b:long',
      'n:decimal(5,2)',
      'free:decimal',
      'ts:datetime',
      'tz:datetime',
      'dt:datetime',
      'by:bytes',
      'j:string',
      'v:string[5]',
      't:bool',
      'r:float',
      'u:guid',
      'span:string',
    ]);
    assert.deepEqual(
      ds.rows().map((r) => r.map(plain)),
      [
        [
          7,
          '9007199254740993n',
          '1.50m',
          '2.5m',
          '2024-01-02T03:04:05.678Z',
          '2024-01-02T01:04:05.000Z',
          '2024-02-29T00:00:00.000Z',
          '0x01ff',
          '{"a": [1, 2]}',
          'abc',
          true,
          1.25,
          '0f8fad5b-d9cb-469f-a165-70867728950e',
          '1 day',
        ],
      ],
    );
  },
  ['postgres'],
);

dbTest(
  'SQLite result types come from the declared types, else from the values',
  async (db) => {
    await db.run(`EXEC ON DB [db] (
    create table kinds (i INT, b BIGINT, n NUMERIC(5,2), ts TIMESTAMP, dt DATE, by BLOB, j JSON, v VARCHAR(5), t BOOLEAN, r INTEGER);
    insert into kinds values (7, 9007199254740993, 1.5, '2024-01-02 03:04:05.678', '2024-02-29', x'01ff', '{"a": 1}', 'abc', 1, 3)
  );`);
    const ds = await db.data(
      "SELECT * FROM DB [db] (select k.*, 1 + 1 as two, 2.5 * 2 as five, x'0a' as blob, null as nada, 9007199254740993 + 0 as wide from kinds k);",
    );
    assert.deepEqual(schemaOf(ds), [
      'i:int',
      'b:long',
      'n:decimal(5,2)',
      'ts:datetime',
      'dt:datetime',
      'by:bytes',
      'j:string',
      'v:string[5]',
      't:bool',
      'r:long',
      'two:int',
      'five:double',
      'blob:bytes',
      'nada:string',
      'wide:long',
    ]);
    assert.deepEqual(
      ds.rows().map((r) => r.map(plain)),
      [
        [
          7,
          '9007199254740993n',
          '1.50m',
          '2024-01-02T03:04:05.678Z',
          '2024-02-29T00:00:00.000Z',
          '0x01ff',
          '{"a": 1}',
          'abc',
          true,
          '3n',
          2,
          5,
          '0x0a',
          null,
          '9007199254740993n',
        ],
      ],
    );
  },
  ['sqlite'],
);

dbTest(
  'SQLite values their declared type cannot hold are read as they are, not lost',
  async (db) => {
    await db.run(`EXEC ON DB [db] (
    create table loose (i INT, d DATETIME, n DECIMAL_TEXT(5,2));
    insert into loose values (1099511627776, 'not a date', 'n/a'), (2, '2024-01-01', '1.5')
  );`);
    const ds = await db.data('SELECT * FROM DB [db] (select * from loose order by rowid);');
    // An INT holding 2^40 is read as long; text where a date or decimal was declared keeps the column as text.
    assert.deepEqual(schemaOf(ds), ['i:long', 'd:string', 'n:string']);
    assert.deepEqual(
      ds.rows().map((r) => r.map(plain)),
      [
        ['1099511627776n', 'not a date', 'n/a'],
        ['2n', '2024-01-01', '1.5'],
      ],
    );
  },
  ['sqlite'],
);

dbTest(
  'a read with an inline pipeline types and reads values as a read in one page',
  async (db) => {
    await db.run(`EXEC ON DB [db] (
    create table mixed (i INT, b BIGINT, n DECIMAL_TEXT(5,2), t BOOLEAN, d DATETIME, f DOUBLE);
    insert into mixed values (1, 9007199254740993, '1.50', 1, '2024-01-01 10:00:00', 2.5), (2147483648, -2, '-0.25', 0, 7, 3)
  );`);
    const whole = await db.data('SELECT * FROM DB [db] (select * from mixed order by rowid);');
    const paged = await db.data(
      "SELECT * FROM DB [db] (select * from mixed order by rowid) APPLY PIPELINE (PRINT 'page');",
    );
    // 2^31 does not fit INT and 7 is no date: those columns are typed by their values, the same both ways.
    assert.deepEqual(schemaOf(whole), ['i:long', 'b:long', 'n:decimal(5,2)', 't:bool', 'd:string', 'f:double']);
    assert.deepEqual(schemaOf(paged), schemaOf(whole));
    assert.deepEqual(
      paged.rows().map((r) => r.map(plain)),
      whole.rows().map((r) => r.map(plain)),
    );
    assert.deepEqual(
      whole.rows().map((r) => r.map(plain)),
      [
        ['1n', '9007199254740993n', '1.50m', true, '2024-01-01 10:00:00', 2.5],
        ['2147483648n', '-2n', '-0.25m', false, '7', 3],
      ],
    );
  },
  ['sqlite'],
);

dbTest(
  'PostgreSQL values no dataset type holds (numeric NaN and infinities, infinite dates) fail the read, naming the value',
  async (db) => {
    for (const [sql, value] of [
      ["select 'NaN'::numeric as n", "numeric 'NaN', which a decimal cannot hold"],
      ["select '-Infinity'::numeric as n", "numeric '-Infinity', which a decimal cannot hold"],
      ["select 'infinity'::timestamp as t", "date 'infinity', which a datetime cannot hold"],
    ]) {
      const e = await db.error(`SELECT * FROM DB [db] (${sql});`);
      assert.equal(e.statement, 'SELECT FROM DB');
      assert.ok(e.message.includes(`PostgreSQL returned the ${value}`), e.message);
    }
    // A double holds them.
    const ds = await db.data("SELECT * FROM DB [db] (select 'NaN'::numeric::float8 as n);");
    assert.ok(Number.isNaN(ds.rows()[0][0]));
  },
  ['postgres'],
);

dbTest(
  'a read in one page types a column by all its rows, though it types them a slice at a time between turns',
  async (db) => {
    const n = 150_000;
    await db.run(`EXEC ON DB [db] (
    create table neat (i INT, d DATETIME, n DECIMAL_TEXT(5,2));
    insert into neat with recursive s(k) as (select 1 union all select k + 1 from s where k < ${n})
      select k, '2024-01-01 10:00:00', '1.50' from s;
    create table loose as select * from neat;
    insert into loose values (1099511627776, 'not a date', 'n/a')
  );`);
    const neat = await db.data('SELECT * FROM DB [db] (select * from neat order by rowid);');
    assert.deepEqual(schemaOf(neat), ['i:int', 'd:datetime', 'n:decimal(5,2)']);
    assert.deepEqual(neat.row(n - 1).map(plain), [n, '2024-01-01T10:00:00.000Z', '1.50m']);
    // The values that do not fit come after the first slices: the columns are typed by their values all the same.
    const loose = await db.data('SELECT * FROM DB [db] (select * from loose order by rowid);');
    assert.deepEqual(schemaOf(loose), ['i:long', 'd:string', 'n:string']);
    assert.deepEqual(loose.row(70_000).map(plain), ['70001n', '2024-01-01 10:00:00', '1.50']);
    assert.deepEqual(loose.row(n).map(plain), ['1099511627776n', 'not a date', 'n/a']);
  },
  ['sqlite'],
);
