import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { Dataset } from '../../runtime/index';
import { messages, plain, session, typedRows, TYPED_COLUMNS } from './helpers';

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
