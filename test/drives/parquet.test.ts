import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { Dataset, type Result } from '../../runtime/index';
import type { Column, Value } from '../../runtime/dataset/types';
import { vectorOf } from '../../runtime/dataset/vector';
import { both } from '../helpers/typed-data';
import { messages, plain, session, typedRows, TYPED_COLUMNS } from './helpers';

const LIMITS = { timeout: 120_000 };

test('SINK PARQUET then SELECT it back: every type equal, longs past 2^53 and 30-digit decimals exact, nulls kept', async () => {
  const { session: s, dir } = session();
  s.setDataset(typedRows());
  const out = await s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'out/typed.parquet';");
  assert.match(messages(out)[0], /^SINK INTO DRIVE: 3 rows in 1 file on .*: out\/typed\.parquet$/);
  assert.equal(readFileSync(join(dir, 'out/typed.parquet')).subarray(0, 4).toString(), 'PAR1');
  await s.run("SELECT * FROM DRIVE 'out/typed.parquet';");
  const back = s.dataset;
  assert.deepEqual(
    back.columns.map((c) => [c.name, c.type.base]),
    TYPED_COLUMNS.map((c) => [c.name, c.type.base]),
  );
  assert.deepEqual(
    back.columns[2].type,
    { base: 'decimal', precision: 30, scale: 3 },
    'the smallest DECIMAL holding every value',
  );
  assert.deepEqual(plain(back), plain(typedRows()));
  assert.equal((back.cell(1, 2) as Decimal).toFixed(), '-0.5');
});

test('FORMAT PARQUET on a name without the extension; decimal(p,s) declared keeps its precision and scale and trailing zeros', async () => {
  const { session: s, dir } = session();
  s.setDataset(
    Dataset.fromRows(
      [
        { name: 'price', type: { base: 'decimal', precision: 10, scale: 2 } },
        { name: 'n', type: { base: 'short' } },
        { name: 't', type: { base: 'tinyint' } },
        { name: 'f', type: { base: 'float' } },
        { name: 'g', type: { base: 'guid' } },
      ],
      [
        [new Decimal('12.5'), -3, 200, 0.5, '0f8fad5b-d9cb-469f-a165-70867728950e'],
        [new Decimal('99999999.99'), null, 0, null, null],
      ],
    ),
  );
  await s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'prices.bin' COMPRESSION 'gzip' ROWS_PER_GROUP 1;");
  await s.run("SELECT * FROM DRIVE 'prices.bin' FORMAT PARQUET;");
  assert.deepEqual(
    s.dataset.columns.map((c) => c.type),
    [
      { base: 'decimal', precision: 10, scale: 2 },
      { base: 'short' },
      { base: 'tinyint' },
      { base: 'float' },
      { base: 'guid' },
    ],
  );
  assert.deepEqual(plain(s.dataset), [
    ['D12.5', -3, 200, 0.5, '0f8fad5b-d9cb-469f-a165-70867728950e'],
    ['D99999999.99', null, 0, null, null],
  ]);
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'prices.csv';");
  assert.equal(
    readFileSync(join(dir, 'prices.csv'), 'utf8').split('\r\n')[0],
    '12.50,-3,200,0.5,0f8fad5b-d9cb-469f-a165-70867728950e',
    'decimal(10,2) writes two decimals',
  );
});

test('every COMPRESSION reads back; an unknown codec or a bad ROWS_PER_GROUP is refused where it is written', async () => {
  const { session: s } = session();
  s.setDataset(typedRows());
  for (const codec of ['snappy', 'gzip', 'brotli', 'none']) {
    await s.run(`SINK INTO DRIVE FORMAT PARQUET FILE 'c-${codec}.parquet' COMPRESSION '${codec}';`);
    await s.run(`SELECT * FROM DRIVE 'c-${codec}.parquet';`);
    assert.deepEqual(plain(s.dataset), plain(typedRows()), codec);
  }
  s.setDataset(typedRows());
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'x.parquet' COMPRESSION 'lzo';"),
    (e: Error & { position?: { column: number } }) => {
      assert.match(
        e.message,
        /COMPRESSION 'lzo' is not a Parquet codec here; use snappy \(default\), gzip, brotli or none/,
      );
      assert.equal(e.position?.column, 62, 'at the codec written');
      return true;
    },
  );
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'x.parquet' ROWS_PER_GROUP 0;"),
    /ROWS_PER_GROUP must be a whole number of at least 1, not 0/,
  );
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT CSV FILE 'x.csv' ROWS_PER_GROUP 10;"),
    /ROWS_PER_GROUP applies to PARQUET files; this file is CSV/,
  );
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'x.parquet' DATE_FORMAT 'yyyy';"),
    /DATE_FORMAT applies to CSV, JSON, NDJSON, XML, RAW files; this file is PARQUET/,
  );
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'x.parquet' COLUMN 'id';"),
    /COLUMN applies to JSON, XML, RAW files; this file is PARQUET/,
  );
});

