import { statSync } from 'node:fs';
import { applyCommit, commitPath, type CommitWrite } from '../changelog/commit';
import { watermarkRun } from '../changelog/watermark';
import { whileHoldingFileLock } from '../workspace/file-lock';
import { identityAlive } from '../util/process-alive';
import type { Result } from '../results';
import type { JobDefinition } from './job';
import { foldRuns, shownRecord, type RunEntry, type RunRecord } from './run-log';
import type { JobStore } from './store';

/**
 * Whether the process that owns a run of job `name` lives. One of another container or machine is
 * judged by runs.jsonl having been written within the last minutes (identityAlive).
 */
function ownerAlive(store: JobStore, name: string): (owner: string) => boolean {
  const touched = () => statSync(store.runs(name).file, { throwIfNoEntry: false })?.mtimeMs;
  return (owner) => identityAlive(owner, touched);
}

/** The runs of job `name` as `job runs` shows them, oldest first. */
export function runRecords(store: JobStore, name: string): RunRecord[] {
  const alive = ownerAlive(store, name);
  return foldRuns(store.runs(name).read()).map((entry) => shownRecord(entry, alive));
}

/** A recorded success of a dead process whose watermark writes did not all happen: those writes. */
interface Unmoved {
  entry: RunEntry;
  writes: CommitWrite[];
}

/**
 * The successes of dead processes whose watermarks did not all move. Per file, only the last success
 * that writes it counts (an earlier one's write is superseded); it moved when the file carries that
 * run's id or a later one (a later run, a cell, a webhook call wrote it since).
 */
function unmovedWatermarks(
  workspace: string,
  entries: readonly RunEntry[],
  alive: (owner: string) => boolean,
): Unmoved[] {
  const last = new Map<string, { entry: RunEntry; write: CommitWrite }>();
  for (const entry of entries) {
    if (entry.outcome !== 'success' || !Array.isArray(entry.commit) || !/^\d+$/.test(entry.id)) continue;
    for (const write of entry.commit) {
      const path = commitPath(workspace, write);
      if (path) last.set(path, { entry, write });
    }
  }
  const owed = new Map<RunEntry, CommitWrite[]>();
  for (const [path, { entry, write }] of last) {
    if (entry.owner === undefined || alive(entry.owner)) continue;
    const run = watermarkRun(path);
    if (run !== undefined && BigInt(run) >= BigInt(entry.id)) continue;
    owed.set(entry, [...(owed.get(entry) ?? []), write]);
  }
  return [...owed].map(([entry, writes]) => ({ entry, writes }));
}

/**
 * Finishes the runs of `job` whose process died (kill -9, a crash, a power cut): a success killed
 * before its watermark files were all written has them written now, from its record; one still
 * `running` is recorded `interrupted` (its triggers do not run, as a cancelled run's do not); one
 * that had recorded its outcome but not started its triggers is returned, its triggers marked
 * started, for the caller to run them now, once. Under runs.jsonl's lock, so of two processes
 * starting the job at once only one does it. Called before each run of the job.
 */
export async function recoverRuns(
  store: JobStore,
  job: JobDefinition,
  report: (result: Result) => void,
  signal?: AbortSignal,
): Promise<RunEntry[]> {
  const log = store.runs(job.name);
  const alive = ownerAlive(store, job.name);
  const { workspace } = store;
  const unfinished = (entries: RunEntry[]) =>
    entries.filter((e) => e.owner !== undefined && (e.outcome === 'running' || e.pendingTriggers) && !alive(e.owner));
  const first = foldRuns(log.read());
  if (unfinished(first).length === 0 && unmovedWatermarks(workspace, first, alive).length === 0) return [];
  return whileHoldingFileLock(log.file, { signal }, async () => {
    const owed: RunEntry[] = [];
    // Read again under the lock: another process may have finished them meanwhile.
    const entries = foldRuns(log.read());
    for (const { entry, writes } of unmovedWatermarks(workspace, entries, alive)) {
      applyCommit(workspace, writes);
      report({
        kind: 'warning',
        text: `job ${job.name}: run ${entry.id} (success) was killed before its watermarks moved: moved now (${writes.map((w) => w.file).join(', ')})`,
      });
    }
    for (const entry of unfinished(entries)) {
      if (entry.outcome === 'running') {
        await log.append({ id: entry.id, outcome: 'interrupted' });
        report({
          kind: 'warning',
          text: `job ${job.name}: run ${entry.id} (started ${entry.start}) was interrupted: its process ended before the run did`,
        });
      } else {
        await log.append({ id: entry.id, pendingTriggers: false });
        report({
          kind: 'warning',
          text: `job ${job.name}: run ${entry.id} (${entry.outcome}) ended before its triggers ran: running them now`,
        });
        owed.push(entry);
      }
    }
    return owed;
  });
}
