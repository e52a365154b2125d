import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Fifo } from '../../runtime/util/fifo';

test('a fifo gives its items back in order across compactions, with first, last and size along the way', () => {
  const fifo = new Fifo<number>();
  assert.equal(fifo.shift(), undefined);
  assert.equal(fifo.first(), undefined);
  assert.equal(fifo.last(), undefined);
  let pushed = 0;
  let taken = 0;
  // Uneven rounds: more pushed than taken, then drained to empty, across the compaction threshold.
  for (const [push, take] of [
    [3000, 2500],
    [10, 400],
    [5000, 5110],
    [1, 0],
    [2048, 2049],
  ]) {
    for (let i = 0; i < push; i++) fifo.push(pushed++);
    assert.equal(fifo.last(), pushed - 1);
    for (let i = 0; i < take; i++) assert.equal(fifo.shift(), taken++);
    assert.equal(fifo.size, pushed - taken);
    assert.equal(fifo.first(), fifo.size ? taken : undefined);
  }
  assert.equal(fifo.size, 0);
  assert.equal(fifo.last(), undefined);
});
