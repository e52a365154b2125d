import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { writeStaged } from '../drives/drive';
import { runSucceeded } from '../jobs/succeeded';
import type { ChangeLogFile, CurrentChangeLog, RunState } from '../scope';
import { tempPathOf } from '../workspace/files';

/**
 * How far a push of a change log got, kept beside the log (`<log>.progress.json`) after a failed push,
 * and noted while one runs (`progressNotes`): per target and stream, how many leading batches succeeded. Pushing the same log to the same target
 * again (a replay, a LOAD of that file) skips them and resumes at the first batch that failed; the
 * run of a push that succeeds removes the record at its commit (`finishProgress`). Batches carry an Idempotency-Key made of the log's execution id,
 * the target, the stream and the batch number, so a receiver can also drop a batch it got twice.
 */
export interface PushProgress {
  /** The log's execution id: a fixed-name log captured again is another log under the same path. */
  executionId?: string;
  /** Target id (e.g. "http POST /orders") → stream ('upsert' | 'delete') → batches done. */
  done: Record<string, Record<string, number>>;
  /**
   * Written by a push that succeeded (`finishProgress`): the run it succeeded in (its pipeline and
   * commit id). Once that run's success is recorded the record is void, whether or not its removal
   * after the run happened.
   */
  finished?: { pipeline: string; run: string };
}

/** The record travels with its log (DLQ_ON_ERROR moves both), so it is named after the log's path. */
export function progressPath(logPath: string): string {
  return `${logPath}.progress.json`;
}

/**
 * The batches done by earlier pushes of `log`. A record of another log under the same path (a fixed
 * name, `orders.eds`, is written again by every run) is no record of this one: its counts would skip
 * batches of the new log that were never sent. Nor is the record of a push whose run recorded its
 * success (in the runs of the job `workspace` has of that pipeline) a record: that run was over, and
 * a process killed before removing it (`finishProgress`) must not make a later replay skip the log.
 */
export async function readProgress(log: CurrentChangeLog | undefined, workspace: string): Promise<PushProgress> {
  const none = { executionId: log?.executionId, done: {} };
  const file = log?.file;
  if (!file || !(await file.drive.exists(progressPath(file.path)))) return none;
  const fetched = await file.drive.fetch(progressPath(file.path));
  try {
    const stored = JSON.parse(readFileSync(fetched.file, 'utf8')) as PushProgress;
    if (stored.executionId !== log.executionId) return none;
    const { pipeline, run } = stored.finished ?? {};
    const over = typeof pipeline === 'string' && typeof run === 'string' && runSucceeded(workspace, pipeline, run);
    return over ? none : { executionId: stored.executionId, done: stored.done };
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
  const record: PushProgress = { executionId: log.executionId, done: progress.done, finished: progress.finished };
  await writeStaged(file.drive, progressPath(file.path), (staged) => writeFileSync(staged, JSON.stringify(record)));
}

/** The longest a note of a push's progress waits after a batch is done, beside a local log (`progressNotes`). */
const NOTE_MS = 100;
/** The same for a log on FTP, where each note is a connection and an upload. */
const REMOTE_NOTE_MS = 1_000;

/** Notes a push's progress as it goes (`progressNotes`). */
export interface ProgressNotes {
  /** A batch is done (answered, or committed): its count in the record may be noted. */
  done(): void;
  /** No more notes; a note being uploaded ends first. Called before the record is written or removed. */
  stop(): Promise<void>;
}

/**
 * Notes how far a push got, after batches are done (answered by the receiver, committed by the
 * database), at most every NOTE_MS and at the latest NOTE_MS after a batch: put in place by rename,
 * not flushed. It survives a killed process (the page cache outlives it), so the next push of the log
 * sends only the batches not done, and those done in the last NOTE_MS; a power cut may lose it or
 * leave an earlier one, which only sends batches again (delivery stays at least once). A note per
 * answer cost 200 µs a call, as much as the call (`npm run bench -- push`). A failure is recorded
 * durably (`writeProgress`). Beside a log on FTP a note is an upload, made in the background, one at
 * a time, at most every REMOTE_NOTE_MS. A note that cannot be written is no note: the push goes on.
 */
export function progressNotes(log: CurrentChangeLog | undefined, progress: PushProgress): ProgressNotes {
  const file = log?.file;
  if (!file) return { done() {}, stop: async () => {} };
  const path = progressPath(file.path);
  const local = file.drive.local?.(path);
  const every = local ? NOTE_MS : REMOTE_NOTE_MS;
  const write = local
    ? (text: string) => replaceLocally(local, text)
    : (text: string) => writeStaged(file.drive, path, (staged) => writeFileSync(staged, text));
  let last = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  /** An upload under way, and whether batches were done meanwhile (a note after it). */
  let writing: Promise<void> | undefined;
  let pending = false;
  let stopped = false;
  const note = () => {
    timer = undefined;
    const written = write(JSON.stringify({ executionId: log.executionId, done: progress.done }));
    last = performance.now();
    if (!written) return;
    writing = written
      .catch(() => undefined)
      .then(() => {
        writing = undefined;
        // Counted from the upload's end: a slow site gets fewer notes, not back-to-back ones.
        last = performance.now();
        if (pending) {
          pending = false;
          done();
        }
      });
  };
  const done = () => {
    if (stopped || timer) return;
    if (writing) {
      pending = true;
      return;
    }
    const wait = last + every - performance.now();
    if (wait <= 0) note();
    else timer = setTimeout(note, wait);
  };
  return {
    done,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await writing;
    },
  };
}

/** Writes a local record through a temp file and a rename, unflushed; undefined (no upload to wait for). */
function replaceLocally(record: string, text: string): undefined {
  const temp = tempPathOf(record);
  try {
    writeFileSync(temp, text);
    renameSync(temp, record);
  } catch {
    rmSync(temp, { force: true });
  }
  return undefined;
}

/**
 * A push that succeeded: its record, saying every batch is done, is written durably, naming the run,
 * and removed at the run's commit: once every statement succeeded (and a job run recorded its
 * success), just before LOAD's watermark moves past the log.
 * Removed at once, a run killed or failing after the push (in a later PUSH of the same log) would
 * play the log to this target again from its first batch. Removed after the watermark moved, a run
 * killed in between would leave the record in force for a log no run plays again: a later deliberate
 * replay to this target would skip every batch. Removed before, a kill in between leaves the log
 * unplayed and without record, so the next run sends it to this target again: at least once, the
 * Idempotency-Keys unchanged, as after a kill within a progress note's interval. A job run killed
 * after recording its success, before the removal, leaves a record naming a run recorded a success:
 * void (`readProgress`), and the next start moves the watermarks (jobs/recovery.ts).
 */
export async function finishProgress(
  log: CurrentChangeLog | undefined,
  progress: PushProgress,
  run: Pick<RunState, 'atCommit' | 'pipeline' | 'commitId'>,
): Promise<void> {
  const file = log?.file;
  if (!file) return;
  await writeProgress(log, { ...progress, finished: { pipeline: run.pipeline, run: run.commitId } });
  run.atCommit(() => clearProgress(file));
}

export async function clearProgress(log: ChangeLogFile | undefined): Promise<void> {
  if (log && (await log.drive.exists(progressPath(log.path)))) await log.drive.remove(progressPath(log.path));
}
