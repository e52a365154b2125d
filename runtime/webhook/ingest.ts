import { join, resolve, sep } from 'node:path';
import { ChangeLogExists, writeChangeLog } from '../changelog/write';
import { EXTENSION, lastIdIn, NAME_ATTEMPTS } from '../changelog/naming';
import { continueAfter, nextExecutionId } from '../execution-id';
import { DEFAULT_FRAME_ROWS } from '../changelog/layout';
import { Dataset } from '../dataset/dataset';
import { LocalDrive } from '../drives/local';
import { errorInFile, toScriptError } from '../errors';
import type { JobDefinition } from '../jobs/job';
import { loadKeys, openWriter, playChangeLog, type WriterSession } from '../jobs/play';
import { runTriggers, type JobReport } from '../jobs/runner';
import type { CurrentJob, JobStore } from '../jobs/store';
import type { CurrentChangeLog } from '../scope';
import { GroupCommit } from '../workspace/group-commit';
import { isoTime } from '../util/iso-time';
import { jsonLine } from '../util/json-lines';
import type { RunRecord } from '../jobs/run-log';
import type { OutputListener } from '../output';
import type { Answer } from './idempotency';
import { payloadToDataset, PayloadError } from './payload';

/** Where a job's webhook logs go, in the workspace: `changelogs/<job>/`. */
const LOG_FOLDER = 'changelogs';
/** A log of up to this many rows is stored uncompressed (docs/changelog.md). */
const SMALL_LOG_ROWS = 64;

/** The parameters of one call (spec §4.1, decision C.6), already validated. */
export interface CallParameters {
  rootPath?: string;
  form2json: boolean;
  bypassTriggers: boolean;
  startWriter: boolean;
  contentType?: string;
}

/** The JSON answer of a call that ran (C.6). */
export interface CallAnswer {
  executionId: string;
  job: string;
  changeLog: string | null;
  rows: number;
  writer: { started: boolean; success: boolean | null; error: string | null };
}

/** A job's writer as the listener runs it: its session (leading magics applied) and its two parts. */
interface LoadedJob extends WriterSession {
  stamp: string;
}

/**
 * What a webhook call does once it is let in (spec §4.1, §6): the payload becomes a dataset, the
 * writer's transformations run on it as a Run of the job's pipeline (no synthetic CDC; a CAPTURE in
 * the pipeline still applies), the change log is written durably, then the writer plays it unless
 * startwriter=0, and the job's triggers follow unless bypasstriggers. `origin` labels the run's
 * output on the job session's output channel, which goes to `shown`: the production listener shows
 * none (rule 5), `%webhook start --job` shows it under the cell that started it.
 */
export class Ingest {
  private readonly loaded = new Map<string, Promise<LoadedJob>>();
  /** The jobs of `loaded` once loaded: a call to a job already loaded gets it without waiting a turn. */
  private readonly ready = new Map<string, LoadedJob>();
  /**
   * Every call's log and run record go through it, so calls arriving together share one flush.
   * Made at once: it replays what a listener killed on this workspace left in its journal, before
   * this one numbers a log.
   */
  private readonly logs: GroupCommit;
  /** The workspace, where the listener's own logs go. */
  private readonly workspace: LocalDrive;
  /** Where the workspace is, ending with a separator: a log's path on this machine is this and its path in the workspace. */
  private readonly workspaceRoot: string;

  constructor(
    readonly store: JobStore,
    private readonly report: JobReport = () => {},
    private readonly shown?: OutputListener,
  ) {
    this.logs = new GroupCommit(store.workspace);
    this.workspace = new LocalDrive(store.workspace);
    this.workspaceRoot = resolve(store.workspace) + sep;
  }

