import { ScriptError, toScriptError } from '../errors';
import { processIdentity } from '../util/process-alive';
import { hasWriter } from './job';
import { changeLogOf, loadKeys, openWriter, playChangeLog } from './play';
import type { JobReport } from './runner';
import type { RunRecord } from './run-log';
import type { JobStore } from './store';

/**
 * Plays a kept change log (a webhook's whose writer failed, one LOAD would read) through a job's
 * writer, as the webhook call would have: its writes with the log as the run's change log. A push
 * that stopped half-way recorded its progress beside the log, and resumes there. Recorded in the
 * job's runs as a job run is: `running` with its process before the writer starts, its success
 * before its pushes' progress records go and its watermarks move (the run's commit point: a replay
 * killed after it has its records void, recovery.ts moves its watermarks), else its failure at the
 * end. A log that cannot be read is refused before the writer starts, and is no run.
 */
export async function replayChangeLog(
  store: JobStore,
  name: string,
  file: string,
  report: JobReport,
): Promise<RunRecord> {
  const job = store.get(name);
  if (!hasWriter(job))
    throw new ScriptError(
      `job ${name} has no writer to play a change log (a reader job writes logs; give the job that plays them)`,
      'semantic',
    );
  const log = await changeLogOf(file, store.workspace);
  const rows = log.upserts.rowCount + log.deletes.rowCount;
  // Errors point into the writer's script, as a job run's do.
  const source = store.script(name, 'writer');
  const writer = await openWriter(store, job);
  const from = { job: name, script: 'writer' as const, source };
  const unsubscribe = writer.session.output.subscribe(({ result }) => report(result, from));
  const runs = store.runs(name);
  let committed: RunRecord | undefined;
  const run = writer.session.newRun({
    pipeline: job.name,
    beforeCommit: async (_dataset, writes) => {
      committed = { ...started, end: new Date().toISOString(), rows, outcome: 'success' };
      await runs.append({ ...committed, ...(writes.length > 0 ? { commit: [...writes] } : {}) });
    },
  });
  const started = { id: run.executionId, by: 'replay', start: new Date().toISOString() };
  let error: string | undefined;
  try {
    await runs.append({ ...started, rows, outcome: 'running', owner: processIdentity() });
    // As LOAD would have: its KEY_COLUMNS key the log it plays.
    const keys = loadKeys(writer.load, run, log.upserts);
    await playChangeLog(run, keys ? { ...log, keys } : log, writer);
  } catch (e) {
    const failure = toScriptError(e);
    report({ kind: 'error', error: failure, source }, from);
    error = failure.message;
  } finally {
    unsubscribe();
    await writer.session.close();
  }
  if (committed && !error) return committed;
  // A log without rows plays nothing, so it has no commit: its success is recorded here.
  const record: RunRecord = {
    ...started,
    end: new Date().toISOString(),
    rows,
    outcome: error ? 'failure' : 'success',
    ...(error ? { error } : {}),
  };
  await runs.append(record);
  return record;
}
