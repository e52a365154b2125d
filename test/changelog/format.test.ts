import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Decimal from 'decimal.js';
import { ChangeLogReader, readChangeLog } from '../../runtime/changelog/read';
import { writeChangeLog } from '../../runtime/changelog/write';
import { Dataset } from '../../runtime/dataset/dataset';
import { decimalText, parseDecimal, scaleOf } from '../../runtime/dataset/decimal-scale';
import type { Column, Value } from '../../runtime/dataset/types';
import { ScriptError } from '../../runtime/errors';
import { ALL_TYPES, allTypeRows, allTypes, meta, tempDir } from './helpers';

/** Exact equality of cells: -0 and NaN by Object.is, decimals by digits and scale, dates by time, bytes by content and kind. */
function sameCell(got: Value, want: Value, where: string): void {
  if (want instanceof Date) {
    assert.ok(got instanceof Date, `${where}: a Date`);
    assert.ok(Object.is(got.getTime(), want.getTime()), `${where}: ${got.getTime()} vs ${want.getTime()}`);
  } else if (want instanceof Uint8Array) {
    assert.ok(got instanceof Uint8Array, `${where}: bytes`);
    assert.deepEqual([...got], [...want], where);
  } else if (Decimal.isDecimal(want)) {
    assert.ok(Decimal.isDecimal(got), `${where}: a Decimal`);
    assert.equal(decimalText(got), decimalText(want), where);
    assert.equal(scaleOf(got), scaleOf(want), `${where}: scale`);
  } else {
    assert.ok(Object.is(got, want), `${where}: ${String(got)} vs ${String(want)}`);
  }
}

function sameDataset(got: Dataset, want: Dataset): void {
  assert.deepEqual(got.columns, want.columns);
  assert.equal(got.rowCount, want.rowCount);
  for (let r = 0; r < want.rowCount; r++) {
    for (let c = 0; c < want.columns.length; c++)
      sameCell(got.cell(r, c), want.cell(r, c), `row ${r + 1} ${want.columns[c].name}`);
  }
}

test('every column type round-trips exactly: decimal scale, longs beyond 2^53, dates, bytes, null apart from empty, Unicode and lone surrogates', async () => {
  const dir = tempDir('changelog');
  const upserts = allTypes();
  const deletes = Dataset.fromRows(ALL_TYPES, allTypeRows().reverse());
  const path = join(dir, 'all.eds');
  const written = await writeChangeLog(
    path,
    upserts,
    deletes,
    meta(upserts, { inserts: 3, updates: 2, keys: ['id', 'uid'], marker: 'code' }),
  );
  assert.equal(written.frames, 2);
  const log = await readChangeLog(path);
  sameDataset(log.upserts, upserts);
  sameDataset(log.deletes, deletes);
  assert.deepEqual(log.header.schema, ALL_TYPES);
  assert.deepEqual(log.header.counts, { inserts: 3, updates: 2, deletes: 5 });
  assert.deepEqual(log.header.keys, ['id', 'uid']);
  assert.equal(log.header.marker, 'code');
  assert.equal(log.header.executionId, '1700000000000');
  assert.equal(log.header.pipeline, 'orders-sync');
  // The checks above would pass on values that merely print alike: these would not.
  assert.equal(log.upserts.cell(0, 1), 9007199254740993n);
  assert.equal(decimalText(log.upserts.cell(0, 7) as Decimal), '12.5000');
  assert.equal(log.upserts.cell(3, 2), 'lone \ud800 surrogate');
  assert.equal(log.upserts.cell(1, 2), '');
  assert.equal(log.upserts.cell(4, 2), null);
});

test("numbers that do not fit their column type's narrow encoding keep their exact value", async () => {
  const columns: Column[] = [
    { name: 'i', type: { base: 'int' } },
    { name: 'f', type: { base: 'float' } },
  ];
  // Not what APPLY SCHEMA produces, but a change log must never round what it is given.
  const ds = Dataset.fromRows(columns, [
    [2 ** 40 + 0.5, 0.1],
    [-0, 1e300],
  ]);
  const path = join(tempDir('changelog'), 'wide.eds');
  await writeChangeLog(path, ds, Dataset.empty(), meta(ds));
  sameDataset((await readChangeLog(path)).upserts, ds);
});

test('empty streams: no rows at all, upserts only, deletes only', async () => {
  const dir = tempDir('changelog');
  const none = new Dataset(
    ALL_TYPES,
    ALL_TYPES.map(() => []),
    0,
  );
  const some = allTypes();
  for (const [label, upserts, deletes] of [
    ['none', none, none],
    ['upserts', some, Dataset.empty()],
    ['deletes', none, some],
  ] as const) {
    const path = join(dir, `${label}.eds`);
    await writeChangeLog(path, upserts, deletes, meta(upserts));
    const log = await readChangeLog(path);
    assert.equal(log.upserts.rowCount, upserts.rowCount, label);
    assert.equal(log.deletes.rowCount, deletes.rowCount, label);
    assert.deepEqual(log.upserts.columns, ALL_TYPES, label);
    if (label === 'deletes') sameDataset(log.deletes, some);
  }
});

