import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffWorker, handOver, PARALLEL_ROWS } from '../../runtime/cdc/diff-thread';
import { typedLanes } from '../../runtime/cdc/hash';
import { Dataset } from '../../runtime/dataset/dataset';
import { NumberVector } from '../../runtime/dataset/vector';
import { atOnce } from '../../runtime/util/turn';

/** Two double columns of `rows` rows: typed storage, which a diff hands over to the worker thread. */
function doubles(rows: number): Dataset {
  const a = new Float64Array(rows).map((_, r) => r * 1.5);
  const b = new Float64Array(rows).map((_, r) => r / 7);
  return new Dataset(
    [
      { name: 'a', type: { base: 'double' } },
      { name: 'b', type: { base: 'double' } },
    ],
    [new NumberVector(a, undefined), new NumberVector(b, undefined)],
    rows,
  );
}

test('a diff whose worker thread has died gets on without it at once, and the next diff starts another', () => {
  const rows = doubles(PARALLEL_ROWS + 10);
  // A first job starts the worker and lets it say which thread it is.
  const first = atOnce(handOver(rows, [0, 1], [], undefined))!;
  assert.deepEqual(first.result().lanes, typedLanes(rows, [0, 1]));
  const worker = diffWorker()!;
  assert.ok(worker);

  // Stopped, not awaited: its 'exit' event cannot reach this thread before the job below is waited
  // for, so the job goes to a thread that will never do it, as one that dies in the middle would.
  void worker.terminate();
  const job = atOnce(handOver(rows, [0, 1], [], undefined))!;
  const start = Date.now();
  const done = job.result();
  const waited = Date.now() - start;
  assert.equal(done.lanes, undefined, 'the job was not done: the caller does it itself');
  assert.ok(waited < 5_000, `waited ${waited} ms for a dead worker`);

  const again = atOnce(handOver(rows, [0, 1], [], undefined))!;
  assert.deepEqual(again.result().lanes, typedLanes(rows, [0, 1]));
  assert.notEqual(diffWorker(), worker);
});
