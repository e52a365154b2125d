import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsyncQueue } from '../../runtime/util/async-queue';

interface Item {
  kind: string;
  n: number;
}

const item = (n: number, kind = 'message'): Item => ({ kind, n });

test('items pushed faster than they are taken come out once each, in order, across compactions', async () => {
  const queue = new AsyncQueue<Item>();
  const taken: number[] = [];
  const consumer = (async () => {
    for await (const i of queue) taken.push(i.n);
  })();
  // Bursts of uneven sizes with a pull in between: the consumer falls behind, catches up, falls behind.
  let n = 0;
  for (const burst of [1, 5000, 3, 40000, 1023, 1024, 1025, 70000]) {
    for (let k = 0; k < burst; k++) queue.push(item(n++));
    await new Promise((r) => setImmediate(r));
  }
  queue.close();
  await consumer;
  assert.equal(taken.length, n);
  assert.ok(
    taken.every((v, i) => v === i),
    'an item came out of order or twice',
  );
});

test('a consumer waiting on an empty queue wakes for the next item and ends at close', async () => {
  const queue = new AsyncQueue<Item>();
  const it = queue[Symbol.asyncIterator]();
  const next = it.next();
  queue.push(item(7));
  assert.deepEqual(await next, { done: false, value: item(7) });
  const end = it.next();
  queue.close();
  assert.deepEqual(await end, { done: true, value: undefined });
});

test('items pushed before close are still taken; pushes after close are ignored; an error marks it failed', async () => {
  const queue = new AsyncQueue<Item>();
  queue.push(item(1));
  assert.equal(queue.failed, false);
  queue.push(item(2, 'error'));
  assert.equal(queue.failed, true);
  queue.close();
  queue.push(item(3));
  const taken: Item[] = [];
  for await (const i of queue) taken.push(i);
  assert.deepEqual(taken, [item(1), item(2, 'error')]);
});