  /** `current`: the job as its files were when the call came in (JobStore.current). */
  async call(current: CurrentJob, body: Buffer, params: CallParameters, origin?: string): Promise<Answer> {
    const { job } = current;
    let dataset: Dataset;
    try {
      dataset = payloadToDataset(body, params);
    } catch (e) {
      if (e instanceof PayloadError)
        return { status: 400, body: { error: `bad payload: ${e.message}`, job: job.name } };
      throw e;
    }
    const ready = this.ready.get(job.name);
    let loaded: LoadedJob;
    try {
      loaded = ready?.stamp === current.stamp ? ready : await this.load(current);
    } catch (e) {
      // A writer that does not parse (or whose leading magics fail) is the job's failure, answered and recorded as one.
      const answer = this.answerOf(job, nextExecutionId(), dataset);
      const error = `the job's writer cannot run: ${errorInFile(this.store.scriptFile(job.name, 'writer'), toScriptError(e))}`;
      const start = isoTime(Date.now());
      return this.finish(job, { ...answer, error }, 500, params, this.record(start, answer, 500, error));
    }
    const run = loaded.session.newRun({ dataset, pipeline: job.name, origin });
    const answer = this.answerOf(job, run.executionId, dataset);
    // Formatted now, while the clock's millisecond is the one other calls format too (isoTime remembers one).
    const start = isoTime(Date.now());
    try {
      await run.execute(loaded.transform);
    } catch (e) {
      const error = `the job's pipeline failed before the change log: ${toScriptError(e).message}`;
      return this.finish(job, { ...answer, error }, 500, params, this.record(start, answer, 500, error));
    }
    let keys: string[] | undefined;
    try {
      keys = loadKeys(loaded.load, run, run.dataset);
    } catch (e) {
      const error = `the job's pipeline failed before the change log: ${toScriptError(e).message}`;
      return this.finish(job, { ...answer, error }, 500, params, this.record(start, answer, 500, error));
    }
    if (job.saveSample) this.store.saveSample(job.name, body);
    const own = !run.changeLog?.file;
    const captured = run.changeLog;
    const log = own
      ? this.logOf(job, run.executionId, run.dataset, keys ?? [], params.startWriter)
      : keys
        ? { ...captured!, keys }
        : captured!;
    answer.changeLog = own ? this.workspaceRoot + log.file!.path : localPath(log);
    // A CAPTURE names its log by an id of its own when the run's was taken (or a later log is in its folder).
    answer.executionId = log.executionId;
    answer.rows = log.upserts.rowCount + log.deletes.rowCount;
    if (!params.startWriter) {
      // The run record rides in the same batch as the log: the call waits for one flush, not two.
      const record = this.record(start, answer, 202);
      if (own) await this.writeLog(job, log, answer, record);
      return this.finish(job, answer, 202, params, record, own);
    }
    if (own) await this.writeLog(job, log, answer);
    answer.writer.started = true;
    try {
      await playChangeLog(run, log, loaded);
      answer.writer.success = true;
      return this.finish(job, answer, 200, params, this.record(start, answer, 200));
    } catch (e) {
      answer.writer.success = false;
      answer.writer.error = toScriptError(e).message;
      return this.finish(job, answer, 500, params, this.record(start, answer, 500, answer.writer.error));
    }
  }

  /** The answer of a call before its change log is written. */
  private answerOf(job: JobDefinition, executionId: string, dataset: Dataset): CallAnswer {
    return {
      executionId,
      job: job.name,
      changeLog: null,
      rows: dataset.rowCount,
      writer: { started: false, success: null, error: null },
    };
  }

  /** Closes the job sessions (their HTTP pools) and, once the logs handed over are published, the group commit's thread. */
  async close(): Promise<void> {
    const loading = [...this.loaded.values()];
    this.loaded.clear();
    this.ready.clear();
    await Promise.allSettled(loading.map(async (l) => (await l).session.close()));
    await this.logs.close();
  }

  /**
   * The webhook's own change log: every row an insert, named by the run's execution id in the job's
   * store (`<workspace>/changelogs/<job>/<job>_<id>.eds`). Execution ids only grow, so a name is never
   * reused; the group commit makes sure of it rather than replace a log.
   */
  private logOf(
    job: JobDefinition,
    executionId: string,
    dataset: Dataset,
    keys: string[],
    forWriter: boolean,
  ): CurrentChangeLog {
    return {
      upserts: dataset,
      // The writer plays a delete stream of the upserts' columns. Plain empty columns: typed storage for
      // no rows allocated ~0.9 KB a call (heap profile); without the writer none is made at all.
      deletes: forWriter
        ? new Dataset(
            dataset.columns,
            dataset.columns.map(() => []),
          )
        : Dataset.empty(),
      keys,
      executionId,
      file: { drive: this.workspace, path: this.logPath(job, executionId) },
    };
  }

  /** The log's path in the workspace. Joined by hand: a job name is one path segment (checkJobName), and path.join costs a call more. */
  private logPath(job: JobDefinition, executionId: string): string {
    return `${LOG_FOLDER}${sep}${job.name}${sep}${job.name}_${executionId}${EXTENSION}`;
  }

