import { parentPort } from 'node:worker_threads';
import { hashVectors } from './hash';
import { DONE, FAILED, vectorOf, type HashJob } from './hash-thread';

/** The thread of hash-thread.ts: hashes the typed columns of a job into its shared lanes. */
parentPort!.on('message', (job: HashJob) => {
  let outcome = DONE;
  try {
    hashVectors(job.columns.map(vectorOf), job.families, job.hashes);
  } catch {
    // The calling thread hashes the columns itself, and meets the same error if there is one.
    outcome = FAILED;
  }
  Atomics.store(job.flag, 0, outcome);
  Atomics.notify(job.flag, 0);
});
