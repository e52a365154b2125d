import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashRows } from '../../runtime/cdc/hash';
import { KeyEncoder } from '../../runtime/cdc/keys';
import { Dataset } from '../../runtime/dataset/dataset';
import { parseDecimal } from '../../runtime/dataset/decimal-scale';
import { PackedTextVector, TextColumnBuilder } from '../../runtime/dataset/text-vector';
import type { Value } from '../../runtime/dataset/types';
import {
  BigIntVector,
  BoolVector,
  DateVector,
  DecimalVector,
  DictionaryVector,
  NumberVector,
  ValuesVector,
  vectorOf,
  type Vector,
} from '../../runtime/dataset/vector';
import { capture, columns, options, tempStateFile } from './helpers';

/*
 * CAPTURE reads typed columns from their storage (no value per cell); these pin that what it reads
 * is what the same cells give as plain values, which is what state files written before hold.
 */

const N = 48;
const d = parseDecimal;

/** Cell r of each column: every type, nulls, decimals of mixed scale, longs past 2^53, dates before 1970. */
const cells: Record<string, (r: number) => Value> = {
  id: (r) => r,
  i: (r) => (r % 7 === 3 ? null : [0, -1, 2147483647, -2147483648, 42][r % 5]),
  l: (r) =>
    r % 9 === 4 ? null : [2n ** 53n + BigInt(r), -(2n ** 63n), 2n ** 63n - 1n, -1n, 0n, BigInt(-r) * 2n ** 40n][r % 6],
  x: (r) => (r % 8 === 5 ? null : [-0, 0, NaN, 0.1, -1e300, Infinity, r / 3][r % 7]),
  f: (r) => (r % 8 === 6 ? null : Math.fround([1.5, -0.1, 3e38, 0][r % 4] * (r + 1))),
  t: (r) => (r % 6 === 2 ? null : new Date(Date.UTC(1969 + (r % 60), r % 12, 1 + (r % 28), r % 24, 0, 0, r * 7))),
  dm: (r) =>
    r % 16 === 15
      ? null
      : d(
          [
            '1',
            '1.0',
            '1.50',
            '-0.001',
            '0',
            '0.000',
            '123456789012345',
            '-99999.9999',
            '0.00000000000000000000001',
            '9999999.9999999',
            '10000000.5',
            '0.0000001',
            '0.00000001',
            '-1234567.89',
            '7',
          ][r % 15],
        ),
  ds: (r) => (r % 11 === 7 ? null : d(['12.50', '-3.25', '0.00', '1000000.01'][r % 4])),
  b: (r) => (r % 5 === 1 ? null : r % 3 === 0),
  s: (r) => (r % 4 === 2 ? null : ['', 'Oslo', 'é\u{1F600}\ud800', 'Lima'][r % 3]),
  p: (r) => (r % 13 === 5 ? null : `row ${r} ${'x'.repeat(r % 17)}`),
};

const cols = columns({
  id: 'int',
  i: 'int',
  l: 'long',
  x: 'double',
  f: 'float',
  t: 'datetime',
  dm: { base: 'decimal' },
  ds: { base: 'decimal', precision: 18, scale: 2 },
  b: 'bool',
  s: 'string',
  p: 'string',
});

const STORAGE: Record<string, new (...args: never[]) => Vector> = {
  id: NumberVector,
  i: NumberVector,
  l: BigIntVector,
  x: NumberVector,
  f: NumberVector,
  t: DateVector,
  dm: DecimalVector,
  ds: DecimalVector,
  b: BoolVector,
  s: DictionaryVector,
  p: PackedTextVector,
};

/** The columns the capture test keys on; the others take their cells from `observed(r)`. */
const KEYS = ['l', 't', 'dm', 's', 'p', 'id'];

/**
 * The same rows stored typed (as sources store them) and as plain arrays of values; the cells of
 * columns outside KEYS are those of row `observed(r)`.
 */
function both(rows: readonly number[], observed = (r: number) => r): { typed: Dataset; plain: Dataset } {
  const valuesOf = (name: string, rows: readonly number[]): Value[] =>
    rows.map((r) => cells[name](KEYS.includes(name) ? r : observed(r)));
  const typed = cols.map((c) => {
    const values = valuesOf(c.name, rows);
    if (c.name !== 'p') return vectorOf(c.type, values);
    const packed = new TextColumnBuilder(values.length, false);
    for (const v of values) packed.add(v as string | null);
    return packed.finish();
  });
  const plain = cols.map((c) => new ValuesVector(valuesOf(c.name, rows)));
  return { typed: new Dataset(cols, typed, rows.length), plain: new Dataset(cols, plain, rows.length) };
}