test('many row groups: 250,001 rows with ROWS_PER_GROUP 100000 read back in order', async () => {
  const { session: s } = session();
  const n = 250_001;
  const ids = Array.from({ length: n }, (_, i) => i);
  const longs = ids.map((i) => BigInt(i) * 3_000_000_000n);
  s.setDataset(
    new Dataset(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'l', type: { base: 'long' } },
      ],
      [ids, longs],
    ),
  );
  await s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'big.parquet' ROWS_PER_GROUP 100000;");
  await s.run("SELECT * FROM DRIVE 'big.parquet';");
  assert.equal(s.dataset.rowCount, n);
  assert.equal(s.dataset.cell(n - 1, 0), n - 1);
  assert.equal(s.dataset.cell(123_456, 1), 123_456n * 3_000_000_000n);
});

test('a decimal with more decimals than its declared scale fails and leaves no file behind', async () => {
  const { session: s, dir } = session();
  s.setDataset(
    Dataset.fromRows([{ name: 'p', type: { base: 'decimal', precision: 5, scale: 1 } }], [[new Decimal('1.25')]]),
  );
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'p.parquet';"),
    /column 'p': 1.25 has more than 1 decimals \(decimal\(5,1\)\); no digit is dropped silently/,
  );
  assert.deepEqual(
    readdirSync(dir).filter((n) => n !== 'ws'),
    [],
  );
});

test('a file that is not Parquet is a clear error', async () => {
  const { session: s } = session({ 'bad.parquet': 'hello, not parquet' });
  await assert.rejects(s.run("SELECT * FROM DRIVE 'bad.parquet';"), /bad\.parquet is not a readable Parquet file/);
  await assert.rejects(s.run("SELECT * FROM DRIVE 'missing.parquet';"), /file not found: missing\.parquet/);
});

/**
 * Every column type and every storage a column can have (typed arrays, dictionaries, packed text,
 * plain arrays) beside the same cells as plain arrays: guid, bytes, char, short and tinyint added to
 * the typed-data rows (longs past 2^53, decimals of mixed scale, dates before 1970, NaN, nulls).
 */
function everyType(n: number): { typed: Dataset; plain: Dataset } {
  const rows = Array.from({ length: n }, (_, r) => r);
  const { typed, plain: values } = both(rows);
  const extra: Column[] = [
    { name: 'g', type: { base: 'guid' } },
    { name: 'by', type: { base: 'bytes' } },
    { name: 'c', type: { base: 'char' } },
    { name: 'sh', type: { base: 'short' } },
    { name: 'ti', type: { base: 'tinyint' } },
  ];
  const cell: ((r: number) => Value)[] = [
    (r) => (r % 7 === 1 ? null : `0f8fad5b-d9cb-469f-a165-${String(r).padStart(12, '0')}`),
    (r) => (r % 6 === 2 ? null : new Uint8Array([r & 255, 0, 255].slice(0, r % 4))),
    (r) => (r % 5 === 3 ? null : 'ABCDE'[r % 5]),
    (r) => (r % 9 === 0 ? null : [-32768, 32767, 0, -1][r % 4]),
    (r) => (r % 10 === 9 ? null : [0, 255, 7][r % 3]),
  ];
  const extraValues = cell.map((f) => rows.map(f));
  const columns = [...typed.columns, ...extra];
  return {
    typed: new Dataset(
      columns,
      [...typed.columns.map((_, c) => typed.vector(c)), ...extra.map((x, k) => vectorOf(x.type, extraValues[k]))],
      n,
    ),
    plain: new Dataset(columns, [...values.columns.map((_, c) => values.column(c)), ...extraValues], n),
  };
}

