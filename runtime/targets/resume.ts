import { readFileSync, writeFileSync } from 'node:fs';
import { writeStaged } from '../drives/drive';
import type { ChangeLogFile, CurrentChangeLog } from '../scope';

/**
 * How far a push of a change log got, kept beside the log (`<log>.progress.json`) after a failed push:
 * per target and stream, how many leading batches succeeded. Pushing the same log to the same target
 * again (a replay, a LOAD of that file) skips them and resumes at the first batch that failed; a push
 * that succeeds removes the record. Batches carry an Idempotency-Key made of the log's execution id,
 * the target, the stream and the batch number, so a receiver can also drop a batch it got twice.
 */
export interface PushProgress {
  /** The log's execution id: a fixed-name log captured again is another log under the same path. */
  executionId?: string;
  /** Target id (e.g. "http POST /orders") → stream ('upsert' | 'delete') → batches done. */
  done: Record<string, Record<string, number>>;
}

/** The record travels with its log (DLQ_ON_ERROR moves both), so it is named after the log's path. */
export function progressPath(logPath: string): string {
  return `${logPath}.progress.json`;
}

/**
 * The batches done by earlier pushes of `log`. A record of another log under the same path (a fixed
 * name, `orders.eds`, is written again by every run) is no record of this one: its counts would skip
 * batches of the new log that were never sent.
 */
export async function readProgress(log: CurrentChangeLog | undefined): Promise<PushProgress> {
  const none = { executionId: log?.executionId, done: {} };
  const file = log?.file;
  if (!file || !(await file.drive.exists(progressPath(file.path)))) return none;
  const fetched = await file.drive.fetch(progressPath(file.path));
  try {
    const stored = JSON.parse(readFileSync(fetched.file, 'utf8')) as PushProgress;
    return stored.executionId === log.executionId ? stored : none;
  } catch {
    // A record that does not read is no record: the push starts over, which idempotency keys make safe.
    return none;
  } finally {
    fetched.done();
  }
}

export async function writeProgress(log: CurrentChangeLog | undefined, progress: PushProgress): Promise<void> {
  const file = log?.file;
  if (!file) return;
  const record: PushProgress = { executionId: log.executionId, done: progress.done };
  await writeStaged(file.drive, progressPath(file.path), (staged) => writeFileSync(staged, JSON.stringify(record)));
}

export async function clearProgress(log: ChangeLogFile | undefined): Promise<void> {
  if (log && (await log.drive.exists(progressPath(log.path)))) await log.drive.remove(progressPath(log.path));
}
