import assert from 'node:assert/strict';
import { test } from 'node:test';
import { counted, thousands } from '../../runtime/util/words';

test('thousands groups an integer count as en-US does, without Intl', () => {
  for (const n of [0, 1, 12, 999, 1000, 12_345, 160_000, 1_234_567, 1_000_000_000, Number.MAX_SAFE_INTEGER, -1234])
    assert.equal(thousands(n), n.toLocaleString('en-US'), String(n));
  assert.equal(counted(1, 'row'), '1 row');
  assert.equal(counted(1000, 'row'), '1,000 rows');
});
