import { statSync } from 'node:fs';
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

/**
 * Finishes the runs of `job` whose process died (kill -9, a crash, a power cut): one still `running`
 * is recorded `interrupted` (its triggers do not run, as a cancelled run's do not); one that had
 * recorded its outcome but not started its triggers is returned, its triggers marked started, for
 * the caller to run them now, once. Under runs.jsonl's lock, so of two processes starting the job at
 * once only one gets them. Called before each run of the job.
 */
export async function recoverRuns(
  store: JobStore,
  job: JobDefinition,
  report: (result: Result) => void,
  signal?: AbortSignal,
): Promise<RunEntry[]> {
  const log = store.runs(job.name);
  const alive = ownerAlive(store, job.name);
  const unfinished = () =>
    foldRuns(log.read()).filter(
      (e) => e.owner !== undefined && (e.outcome === 'running' || e.pendingTriggers) && !alive(e.owner),
    );
  if (unfinished().length === 0) return [];
  return whileHoldingFileLock(log.file, { signal }, async () => {
    const owed: RunEntry[] = [];
    // Read again under the lock: another process may have finished them meanwhile.
    for (const entry of unfinished()) {
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
