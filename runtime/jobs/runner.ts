import type { CommitWrite } from '../changelog/commit';
import type { Dataset } from '../dataset/dataset';
import { errorInFile, ScriptError } from '../errors';
import { nextExecutionId } from '../execution-id';
import type { ExecuteOptions, Result } from '../results';
import { hasReader, hasWriter, type JobDefinition, type TriggerKind } from './job';
import { processIdentity } from '../util/process-alive';
import { recoverRuns } from './recovery';
import type { RunRecord } from './run-log';
import type { JobStore, Script } from './store';

/** Which script an output of a job run came from: a job's triggers report under their own job. */
export interface JobScript {
  job: string;
  script: Script;
  source: string;
}

/** Where a job run's output goes (the CLI: stderr; a notebook: the cell); `from` is absent for the run's own notes. */
export type JobReport = (result: Result, from?: JobScript) => void;

export interface JobRunOptions {
  /** What started the run, kept in its record: run, trigger, webhook, replay. */
  by: string;
  report: JobReport;
  signal?: AbortSignal;
  cwd?: string;
  /** Jobs of the trigger chain that led here: a trigger never runs a job of its own chain again. */
  chain?: readonly string[];
}

export interface PipelineOutcome {
  error?: ScriptError;
  dataset: Dataset;
}

/**
 * Runs one script exactly as `sqlcdc run` does (leading magics included), in a fresh session whose
 * pipeline name is the job's: CDC state, change logs and watermarks are the job's own.
 */
export async function runJobScript(
  store: JobStore,
  source: string,
  pipeline: string,
  report: (r: Result) => void,
  options: { cwd?: string } & Pick<ExecuteOptions, 'signal' | 'beforeCommit' | 'commitId'> = {},
): Promise<PipelineOutcome> {
  const session = store.openSession({ workspace: store.workspace, pipeline, cwd: options.cwd });
  let error: ScriptError | undefined;
  const unsubscribe = session.output.subscribe(({ result }) => report(result));
  try {
    const { signal, beforeCommit, commitId } = options;
    for await (const r of session.execute(source, { signal, beforeCommit, commitId })) {
      if (r.kind === 'error') error = r.error;
      report(r);
    }
  } finally {
    unsubscribe();
    await session.close();
  }
  return { error, dataset: session.dataset };
}

/**
 * A run of a job: its reader, then its writer (a direct job runs both; the writer only when the reader
 * succeeded), recorded in the job's runs, then the job's triggers. Returns the record.
 *
 * A kill at any point leaves a record the next run of the job finishes (recovery.ts): the run is
 * recorded `running` (with its process) before it starts, and its success, with the watermark files
 * the last script then writes (each carrying the run's id), before they are written, so a run whose
 * watermarks moved is never without its record, and the next run moves those of a run killed before
 * they all moved; its triggers are marked started before they start, so the next run starts those of
 * a run killed before them, once.
 */
export async function runJob(store: JobStore, name: string, options: JobRunOptions): Promise<RunRecord> {
  const job = store.get(name);
  for (const owed of await recoverRuns(store, job, (r) => options.report(r), options.signal))
    await runTriggers(store, job, owed, options);
  const log = store.runs(name);
  const started = { id: nextExecutionId(), by: options.by, start: new Date().toISOString() };
  await log.append({ ...started, rows: 0, outcome: 'running', owner: processIdentity() });
  const scripts = (['reader', 'writer'] as const).filter((s) => (s === 'reader' ? hasReader(job) : hasWriter(job)));
  let outcome: PipelineOutcome | undefined;
  let committed: RunRecord | undefined;
  const commit = async (dataset: Dataset, writes: readonly CommitWrite[]) => {
    committed = { ...started, end: new Date().toISOString(), rows: dataset.rowCount, outcome: 'success' };
    const redo = writes.length > 0 ? { commit: [...writes] } : {};
    await log.append({ ...committed, pendingTriggers: firesAny(job, committed), ...redo });
  };
  for (const script of scripts) {
    const source = store.script(name, script);
    const beforeCommit = script === scripts.at(-1) ? commit : undefined;
    const report = (r: Result) => options.report(r, { job: name, script, source });
    outcome = await runJobScript(store, source, name, report, { ...options, beforeCommit, commitId: started.id });
    if (outcome.error || options.signal?.aborted) break;
  }
  // Cancelled before its success was recorded: a failure whose triggers do not run.
  const cancelled = !committed && options.signal?.aborted;
  let record = committed;
  if (outcome?.error || cancelled || !record) {
    const error = outcome?.error?.message ?? (cancelled ? 'cancelled' : undefined);
    record = {
      ...started,
      end: new Date().toISOString(),
      rows: outcome?.dataset.rowCount ?? 0,
      outcome: error === undefined ? 'success' : 'failure',
      ...(error === undefined ? {} : { error }),
    };
    await log.append({ ...record, pendingTriggers: !cancelled && firesAny(job, record) });
  }
  // Cancelled while its success was being recorded: its triggers wait for the job's next run.
  if (options.signal?.aborted || !firesAny(job, record)) return record;
  await log.append({ id: record.id, pendingTriggers: false });
  await runTriggers(store, job, record, options);
  return record;
}

/**
 * A job its triggers ran failing, as a warning of the run that triggered it (whose outcome it does
 * not change): `job B, triggered by A, failed: reader.sql:2:8: …`, at its place in its own script.
 */
export function triggeredFailure(store: JobStore, by: string, from: JobScript, error: ScriptError): Result {
  return {
    kind: 'warning',
    text: `job ${from.job}, triggered by ${by}, failed: ${errorInFile(store.scriptFile(from.job, from.script), error)}`,
  };
}

/** Whether a trigger of `kind` fires after a run that ended so. */
export function fires(kind: TriggerKind, record: Pick<RunRecord, 'outcome' | 'rows'>): boolean {
  switch (kind) {
    case 'completion':
      return true;
    case 'success':
      return record.outcome === 'success';
    case 'success-with-data':
      return record.outcome === 'success' && record.rows > 0;
    case 'failure':
      return record.outcome === 'failure';
  }
}

const firesAny = (job: JobDefinition, record: Pick<RunRecord, 'outcome' | 'rows'>) =>
  job.triggers.some((t) => fires(t.on, record));

/** Runs the jobs the triggers of `job` name, in their order, for a run that ended as `record` says. */
export async function runTriggers(
  store: JobStore,
  job: JobDefinition,
  record: Pick<RunRecord, 'outcome' | 'rows'>,
  options: JobRunOptions,
): Promise<void> {
  const chain = [...(options.chain ?? []), job.name];
  for (const t of job.triggers) {
    if (!fires(t.on, record)) continue;
    if (chain.includes(t.run)) {
      options.report({
        kind: 'warning',
        text: `trigger ${t.on} of job ${job.name} would run ${t.run} again in one chain (${chain.join(' → ')}): skipped`,
      });
      continue;
    }
    if (!store.exists(t.run)) {
      options.report({
        kind: 'warning',
        text: `trigger ${t.on} of job ${job.name} names job ${t.run}, which does not exist: skipped`,
      });
      continue;
    }
    await runJob(store, t.run, { ...options, by: `trigger:${job.name}`, chain });
  }
}
