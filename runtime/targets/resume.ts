import { readFileSync, writeFileSync } from 'node:fs';
import { writeStaged } from '../drives/drive';
import type { ChangeLogFile } from '../scope';

/**
 * How far a push of a change log got, kept beside the log (`<log>.progress.json`) after a failed push:
 * per target and stream, how many leading batches succeeded. Pushing the same log to the same target
 * again (a replay, a LOAD of that file) skips them and resumes at the first batch that failed; a push
 * that succeeds removes the record. Batches carry an Idempotency-Key made of the log's execution id,
 * the target, the stream and the batch number, so a receiver can also drop a batch it got twice.
 */
export interface PushProgress {
  /** Target id (e.g. "http POST /orders") → stream ('upsert' | 'delete') → batches done. */
  done: Record<string, Record<string, number>>;
}

/** The record travels with its log (DLQ_ON_ERROR moves both), so it is named after the log's path. */
export function progressPath(logPath: string): string {
  return `${logPath}.progress.json`;
}

export async function readProgress(log: ChangeLogFile | undefined): Promise<PushProgress> {
  if (!log || !(await log.drive.exists(progressPath(log.path)))) return { done: {} };
  const fetched = await log.drive.fetch(progressPath(log.path));
  try {
    return JSON.parse(readFileSync(fetched.file, 'utf8')) as PushProgress;
  } catch {
    // A record that does not read is no record: the push starts over, which idempotency keys make safe.
    return { done: {} };
  } finally {
    fetched.done();
  }
}

export async function writeProgress(log: ChangeLogFile | undefined, progress: PushProgress): Promise<void> {
  if (!log) return;
  await writeStaged(log.drive, progressPath(log.path), (staged) => writeFileSync(staged, JSON.stringify(progress)));
}

export async function clearProgress(log: ChangeLogFile | undefined): Promise<void> {
  if (log && (await log.drive.exists(progressPath(log.path)))) await log.drive.remove(progressPath(log.path));
}