test('a million rows stream back a frame at a time: no page is larger than a frame', async () => {
  const rows = 1_000_000;
  const frameRows = 65_536;
  const columns: Column[] = [
    { name: 'id', type: { base: 'int' } },
    { name: 'big', type: { base: 'long' } },
    { name: 'name', type: { base: 'string' } },
    { name: 'price', type: { base: 'decimal', precision: 10, scale: 2 } },
  ];
  const id = new Array<Value>(rows);
  const big = new Array<Value>(rows);
  const name = new Array<Value>(rows);
  const price = new Array<Value>(rows);
  for (let i = 0; i < rows; i++) {
    id[i] = i;
    big[i] = 9_007_199_254_740_993n + BigInt(i);
    name[i] = `customer ${i % 5000}`;
    price[i] = parseDecimal(`${i % 100000}.${String(i % 100).padStart(2, '0')}`);
  }
  const upserts = new Dataset(columns, [id, big, name, price], rows);
  const path = join(tempDir('changelog'), 'million.eds');
  const written = await writeChangeLog(path, upserts, Dataset.empty(), meta(upserts), { frameRows });
  assert.equal(written.frames, Math.ceil(rows / frameRows));

  const reader = ChangeLogReader.open(path);
  let pages = 0;
  let seen = 0;
  for await (const page of reader.pages()) {
    assert.equal(page.stream, 'upserts');
    assert.ok(page.data.rowCount <= frameRows, `page ${pages + 1} has ${page.data.rowCount} rows`);
    // Spot checks in every page: the rows arrive in order and intact.
    const last = page.data.rowCount - 1;
    assert.equal(page.data.cell(0, 0), seen);
    assert.equal(page.data.cell(last, 1), 9_007_199_254_740_993n + BigInt(seen + last));
    assert.equal(decimalText(page.data.cell(last, 3) as Decimal), decimalText(price[seen + last] as Decimal));
    seen += page.data.rowCount;
    pages++;
  }
  assert.equal(pages, Math.ceil(rows / frameRows));
  assert.equal(seen, rows);
});

test('the writer refuses what it would misrecord, naming the column and row', async () => {
  const dir = tempDir('changelog');
  const columns: Column[] = [{ name: 'n', type: { base: 'int' } }];
  const bad = Dataset.fromRows(columns, [[1], ['2']]);
  await assert.rejects(writeChangeLog(join(dir, 'bad.eds'), bad, Dataset.empty(), meta(bad)), (e: unknown) => {
    assert.ok(e instanceof ScriptError);
    assert.match(e.message, /cannot write change log bad\.eds: column 'n' \(int\) row 2 holds a string \(2\)/);
    return true;
  });
  const good = Dataset.fromRows(columns, [[1]]);
  await assert.rejects(
    writeChangeLog(join(dir, 'c.eds'), good, Dataset.empty(), meta(good, { inserts: 2 })),
    /2 inserts and 0 updates do not add up to the 1 upsert rows/,
  );
  const other = Dataset.fromRows([{ name: 'n', type: { base: 'long' } }], [[1n]]);
  await assert.rejects(
    writeChangeLog(join(dir, 'd.eds'), good, other, meta(good)),
    /the delete stream must have the columns and types of the upsert stream/,
  );
  await assert.rejects(
    writeChangeLog(join(dir, 'e.eds'), good, Dataset.empty(), meta(good, { keys: ['nope'] })),
    /key column 'nope' is not a column/,
  );
  // Nothing was left behind by the refused writes: no log, no temp file.
  const { readdirSync } = await import('node:fs');
  assert.deepEqual(readdirSync(dir), []);
});

test('the header is plain JSON after the magic bytes, readable by anyone who reads the layout', async () => {
  const ds = allTypes();
  const path = join(tempDir('changelog'), 'h.eds');
  await writeChangeLog(path, ds, Dataset.empty(), meta(ds));
  const bytes = readFileSync(path);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x45, 0x44, 0x53, 0x0d, 0x0a, 0x1a, 0x0a]);
  const length = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.subarray(12, 12 + length).toString('utf8')) as {
    format: unknown;
    version: unknown;
    name: unknown;
    schema: unknown[];
  };
  assert.equal(header.format, 'sqlcdc-changelog');
  assert.equal(header.version, 1);
  assert.equal(header.name, 'orders');
  assert.deepEqual(header.schema[7], { name: 'amount', type: { base: 'decimal', precision: 18, scale: 4 } });
});
