import { parentPort, workerData } from 'node:worker_threads';
import { Dataset } from '../dataset/dataset';
import { vectorOfColumn } from '../dataset/thread-wire';
import { DONE, FAILED, ownThreadId, type DiffJob } from './diff-thread';
import { hashVectors } from './hash';
import { classify, type Classified } from './match';

/** The thread of diff-thread.ts: matches the keys of a job, posts the outcome, then hashes its typed columns. */
const { tid } = workerData as { tid: Int32Array };

// From now on the calling thread, waiting for a job, can tell whether this thread died.
Atomics.store(tid, 0, ownThreadId());

/** The outcome's own buffers, handed over rather than copied. */
function buffersOf(m: Classified): ArrayBuffer[] {
  const views = [
    m.kinds,
    m.seenBy,
    m.added.keys.bytes,
    m.added.keys.offsets,
    m.added.hashes,
    m.added.slots,
    m.addedRows,
  ];
  return [...new Set(views.map((v) => v.buffer))].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer);
}

parentPort!.on('message', (job: DiffJob) => {
  let outcome = DONE;
  try {
    if (job.match) {
      const { columns, keys, state, reply } = job.match;
      const keyData = new Dataset(columns, keys.map(vectorOfColumn), job.rows);
      const matched = classify(
        keyData,
        columns.map((_, k) => k),
        state,
      );
      reply.postMessage(matched, buffersOf(matched));
      reply.close();
    }
    if (job.hash) hashVectors(job.hash.columns.map(vectorOfColumn), job.hash.families, job.hash.hashes);
  } catch {
    // The calling thread does the job itself, and meets the same error if there is one.
    outcome = FAILED;
  }
  Atomics.store(job.flag, 0, outcome);
  Atomics.notify(job.flag, 0);
});
