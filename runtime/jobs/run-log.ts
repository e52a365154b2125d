import type { CommitWrite } from '../changelog/commit';

/**
 * How a run ended: `running` while its process lives, `interrupted` when the process ended (a kill,
 * a crash) before the run did.
 */
export type RunOutcome = 'success' | 'failure' | 'running' | 'interrupted';

/** One run of a job: a `job run`, a triggered run, a webhook call or a replay. */
export interface RunRecord {
  /** The execution id of the run. */
  id: string;
  /** What started it: run (the CLI or %job run), trigger, webhook, replay. */
  by: string;
  start: string;
  /** Absent while the run is running, and for an interrupted run. */
  end?: string;
  rows: number;
  outcome: RunOutcome;
  error?: string;
}

/**
 * A line of runs.jsonl: a whole record (webhook calls and replays write one), or, for a job run, what
 * changes the record of its id written before. A job run writes `running` with its owner before it
 * starts, its outcome (a success with the watermark writes that follow) before its watermarks move,
 * and `pendingTriggers: false` before its triggers run, so a kill at any point leaves what the next
 * run needs to finish the run (jobs/recovery.ts).
 */
export interface RunLine extends Partial<RunRecord> {
  id: string;
  /** The process running it (processIdentity). */
  owner?: string;
  /** Its outcome fires triggers that were not started yet. */
  pendingTriggers?: boolean;
  /** The watermark files a success writes after this line, each carrying the run's id. */
  commit?: CommitWrite[];
}

/** A run as its lines say, in the order runs started. */
export type RunEntry = RunRecord & Pick<RunLine, 'owner' | 'pendingTriggers' | 'commit'>;

export function foldRuns(lines: readonly RunLine[]): RunEntry[] {
  const runs = new Map<string, RunEntry>();
  for (const line of lines) {
    if (typeof line?.id !== 'string') continue;
    const known = runs.get(line.id);
    if (known) Object.assign(known, line);
    else runs.set(line.id, { by: '', start: '', rows: 0, outcome: 'running', ...line });
  }
  return [...runs.values()];
}

/** What `job runs` shows of a run: a `running` one whose owner is dead is `interrupted`. */
export function shownRecord(entry: RunEntry, ownerAlive: (owner: string) => boolean): RunRecord {
  const { id, by, start, end, rows, outcome, error } = entry;
  const dead = outcome === 'running' && entry.owner !== undefined && !ownerAlive(entry.owner);
  return { id, by, start, end, rows, outcome: dead ? 'interrupted' : outcome, error };
}
