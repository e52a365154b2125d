import type { CommitWrite } from './changelog/commit';
import type { Dataset } from './dataset/dataset';
import type { Value } from './dataset/types';
import type { Drive } from './drives/drive';
import type { Resources } from './resources';
import type { ConnectionStore } from './workspace/connections';

/** Facts about the last SELECT FROM HTTP of a run, read by #last_http_*(). */
export interface LastHttp {
  status: number;
  headers: Record<string, string>;
  content: string;
  mediaType: string;
  byteCount: number;
}

/**
 * What lives as long as the session, shared by every run on it: a cell, a job run and a webhook call
 * see the same workspace, connections and settings.
 */
export interface SessionEnv {
  /** The workspace folder: connections, variables, certificates, change logs, CDC state, jobs. */
  readonly workspace: string;
  /** Relative file paths (SELECT FROM DRIVE, PATH) resolve against this. */
  readonly cwd: string;
  readonly connections: ConnectionStore;
  /** What the session holds open (HTTP pools, database pools, listeners, timers); closed with it. */
  readonly resources: Resources;
  /** #setjsonsettings keys → values, lowercase keys; a session-wide setting, like the agent's. */
  readonly jsonSettings: Map<string, string>;
  /**
   * Pipeline variables the session gives every run on it, lowercase names: `@webhookurl` while a
   * `%webhook start` listener runs. A run's own variables of the same name win.
   */
  readonly variables: Map<string, Value>;
  /**
   * The script file `sqlcdc run` runs (absolute) and the pipeline it named after it; absent for a
   * notebook, the REPL and a job. CAPTURE notes it as the pipeline's (cdc/script-owner.ts).
   */
  readonly script?: { file: string; pipeline: string };
}

/**
 * What lives for one execution (a cell, a job run, a webhook call) and no longer: two runs on one
 * session never share these, so a webhook call cannot touch the statebag of the cell that is running.
 */
export interface RunState {
  /** Unix milliseconds, strictly increasing within the process: names change logs (decision C.3). */
  readonly executionId: string;
  /** The pipeline's name: the script, notebook or job it runs for; keys CDC state and change logs. */
  readonly pipeline: string;
  /** #statebag values. */
  readonly statebag: Map<string, Value>;
  /** The run's own pipeline variables, lowercase names (@executionId once CAPTURE or LOAD ran) → values. */
  readonly pipelineVariables: Map<string, Value>;
  /**
   * `{{@name}}` (any case): the run's own variable, else @executionId (its current change log's, else the run's) and @highwatermark
   * (the pipeline's stored one, null before the first), else the session's; undefined for an unknown name.
   */
  variable(name: string): Value | undefined;
  /** The names `variable` knows, for messages. */
  variableNames(): string[];
  /**
   * A `#data.calc_hwm*` result: the run keeps the larger of its proposals (`larger`) and stores it as
   * the pipeline's high watermark once every statement has succeeded.
   */
  proposeHighWatermark(value: Value, larger: (a: Value, b: Value) => Value): void;
  lastHttp?: LastHttp;
  /** The change log the run works on, from CAPTURE or LOAD. */
  changeLog?: CurrentChangeLog;
  /**
   * The id the watermark files the run writes carry: a job run's record id (so the next start can tell
   * whether a killed run's watermarks moved), else the run's own execution id.
   */
  readonly commitId: string;
  /**
   * A watermark file to write once every statement of the run has succeeded (LOAD's), after the
   * atCommit and before the afterSuccess actions; a later write of the same file replaces it.
   */
  commitWrite(write: CommitWrite): void;
  /**
   * Something to do once every statement of the run has succeeded, just before its watermarks move
   * (after a job run recorded its success): what must count while the run may still fail, and never
   * once its watermarks moved, such as a finished push's progress record, ends here.
   */
  atCommit(action: () => Promise<void> | void): void;
  /** Something to do once every statement of the run has succeeded and its watermarks moved. */
  afterSuccess(action: () => Promise<void> | void): void;
  /**
   * Work for when the run ends, however it ends (SINK INTO DB … AUTO_CLEAN drops its table): run in
   * the reverse order of registration; a failure becomes a warning.
   */
  atEnd(task: () => Promise<void>): void;
}

/** Where a change log file is: the drive (a local folder or an FTP site) and its path there. */
export interface ChangeLogFile {
  drive: Drive;
  path: string;
}

/** The change log a run is working on (from CAPTURE or LOAD): what PUSH and SINK write. */
export interface CurrentChangeLog {
  upserts: Dataset;
  deletes: Dataset;
  /** The key columns the log was captured on (PUSH INTO DB merges by them). */
  keys: string[];
  /** The execution that captured it: names the log, keys idempotency of pushes. */
  executionId: string;
  /** The file it was written to or read from, when there is one. */
  file?: ChangeLogFile;
}

/** What a statement, a template or a function evaluates against. */
export interface Scope {
  readonly session: SessionEnv;
  readonly run: RunState;
  /** The dataset the statement received: what `#data.*` and expression aggregates read. */
  readonly dataset: Dataset;
}