  /**
   * Writes the log durably to `answer.changeLog`; `record`, the call's run record, is appended in the
   * same batch. A name already taken — by another listener on the workspace, numbering its logs from
   * the same clock — is never replaced: the log takes the next execution id, and the answer and the
   * record follow it (the group commit appends no record for the log it refused).
   */
  private async writeLog(job: JobDefinition, log: CurrentChangeLog, answer: CallAnswer, record?: RunRecord) {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.writeLogAs(job, log, answer.changeLog!, record);
        return;
      } catch (e) {
        if (!(e instanceof ChangeLogExists) || attempt === NAME_ATTEMPTS) throw e;
      }
      const executionId = nextExecutionId();
      log.executionId = executionId;
      log.file = { drive: this.workspace, path: this.logPath(job, executionId) };
      answer.executionId = executionId;
      answer.changeLog = this.workspaceRoot + log.file.path;
      if (record) record.id = executionId;
    }
  }

  /**
   * One attempt of `writeLog` at `path`: ChangeLogExists when the name is taken. Not an async
   * function of its own: the caller awaits the write itself, a promise less a call.
   */
  private writeLogAs(
    job: JobDefinition,
    log: CurrentChangeLog,
    path: string,
    record: RunRecord | undefined,
  ): Promise<unknown> {
    const { upserts } = log;
    const line = record && { path: this.store.runs(job.name).file, text: jsonLine(record) };
    return writeChangeLog(
      path,
      upserts,
      Dataset.empty(),
      {
        executionId: log.executionId,
        pipeline: job.name,
        name: job.name,
        keys: log.keys,
        inserts: upserts.rowCount,
        updates: 0,
      },
      {
        // Written in the same turn as the log is handed over, so both go in one batch.
        publish: (bytes) => this.logs.publish(path, [bytes], { overwrite: false, line }),
        compress: upserts.rowCount > SMALL_LOG_ROWS,
        // A frame as large as the payload: the encoder's buffers are sized by it, and a call is usually small.
        frameRows: Math.min(DEFAULT_FRAME_ROWS, Math.max(upserts.rowCount, 1)),
      },
    );
  }

  private record(start: string, answer: CallAnswer, status: number, error?: string): RunRecord {
    return {
      id: answer.executionId,
      by: 'webhook',
      start,
      end: isoTime(Date.now()),
      rows: answer.rows,
      outcome: status >= 500 ? 'failure' : 'success',
      ...(error ? { error } : {}),
    };
  }

  /**
   * Answers the call once its run record is durable (`recorded`: it went with the log), after the
   * job's triggers. With nothing left to wait for (a call with startwriter=0 and no triggers), the
   * answer itself: `call` then resolves with it, without a promise more and the turns it takes.
   */
  private finish(
    job: JobDefinition,
    body: CallAnswer & { error?: string },
    status: number,
    params: CallParameters,
    record: RunRecord,
    recorded = false,
  ): Answer | Promise<Answer> {
    if (recorded && (params.bypassTriggers || job.triggers.length === 0)) return { status, body };
    return this.finishLater(job, body, status, params, record, recorded);
  }

  private async finishLater(
    job: JobDefinition,
    body: CallAnswer & { error?: string },
    status: number,
    params: CallParameters,
    record: RunRecord,
    recorded: boolean,
  ): Promise<Answer> {
    if (!recorded) await this.logs.append(this.store.runs(job.name).file, jsonLine(record));
    if (!params.bypassTriggers && job.triggers.length > 0)
      await runTriggers(this.store, job, record, { by: 'trigger', report: this.report });
    return { status, body };
  }

  /** The job's writer, parsed once and again whenever its files change. */
  private async load({ job, stamp }: CurrentJob): Promise<LoadedJob> {
    const known = this.loaded.get(job.name);
    if (known && (await known.catch(() => undefined))?.stamp === stamp) return known;
    // Calls arriving while the job loads share one session; a failed load is tried again next call.
    const loading = this.loadWriter(job, stamp);
    this.loaded.set(job.name, loading);
    this.ready.delete(job.name);
    loading.then(
      (l) => this.loaded.get(job.name) === loading && this.ready.set(job.name, l),
      () => this.loaded.get(job.name) === loading && this.loaded.delete(job.name),
    );
    if (known) void known.then((k) => k.session.close());
    return loading;
  }

  private async loadWriter(job: JobDefinition, stamp: string): Promise<LoadedJob> {
    continueAfter(lastIdIn(join(this.store.workspace, LOG_FOLDER, job.name), job.name));
    const writer = await openWriter(this.store, job);
    if (this.shown) writer.session.output.subscribe(this.shown);
    return { stamp, ...writer };
  }
}

/** Where a log is on this machine; its path on its drive for a drive that is not local. */
function localPath(log: CurrentChangeLog): string {
  const { drive, path } = log.file!;
  return drive.local ? drive.local(path) : path;
}
