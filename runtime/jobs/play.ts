import { basename, dirname, resolve } from 'node:path';
import { parseIdFileName } from '../changelog/naming';
import { recordPlayed } from '../changelog/played';
import { storeDir, storePipelineFor } from '../changelog/store';
import { readChangeLog } from '../changelog/read';
import { LocalDrive } from '../drives/local';
import type { Run } from '../run';
import { hasWriter, type JobDefinition } from './job';
import type { JobSession } from './sessions';
import type { JobStore } from './store';
import type { CurrentChangeLog } from '../scope';
import type { Load, Statement } from '../script/ast';
import type { Dataset } from '../dataset/dataset';
import { ScriptError } from '../errors';
import { splitNames } from '../writers/fields';

/**
 * The template evaluator, loaded when a log is played: `sqlcdc serve` imports this module (through the
 * webhook ingest) and listens before it has a call to play (docs/cli.md, "Speed").
 */
const evaluateText: typeof import('../functions/evaluate').evaluateText = (...args) =>
  (require('../functions/evaluate') as typeof import('../functions/evaluate')).evaluateText(...args);

/** Statements that write what the pipeline captured or loaded somewhere else: a writer's output end. */
const WRITES = new Set<Statement['kind']>(['PushHttp', 'PushDrive', 'SinkDrive', 'SinkDb', 'PushDb', 'Merge']);

/**
 * A writer script as a webhook call runs it (spec §4.1 rules 2–3): its transformations reshape the
 * payload before the change log is written, and its writes (from the first PUSH, SINK or MERGE on)
 * play that log afterwards. A leading LOAD is left out: the webhook's log is the one to play; its
 * KEY_COLUMNS, though, still key that log (`load`).
 */
export function splitWriter(statements: readonly Statement[]): {
  load?: Load;
  transform: Statement[];
  write: Statement[];
} {
  const load = statements[0]?.kind === 'Load' ? statements[0] : undefined;
  const body = load ? statements.slice(1) : [...statements];
  const at = body.findIndex((s) => WRITES.has(s.kind));
  return at < 0 ? { load, transform: body, write: [] } : { load, transform: body.slice(0, at), write: body.slice(at) };
}

/**
 * The key columns a writer's LOAD names with KEY_COLUMNS, for a log it did not load (a webhook's, a
 * replayed one), checked against `dataset`, the log's upserts; undefined when it names none.
 */
export function loadKeys(load: Load | undefined, run: Run, dataset: Dataset): string[] | undefined {
  if (!load?.keyColumns) return undefined;
  const keys = splitNames(evaluateText(load.keyColumns, { session: run.session, run, dataset }));
  for (const k of keys)
    if (!dataset.has(k))
      throw new ScriptError(
        `KEY_COLUMNS names '${k}', which the change log does not have`,
        'runtime',
        load.keyColumns.pos,
        'LOAD',
      );
  return keys;
}

/**
 * Runs a writer's writes on `run` with `log` as the run's change log, as LOAD would have set it. A log
 * without rows (a GET's, a CAPTURE that found no change) has nothing to play, as LOAD skips the rest
 * of a writer when there is no new log: a PUSH naming `{{id}}` could not run on a GET's log, which
 * has no columns. Once played, a log the writer's LOAD would also read is recorded as played, so that
 * LOAD does not play it again (played.ts).
 */
export async function playChangeLog(
  run: Run,
  log: CurrentChangeLog,
  writer: { load?: Load; write: readonly Statement[] },
): Promise<void> {
  run.changeLog = log;
  run.pipelineVariables.set('executionid', log.executionId);
  run.dataset = log.upserts;
  if (log.upserts.rowCount === 0 && log.deletes.rowCount === 0) {
    if (writer.write.length > 0)
      run.emit({ kind: 'message', text: 'the change log has no rows: the writer has nothing to play' });
  } else {
    await run.execute(writer.write);
  }
  const name = loadsFromStore(writer.load, run, log);
  if (name) recordPlayed(run.session.workspace, run.pipeline, name, log.executionId);
}

/**
 * The change log name of the writer's LOAD when that LOAD reads `log`'s folder by name: a bare name
 * (no file name), no PATH or connection, the log's own name, in the store LOAD reads it from.
 */
function loadsFromStore(load: Load | undefined, run: Run, log: CurrentChangeLog): string | undefined {
  if (!load || load.path || load.connection || !log.file?.drive.local) return undefined;
  const name = evaluateText(load.name, { session: run.session, run, dataset: log.upserts }).trim();
  const file = log.file.drive.local(log.file.path);
  if (parseIdFileName(basename(file))?.stem !== name) return undefined;
  const folder = resolve(dirname(file));
  const { workspace } = run.session;
  // The pipeline's own store holds it (every webhook call's log): LOAD reads there, no folder is listed.
  if (folder === resolve(storeDir(workspace, run.pipeline))) return name;
  return folder === resolve(storeDir(workspace, storePipelineFor(workspace, run.pipeline, name))) ? name : undefined;
}

/** A job's writer ready to play logs: a session of the job's pipeline with its leading magics applied, and the script's two parts. */
export interface WriterSession {
  session: JobSession;
  load?: Load;
  transform: Statement[];
  write: Statement[];
}

export async function openWriter(store: JobStore, job: JobDefinition): Promise<WriterSession> {
  const source = hasWriter(job) ? store.script(job.name, 'writer') : '';
  const session = store.openSession({ workspace: store.workspace, pipeline: job.name });
  try {
    // The parser loads with the first writer opened, not when `sqlcdc serve` starts.
    const { splitCell } = await import('../script/cell');
    const { parseScript } = await import('../script/parser');
    const { magicsEnd, bodyOffset } = splitCell(source);
    // Parsed before its magics run, as a cell is: a script edited since it was saved that no longer
    // parses changes nothing (a %connection add above the error would be kept in the workspace).
    const statements = parseScript(source, bodyOffset).statements;
    // Leading magics (connections, settings) apply to the job's session once, as before a run.
    for await (const r of session.execute(source.slice(0, magicsEnd))) if (r.kind === 'error') throw r.error;
    return { session, ...splitWriter(statements) };
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
