import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onFirstUse } from '../../runtime/util/first-use';

test('a function loaded on first use is loaded once, and its calls get their own arguments and results', async () => {
  let loads = 0;
  const double = onFirstUse(async () => {
    loads++;
    await new Promise((r) => setImmediate(r));
    return (n: number) => n * 2;
  });
  assert.equal(loads, 0, 'nothing loads before the first call');
  assert.deepEqual(await Promise.all([double(1), double(2)]), [2, 4]);
  for (let n = 3; n < 10; n++) assert.equal(await double(n), n * 2);
  // Two calls racing before the first load ended may both load; later calls never do.
  assert.ok(loads <= 2, `loaded ${loads} times`);
  const before = loads;
  await double(10);
  assert.equal(loads, before);
});

test('a load that fails is tried again at the next call', async () => {
  let attempts = 0;
  const f = onFirstUse(async () => {
    if (++attempts === 1) throw new Error('not yet');
    return () => 'loaded';
  });
  await assert.rejects(f(), /not yet/);
  assert.equal(await f(), 'loaded');
  assert.equal(await f(), 'loaded');
  assert.equal(attempts, 2);
});
