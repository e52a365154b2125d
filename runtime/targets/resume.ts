import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { writeStaged } from '../drives/drive';
import type { ChangeLogFile, CurrentChangeLog } from '../scope';
import { tempPathOf } from '../workspace/files';

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

/** The longest a note of a push's progress waits after an answer (`progressNotes`). */
const NOTE_MS = 100;

/**
 * Notes how far a push got, after batches were answered, at most every NOTE_MS and at the latest
 * NOTE_MS after an answer: put in place by rename, not flushed. It survives a killed process (the
 * page cache outlives it), so the next push of the log sends only the batches not answered, and
 * those answered in the last NOTE_MS; a power cut may lose it or leave an earlier one, which only
 * sends batches again (delivery stays at least once). A note per answer cost 200 µs a call, as
 * much as the call (`npm run bench -- push`). A failure is recorded durably (`writeProgress`).
 * Only beside a log on the local file system: on FTP a note would be an upload. A note that cannot
 * be written is no note: the push goes on. `stop` before the record is written or removed.
 */
export function progressNotes(
  log: CurrentChangeLog | undefined,
  progress: PushProgress,
): { answered(): void; stop(): void } {
  const file = log?.file;
  const record = file && file.drive.local?.(progressPath(file.path));
  let last = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  const note = () => {
    timer = undefined;
    last = performance.now();
    const temp = tempPathOf(record!);
    try {
      writeFileSync(temp, JSON.stringify({ executionId: log!.executionId, done: progress.done }));
      renameSync(temp, record!);
    } catch {
      rmSync(temp, { force: true });
    }
  };
  return {
    answered() {
      if (!record || timer) return;
      const wait = last + NOTE_MS - performance.now();
      if (wait <= 0) note();
      else timer = setTimeout(note, wait);
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

export async function clearProgress(log: ChangeLogFile | undefined): Promise<void> {
  if (log && (await log.drive.exists(progressPath(log.path)))) await log.drive.remove(progressPath(log.path));
}