test(
  'every column type and storage round-trips through PARQUET, and typed or plain storage writes the same bytes',
  LIMITS,
  async () => {
    const { session: s, dir } = session();
    // 48 rows are written where the statement runs; 8,192 (131,072 cells) as large datasets are; 65,636
    // rows join text columns in two slices (thread-wire.ts textInSlices).
    for (const n of [48, 8192, 65_636]) {
      const { typed, plain: values } = everyType(n);
      s.setDataset(typed);
      await s.run(`SINK INTO DRIVE FORMAT PARQUET FILE 'typed-${n}.parquet' ROWS_PER_GROUP 3000;`);
      s.setDataset(values);
      await s.run(`SINK INTO DRIVE FORMAT PARQUET FILE 'plain-${n}.parquet' ROWS_PER_GROUP 3000;`);
      assert.ok(
        readFileSync(join(dir, `typed-${n}.parquet`)).equals(readFileSync(join(dir, `plain-${n}.parquet`))),
        `${n} rows: the same file from either storage`,
      );
      await s.run(`SELECT * FROM DRIVE 'typed-${n}.parquet';`);
      const back = s.dataset;
      assert.deepEqual(
        back.columns.map((c) => [c.name, c.type]),
        [
          ['id', { base: 'int' }],
          ['i', { base: 'int' }],
          ['l', { base: 'long' }],
          ['x', { base: 'double' }],
          ['f', { base: 'float' }],
          ['t', { base: 'datetime' }],
          ['dm', { base: 'decimal', precision: 38, scale: 23 }],
          ['ds', { base: 'decimal', precision: 18, scale: 2 }],
          ['b', { base: 'bool' }],
          ['s', { base: 'string' }],
          ['p', { base: 'string' }],
          ['g', { base: 'guid' }],
          ['by', { base: 'bytes' }],
          // Parquet has no fixed-length text: char is read back as string.
          ['c', { base: 'string' }],
          ['sh', { base: 'short' }],
          ['ti', { base: 'tinyint' }],
        ],
        `${n} rows`,
      );
      // UTF-8 has no lone surrogate: it is written as U+FFFD, as every UTF-8 writer does. hyparquet-writer's
      // dictionary holds 0 and -0 as one value (a Map key), the first written: zeros compare by value.
      const same = (v: unknown) => (typeof v === 'string' ? v.replace(/\ud800/g, '\ufffd') : v === 0 ? 0 : v);
      const zeros = (v: unknown) => (v === 0 ? 0 : v);
      assert.deepEqual(
        plain(back).map((row) => row.map(zeros)),
        plain(values).map((row) => row.map(same)),
        `${n} rows`,
      );
    }
  },
);

test(
  'a large PARQUET write leaves the event loop its turns: an interrupt while the rows are encoded ends it, no file left',
  LIMITS,
  async () => {
    const { session: s, dir } = session();
    const n = 300_000;
    const ids = Array.from({ length: n }, (_, i) => i);
    s.setDataset(
      Dataset.encoded(
        [
          { name: 'id', type: { base: 'int' } },
          { name: 'name', type: { base: 'string' } },
          { name: 'amount', type: { base: 'decimal' } },
        ],
        [ids, ids.map((i) => `customer ${i}`), ids.map((i) => new Decimal(i).div(100))],
      ),
    );
    const controller = new AbortController();
    let ticks = 0;
    let timer: NodeJS.Timeout | undefined;
    const results: Result[] = [];
    // One row group: encoded in one go, which on the statement's thread would give the timer no tick.
    const cell = "PRINT 'writing';\nSINK INTO DRIVE FORMAT PARQUET FILE 'big.parquet' ROWS_PER_GROUP 1000000;";
    for await (const r of s.execute(cell, { signal: controller.signal })) {
      results.push(r);
      if (r.kind === 'message' && r.text === 'writing')
        timer = setInterval(() => {
          if (++ticks === 10) controller.abort();
        }, 10);
    }
    clearInterval(timer);
    const error = results.find((r) => r.kind === 'error')?.error;
    assert.equal(error?.message, 'cancelled', 'the tenth tick came while the statement ran');
    assert.equal(error.statement, 'SINK INTO DRIVE');
    assert.deepEqual(
      readdirSync(dir).filter((name) => name !== 'ws'),
      [],
      'neither the file nor its staged copy',
    );
  },
);
