import { dirname, basename } from 'node:path';
import { readChangeLog } from '../changelog/read';
import { LocalDrive } from '../drives/local';
import { splitCell } from '../script/cell';
import type { Run } from '../run';
import { parseScript } from '../script/parser';
import { hasWriter, type JobDefinition } from './job';
import type { JobSession } from './sessions';
import type { JobStore } from './store';
import type { CurrentChangeLog } from '../scope';
import type { Statement } from '../script/ast';

/** Statements that write what the pipeline captured or loaded somewhere else: a writer's output end. */
const WRITES = new Set<Statement['kind']>(['PushHttp', 'PushDrive', 'SinkDrive', 'SinkDb', 'PushDb', 'Merge']);

/**
 * A writer script as a webhook call runs it (spec §4.1 rules 2–3): its transformations reshape the
 * payload before the change log is written, and its writes (from the first PUSH, SINK or MERGE on)
 * play that log afterwards. A leading LOAD is left out: the webhook's log is the one to play.
 */
export function splitWriter(statements: readonly Statement[]): { transform: Statement[]; write: Statement[] } {
  const body = statements[0]?.kind === 'Load' ? statements.slice(1) : [...statements];
  const at = body.findIndex((s) => WRITES.has(s.kind));
  return at < 0 ? { transform: body, write: [] } : { transform: body.slice(0, at), write: body.slice(at) };
}

/**
 * Runs a writer's writes on `run` with `log` as the run's change log, as LOAD would have set it. A log
 * without rows (a GET's, a CAPTURE that found no change) has nothing to play, as LOAD skips the rest
 * of a writer when there is no new log: a PUSH naming `{{id}}` could not run on a GET's log, which
 * has no columns.
 */
export async function playChangeLog(run: Run, log: CurrentChangeLog, write: readonly Statement[]): Promise<void> {
  run.changeLog = log;
  run.pipelineVariables.set('executionid', log.executionId);
  run.dataset = log.upserts;
  if (log.upserts.rowCount === 0 && log.deletes.rowCount === 0) {
    if (write.length > 0)
      run.emit({ kind: 'message', text: 'the change log has no rows: the writer has nothing to play' });
    return;
  }
  await run.execute(write);
}

/** A job's writer ready to play logs: a session of the job's pipeline with its leading magics applied, and the script's two parts. */
export interface WriterSession {
  session: JobSession;
  transform: Statement[];
  write: Statement[];
}

export async function openWriter(store: JobStore, job: JobDefinition): Promise<WriterSession> {
  const source = hasWriter(job) ? store.script(job.name, 'writer') : '';
  const session = store.openSession({ workspace: store.workspace, pipeline: job.name });
  try {
    const { magicsEnd, bodyOffset } = splitCell(source);
    // Leading magics (connections, settings) apply to the job's session once, as before a run.
    for await (const r of session.execute(source.slice(0, magicsEnd))) if (r.kind === 'error') throw r.error;
    return { session, ...splitWriter(parseScript(source, bodyOffset).statements) };
  } catch (e) {
    await session.close();
    throw e;
  }
}

/** A kept change log as a run's current log; its file is where PUSH records and resumes its progress. */
export async function changeLogOf(file: string, workspace: string): Promise<CurrentChangeLog> {
  const log = await readChangeLog(file, { workspace });
  return {
    upserts: log.upserts,
    deletes: log.deletes,
    keys: log.header.keys,
    executionId: log.header.executionId,
    file: { drive: new LocalDrive(dirname(file)), path: basename(file) },
  };
}
