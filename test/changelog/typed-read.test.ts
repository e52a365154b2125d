import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Decimal from 'decimal.js';
import { readChangeLog } from '../../runtime/changelog/read';
import { writeChangeLog } from '../../runtime/changelog/write';
import { Dataset } from '../../runtime/dataset/dataset';
import {
  decimalText,
  OF_PARTS,
  parseDecimal,
  scaleOf,
  unscaledOfParts,
  withScale,
} from '../../runtime/dataset/decimal-scale';
import { PackedTextVector } from '../../runtime/dataset/text-vector';
import type { Column, Value } from '../../runtime/dataset/types';
import { DecimalVector, ValuesVector } from '../../runtime/dataset/vector';
import { Session } from '../../runtime/session';
import { meta, tempDir } from './helpers';

/*
 * readChangeLog decodes decimal columns into DecimalVector storage and text columns into packed
 * blocks (column-targets.ts): each cell must read back as the value that was written, exactly as
 * when they were decoded into arrays of values.
 */

const ROWS = 3000;
const d = parseDecimal;

const COLUMNS: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'note', type: { base: 'string', size: 80 } },
  { name: 'amount', type: { base: 'decimal' } },
  { name: 'price', type: { base: 'decimal', precision: 12, scale: 2 } },
];

/** Values that fit unscaled doubles: mixed and carried scales, zeros with a scale, 16 digits, tiny and large ones. */
const FITTING = [
  '1',
  '1.0',
  '12.50',
  '-0.001',
  '0',
  '0.000',
  '123456789012345',
  '9007199254740991',
  '-99999.9999',
  '0.0000000000000000000000000001',
  '9999999.9999999',
  '10000000.5',
  '0.0000001',
  '0.00000001',
  '-1234567.89',
  '100000000000000',
];
/** Text: empty, unicode beyond the BMP, a lone surrogate, combining marks, long cells, cells of one width. */
const TEXTS = ['', 'Oslo', 'é\u{1F600}\ud800', 'Ålesund ÷ ∑ 日本', 'a\u0301', 'x'.repeat(300), 'abcd', '\udc00z'];

function plainRows(decimals: (r: number) => Value): Dataset {
  const data: Value[][] = COLUMNS.map(() => new Array<Value>(ROWS));
  for (let r = 0; r < ROWS; r++) {
    data[0][r] = r;
    data[1][r] = r % 9 === 4 ? null : `${TEXTS[r % TEXTS.length]} ${r}`;
    // Long runs of one width (the packed block's fixed-width form), then cells of every width.
    data[2][r] = r % 13 === 5 ? null : r < 1100 ? 'abcd' : TEXTS[(r * 7) % TEXTS.length];
    data[3][r] = decimals(r);
    data[4][r] = r % 11 === 7 ? null : d(['12.50', '-3.25', '0.00', '1000000.01'][r % 4], 2);
  }
  return new Dataset(COLUMNS, data, ROWS);
}

const fitting = (r: number): Value => (r % 16 === 15 ? null : d(FITTING[r % FITTING.length]));

/** A cell as text that tells apart every value: a decimal's digits, scale, sign of zero and class; a string's code units. */
function exact(v: Value): string {
  if (Decimal.isDecimal(v))
    return `decimal ${decimalText(v)} scale ${scaleOf(v)} neg ${v.isNeg()} ${(Object.getPrototypeOf(v) as object).constructor.name}`;
  if (typeof v === 'string') return `string ${JSON.stringify(v)} ${Array.from(v, (c) => c.charCodeAt(0)).join('.')}`;
  return `${typeof v} ${String(v)}`;
}

function assertSameCells(got: Dataset, want: Dataset, what: string): void {
  assert.equal(got.rowCount, want.rowCount, what);
  for (let c = 0; c < want.columns.length; c++)
    assert.deepEqual(got.column(c).map(exact), want.column(c).map(exact), `${what}: ${want.columns[c].name}`);
}

async function roundTrip(ds: Dataset, frameRows: number, deletes = Dataset.empty()): Promise<Dataset[]> {
  const path = join(tempDir('changelog-typed-read'), `log-${frameRows}.eds`);
  await writeChangeLog(path, ds, deletes, meta(ds), { frameRows });
  const log = await readChangeLog(path);
  return [log.upserts, log.deletes];
}

