import { ScriptError, toScriptError } from '../errors';
import { hasWriter } from './job';
import { changeLogOf, loadKeys, openWriter, playChangeLog } from './play';
import type { JobReport } from './runner';
import type { RunRecord } from './run-log';
import type { JobStore } from './store';

/**
 * Plays a kept change log (a webhook's whose writer failed, one LOAD would read) through a job's
 * writer, as the webhook call would have: its writes with the log as the run's change log. A push
 * that stopped half-way recorded its progress beside the log, and resumes there. Recorded in the
 * job's runs; a log that cannot be read is refused before the writer starts, and is no run.
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
  const start = new Date();
  // Errors point into the writer's script, as a job run's do.
  const source = store.script(name, 'writer');
  const writer = await openWriter(store, job);
  const from = { job: name, script: 'writer' as const, source };
  const unsubscribe = writer.session.output.subscribe(({ result }) => report(result, from));
  const run = writer.session.newRun({ pipeline: job.name });
  let error: string | undefined;
  try {
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
  const record: RunRecord = {
    id: run.executionId,
    by: 'replay',
    start: start.toISOString(),
    end: new Date().toISOString(),
    rows,
    outcome: error ? 'failure' : 'success',
    ...(error ? { error } : {}),
  };
  await store.runs(name).append(record);
  return record;
}
