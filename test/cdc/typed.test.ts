import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashRowsFormat1, rowHashes } from '../../runtime/cdc/hash';
import { KeyEncoder } from '../../runtime/cdc/keys';
import { Dataset } from '../../runtime/dataset/dataset';
import { parseDecimal } from '../../runtime/dataset/decimal-scale';
import { DecimalVector } from '../../runtime/dataset/vector';
import { both, cols, KEYS, N, STORAGE } from '../helpers/typed-data';
import { capture, columns, options, tempStateFile } from './helpers';

/*
 * CAPTURE reads typed columns from their storage (no value per cell); these pin that what it reads
 * is what the same cells give as plain values, which is what state files written before hold.
 */

const d = parseDecimal;

/** The row hashes of both state formats (the format 1 ones compare a state written before format 2). */
function hashRows(ds: Dataset, ordinals: number[]): { format1: Int32Array; format2: Int32Array } {
  return { format1: hashRowsFormat1(ds, ordinals), format2: rowHashes(ds, ordinals) };
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
  const lanes = (r: number): number[] => [
    h.format1[2 * r],
    h.format1[2 * r + 1],
    h.format2[2 * r],
    h.format2[2 * r + 1],
  ];
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