test('a read change log holds decimals as DecimalVector and text packed in blocks, every cell as written, whatever the frame size', async () => {
  const upserts = plainRows(fitting);
  const deletes = new Dataset(
    COLUMNS,
    COLUMNS.map((_, c) => upserts.column(c).slice(0, 1500).reverse()),
    1500,
  );
  // Frames of a few rows, of less than a block, of exactly a block, of blocks and a half.
  for (const frameRows of [3, 1000, 1024, 2560]) {
    const [gotUpserts, gotDeletes] = await roundTrip(upserts, frameRows, deletes);
    for (const got of [gotUpserts, gotDeletes]) {
      assert.ok(got.vector(1) instanceof PackedTextVector, `name, frames of ${frameRows}`);
      assert.ok(got.vector(2) instanceof PackedTextVector, `note, frames of ${frameRows}`);
      assert.ok(got.vector(3) instanceof DecimalVector, `amount, frames of ${frameRows}`);
      assert.ok(got.vector(4) instanceof DecimalVector, `price, frames of ${frameRows}`);
    }
    assertSameCells(gotUpserts, upserts, `upserts, frames of ${frameRows}`);
    assertSameCells(gotDeletes, deletes, `deletes, frames of ${frameRows}`);
  }
});

test('a decimal the storage cannot hold, in a late frame, turns the column into Decimals: every cell, before and after, as written', async () => {
  const cases: [string, Value][] = [
    ['17 digits', d('12345678901234567')],
    ['2^53 unscaled', d('90071992547409.92')],
    ['a negative zero', new Decimal('-0')],
    ['a negative zero with a scale', withScale(new Decimal('-0'), 2)],
    ['a scale above 28', d('0.000000000000000000000000000005')],
    ['1e20', new Decimal('1e20')],
    ['NaN', new Decimal(NaN)],
    ['-Infinity', new Decimal(-Infinity)],
  ];
  for (const [what, odd] of cases) {
    const ds = plainRows((r) => (r === 2500 ? odd : fitting(r)));
    const [got] = await roundTrip(ds, 1000);
    assert.ok(got.vector(3) instanceof ValuesVector, what);
    assert.ok(got.vector(4) instanceof DecimalVector, `${what}: the other decimal column keeps its storage`);
    assertSameCells(got, ds, what);
  }
});

test('a loaded change log reads as the same rows held as values: functions, CSV, JSON and Parquet output, and the log CAPTURE writes of it', async () => {
  // Parquet's DECIMAL takes at most 38 digits: the scale of 28 is left out beside 16 integer digits.
  const short = FITTING.filter((t) => t.length < 20);
  const plain = plainRows((r) => (r % 16 === 15 ? null : d(short[r % short.length])));
  const dir = tempDir('changelog-typed-read');
  const session = () => new Session({ workspace: join(dir, 'ws'), cwd: dir });
  const writer = session();
  writer.setDataset(plain);
  await writer.run("CAPTURE 'rows.eds' WITH PATH 'logs';");
  const script = (out: string) =>
    [
      "ADD COLUMN 'decimal doubled=@sql(amount * 2)';",
      "ADD COLUMN 'decimal total=@sql(price + amount)';",
      "ADD COLUMN 'upper=@toupper({{name}})';",
      "ADD COLUMN 'long size=@sql(LEN(note))';",
      `SINK INTO DRIVE FORMAT CSV FILE '${out}.csv';`,
      `SINK INTO DRIVE FORMAT JSON FILE '${out}.json';`,
      `SINK INTO DRIVE FORMAT PARQUET FILE '${out}.parquet';`,
      `CAPTURE '${out}.eds' WITH PATH 'out';`,
    ].join('\n');

  const loaded = session();
  await loaded.run(`LOAD UPSERTS FROM 'rows.eds' PATH 'logs';\n${script('loaded')}`);
  assert.ok(loaded.dataset.vector(3) instanceof DecimalVector, 'the loaded amounts are typed');
  const values = session();
  values.setDataset(plain);
  await values.run(script('values'));

  assertSameCells(loaded.dataset, values.dataset, 'the pipeline dataset');
  for (const ext of ['csv', 'json', 'parquet'])
    assert.deepEqual(readFileSync(join(dir, `loaded.${ext}`)), readFileSync(join(dir, `values.${ext}`)), ext);
  const captured = async (name: string) => (await readChangeLog(join(dir, 'out', name))).upserts;
  assertSameCells(await captured('loaded.eds'), await captured('values.eds'), 'the captured logs');
  await Promise.all([writer, loaded, values].map((s) => s.close()));
});

test('decimal parts ending in a zero word (not what decimal.js writes) are refused by the typed path, not looped over', () => {
  // 1.0000000 as words [1, 0]: decimal.js would hold [1]; the typed path leaves it to Decimals.
  assert.equal(unscaledOfParts(false, 0, [1, 0], 0, 2, -1, 28), false);
  assert.equal(unscaledOfParts(false, 0, [1], 0, 1, -1, 28), true);
  assert.deepEqual({ ...OF_PARTS }, { unscaled: 1, scale: 0 });
});
