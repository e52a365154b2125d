import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Decimal from 'decimal.js';
import { readChangeLog } from '../../runtime/changelog/read';
import { writeChangeLog } from '../../runtime/changelog/write';
import { decimalText } from '../../runtime/dataset/decimal-scale';
import type { Value } from '../../runtime/dataset/types';
import { BigIntVector, DateVector } from '../../runtime/dataset/vector';
import { both, cols, N, STORAGE } from '../helpers/typed-data';
import { meta, tempDir } from './helpers';

/** A cell as text that tells every value apart: -0, NaN, decimal scale, dates by time, the kind of value. */
function exact(v: Value): string {
  if (v instanceof Date) return `date ${v.getTime()}`;
  if (Decimal.isDecimal(v)) return `decimal ${decimalText(v)}`;
  if (typeof v === 'number') return Object.is(v, -0) ? 'number -0' : `number ${v}`;
  return `${typeof v} ${String(v)}`;
}

test('a change log written from typed columns is byte for byte the one written from the same values, frames cut anywhere; read back, every cell is the same', async () => {
  const dir = tempDir('changelog-typed');
  const all = Array.from({ length: N }, (_, r) => r);
  // Every other row from the back: a selection, whose vectors are gathered from the typed ones.
  const some = all.filter((r) => r % 2 === 1).reverse();
  const now = new Date(Date.UTC(2026, 0, 2));
  for (const frameRows of [3, 8, 20, 16_384]) {
    const upserts = both(all);
    const deletes = both(some);
    cols.forEach((c, k) => assert.ok(upserts.typed.vector(k) instanceof STORAGE[c.name], c.name));
    const typedPath = join(dir, `typed-${frameRows}.eds`);
    const plainPath = join(dir, `plain-${frameRows}.eds`);
    const picked = upserts.typed.pick(Int32Array.from(some));
    await writeChangeLog(typedPath, upserts.typed, picked, meta(upserts.typed), { frameRows, now });
    await writeChangeLog(plainPath, upserts.plain, deletes.plain, meta(upserts.plain), { frameRows, now });
    assert.deepEqual(readFileSync(typedPath), readFileSync(plainPath), `frames of ${frameRows} rows`);

    const log = await readChangeLog(typedPath);
    // Datetimes and longs are read into typed storage, not a Date or a bigint per cell.
    assert.ok(log.upserts.vector(cols.findIndex((c) => c.name === 't')) instanceof DateVector);
    assert.ok(log.deletes.vector(cols.findIndex((c) => c.name === 'l')) instanceof BigIntVector);
    for (const [got, want] of [
      [log.upserts, upserts.plain],
      [log.deletes, deletes.plain],
    ] as const) {
      assert.equal(got.rowCount, want.rowCount);
      for (let c = 0; c < cols.length; c++)
        assert.deepEqual(
          got.column(c).map(exact),
          want.column(c).map(exact),
          `${cols[c].name}, frames of ${frameRows}`,
        );
    }
  }
});