const all = Array.from({ length: N }, (_, r) => r);

test('typed storage is what these tests mean it to be (else they would compare values with values)', () => {
  const { typed } = both(all);
  cols.forEach((c, k) =>
    assert.ok(typed.vector(k) instanceof STORAGE[c.name], `${c.name}: ${typed.vector(k).constructor.name}`),
  );
  // Mixed scales are kept one per cell; the scaled column has one scale.
  assert.ok((typed.vector(cols.findIndex((c) => c.name === 'dm')) as DecimalVector).scale instanceof Uint8Array);
  assert.equal(typeof (typed.vector(cols.findIndex((c) => c.name === 'ds')) as DecimalVector).scale, 'number');
});

test('row hashes of typed columns equal those of the same values, column by column and together', () => {
  const { typed, plain } = both(all);
  cols.forEach((c, k) => assert.deepEqual(hashRows(typed, [k]), hashRows(plain, [k]), c.name));
  const every = cols.map((_, k) => k);
  assert.deepEqual(hashRows(typed, every), hashRows(plain, every));
  assert.deepEqual(hashRows(typed, every.reverse()), hashRows(plain, every));
});

test('a typed decimal column hashes 1 and 1.0 alike, and 1 and 1.50 apart', () => {
  const column = (values: string[]): Dataset =>
    Dataset.encoded(columns({ v: 'decimal' }), [values.map((v) => d(v))], values.length);
  const ds = column(['1', '1.0', '1.00', '1.50', '1.5', '0', '0.000']);
  assert.ok(ds.vector(0) instanceof DecimalVector);
  const h = hashRows(ds, [0]);
  const lanes = (r: number): number[] => [h[2 * r], h[2 * r + 1]];
  assert.deepEqual(lanes(1), lanes(0));
  assert.deepEqual(lanes(2), lanes(0));
  assert.deepEqual(lanes(4), lanes(3));
  assert.deepEqual(lanes(6), lanes(5));
  assert.notDeepEqual(lanes(3), lanes(0));
  assert.notDeepEqual(lanes(5), lanes(0));
});

test('key bytes of typed columns equal those of the same values, for every type and null', () => {
  const { typed, plain } = both(all);
  cols.forEach((c, k) => {
    const a = new KeyEncoder(typed, [k]);
    const b = new KeyEncoder(plain, [k]);
    for (let r = 0; r < N; r++) {
      a.encode(r);
      b.encode(r);
      assert.deepEqual(a.bytes.subarray(0, a.length), b.bytes.subarray(0, b.length), `${c.name} row ${r}`);
    }
  });
});

test('a state written from typed columns sees the same values as plain arrays unchanged, and the reverse; changes and deletes agree', async () => {
  const o = options({ keys: KEYS.join(', '), inserts: true, updates: true, deletes: true, marker: 'op' });
  for (const [first, second] of [
    ['typed', 'plain'],
    ['plain', 'typed'],
  ] as const) {
    const file = tempStateFile();
    const before = both(all);
    const run1 = await capture(before[first], o, file);
    assert.equal(run1.diff.counts.inserted, N);
    const again = await capture(before[second], o, file, false);
    assert.deepEqual(again.diff.counts, { inserted: 0, updated: 0, deleted: 0, unchanged: N, duplicates: 0 });

    // Rows 0–3 gone, N .. N + 3 new, and every third row's other cells those of the next row.
    const next = Array.from({ length: N }, (_, r) => r + 4);
    const changed = both(next, (r) => (r % 3 === 0 ? r + 1 : r));
    const a = await capture(changed[second], o, file, false);
    const b = await capture(changed[first], o, file, false);
    assert.deepEqual(a.diff.counts, b.diff.counts);
    assert.equal(a.diff.counts.deleted, 4);
    assert.equal(a.diff.counts.inserted, 4);
    assert.ok(a.diff.counts.updated > 5, `${a.diff.counts.updated} updated`);
    assert.deepEqual(a.upserts, b.upserts);
    assert.deepEqual(a.deletes, b.deletes);
  }
});
