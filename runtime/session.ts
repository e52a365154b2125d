import { mkdirSync } from 'node:fs';
import { Dataset } from './dataset/dataset';
import type { Value } from './dataset/types';
import { toScriptError, type ScriptError } from './errors';
import { evaluateText } from './functions/evaluate';
import type { Magic, MagicHost, MagicTable } from './magics/magic';
import { cellMagic, magicTable, runCellMagic, runMagic, withoutMagicSecrets } from './magics/index';
import { OutputChannel } from './output';
import { Resources } from './resources';
import type { ExecuteOptions, Result } from './results';
import { Run } from './run';
import type { CurrentChangeLog, LastHttp, Scope, SessionEnv } from './scope';
import type { Statement } from './script/ast';
import { splitCell } from './script/cell';
import { parseScript } from './script/parser';
import { AsyncQueue } from './util/async-queue';
import { ConnectionStore } from './workspace/connections';
import { sessionFolders } from './workspace/location';
import { COMMANDS, type CommandTable } from './commands/table';

/** The signal of a run nobody cancels (a job run, a webhook call): one for all, rather than a controller per run. */
const UNCANCELLED = new AbortController().signal;
export interface SessionOptions {
  /** Workspace folder; default $SQLCDC_HOME, else the nearest .sqlcdc in cwd or a parent, else ./.sqlcdc. */
  workspace?: string;
  /** Folder relative file paths resolve against; default process.cwd(). */
  cwd?: string;
  /** The pipeline name of the session's cells (CDC state, change log names); default 'repl'. */
  pipeline?: string;
  /** Commands to use instead of (or beside) the language's own, by statement kind: for tests and embedders. */
  commands?: CommandTable;
  /** Magics of the front end, beside the language's (the kernel's %connect_info). */
  magics?: readonly Magic[];
  /** The script file the session runs (`sqlcdc run`), named `pipeline` after it: see SessionEnv.script. */
  script?: string;
}

export interface RunRequest {
  /** The dataset the run starts with (a webhook payload); default empty. */
  dataset?: Dataset;
  /** Default: the session's pipeline name. */
  pipeline?: string;
  signal?: AbortSignal;
  /** Labels the run's output on the session's output channel. */
  origin?: string;
  /** See ExecuteOptions.beforeCommit: a replay records its success there, as a job run does. */
  beforeCommit?: ExecuteOptions['beforeCommit'];
}

export const DEFAULT_DISPLAY_LIMIT = 20;

/**
 * One interpreter session: what lives as long as a front end (workspace, connections, settings, open
 * resources, the interactive pipeline) and the runs executed on it. The REPL, the Jupyter kernel and
 * the CLI drive this API and nothing else; it never prints.
 */
export class Session implements SessionEnv, MagicHost {
  readonly workspace: string;
  readonly cwd: string;
  readonly connections: ConnectionStore;
  readonly resources = new Resources();
  readonly jsonSettings = new Map<string, string>();
  readonly variables = new Map<string, Value>();
  /** Output arriving outside a running cell (late results, job runs, webhook calls), for front ends. */
  readonly output = new OutputChannel();
  readonly commands: CommandTable;
  readonly magics: MagicTable;
  pipeline: string;
  readonly script?: { file: string; pipeline: string };
  /** Rows shown when a dataset is displayed (%limit). */
  displayLimit = DEFAULT_DISPLAY_LIMIT;
  /**
   * What one cell hands the next: the pipeline dataset, the last HTTP response, and the change log of
   * the last CAPTURE or LOAD (so a PUSH in a later cell still sends its delete stream).
   */
  private interactive: { dataset: Dataset; lastHttp?: LastHttp; changeLog?: CurrentChangeLog } = {
    dataset: Dataset.empty(),
  };

  constructor(options: SessionOptions = {}) {
    const { cwd, workspace } = sessionFolders(options);
    mkdirSync(workspace, { recursive: true });
    this.workspace = workspace;
    this.cwd = cwd;
    this.connections = new ConnectionStore(workspace);
    this.pipeline = options.pipeline ?? 'repl';
    if (options.script !== undefined) this.script = { file: options.script, pipeline: this.pipeline };
    this.commands = options.commands ? { ...COMMANDS, ...options.commands } : COMMANDS;
    this.magics = magicTable(options.magics);
  }

  /** A session of its own for a job's run, on the same workspace (what jobs/ are handed, jobs/sessions.ts). */
  readonly openSession = (options: { workspace: string; pipeline: string; cwd?: string }): Session =>
    new Session(options);

  /** The interactive pipeline dataset: what the last cell left. */
  get dataset(): Dataset {
    return this.interactive.dataset;
  }

  /**
   * Makes `dataset` the interactive pipeline (an embedder's data, a webhook payload taken into the
   * session). The change log of the pipeline it replaces does not come along: a PUSH after it plays
   * the new dataset.
   */
  setDataset(dataset: Dataset): void {
    this.interactive = { ...this.interactive, dataset, changeLog: undefined };
  }

  /** %reset: a new empty pipeline; workspace, connections and variables stay. */
  reset(): void {
    this.interactive = { dataset: Dataset.empty() };
  }

  /**
   * Runs a cell: leading `%magic` lines, then SQL CDC statements in order, as one Run on the interactive
   * pipeline. Yields results as they come. The first failing statement yields one error and stops the
   * cell; the pipeline is then as it was before that statement. When any statement produced a dataset,
   * the cell ends with it as a table. Results emitted after the cell ended go to `output`.
   */
  async *execute(text: string, options: ExecuteOptions = {}): AsyncGenerator<Result> {
    const signal = options.signal ?? new AbortController().signal;
    const cell = cellMagic(text);
    if (cell) {
      try {
        yield* runCellMagic(this, cell);
      } catch (e) {
        yield this.failure(toScriptError(e, undefined, `%%${cell.line.name}`), text);
      }
      return;
    }
    const { magics, body, bodyOffset } = splitCell(text);
    // Parsed before the magics run: a cell that does not parse runs nothing (a `%reset` or `%var set`
    // above a typo would otherwise take effect in a cell reported as failed).
    let statements: Statement[] = [];
    try {
      if (body.trim()) statements = parseScript(text, bodyOffset).statements;
    } catch (e) {
      yield this.failure(toScriptError(e), text);
      return;
    }
    for (const magic of magics) {
      try {
        yield* runMagic(this, { ...magic, origin: options.origin, signal });
      } catch (e) {
        yield this.failure(toScriptError(e, undefined, `%${magic.name}`), text);
        return;
      }
    }
    if (!body.trim()) return;

    const queue = new AsyncQueue<Result>();
    let open = true;
    const origin = options.origin;
    const run = new Run(this, {
      dataset: this.interactive.dataset,
      lastHttp: this.interactive.lastHttp,
      changeLog: this.interactive.changeLog,
      pipeline: this.pipeline,
      signal,
      commands: this.commands,
      beforeCommit: options.beforeCommit,
      commitId: options.commitId,
      emit: (result) => (open ? queue.push(result) : this.output.publish({ origin, result })),
    });
    const done = (async () => {
      try {
        await run.execute(statements);
      } catch (e) {
        queue.push(this.failure(toScriptError(e), text));
      } finally {
        this.interactive = { dataset: run.dataset, lastHttp: run.lastHttp, changeLog: run.changeLog };
        if (run.changed && !queue.failed) queue.push({ kind: 'table', dataset: run.dataset, limit: this.displayLimit });
        open = false;
        queue.close();
      }
    })();
    yield* queue;
    await done;
  }

  /**
   * `text` (a cell) with the secrets of its magic lines masked, each as wide as written: what anyone but
   * its author may be shown of it (the kernel's echo of a cell to every client).
   */
  withoutMagicSecrets(text: string): string {
    return withoutMagicSecrets(text, this.magics);
  }

  /**
   * A cell's error as its result. Its source is the cell, or the script the error is placed in (a job's,
   * under `%job run`), with the secrets of its magic lines masked: an API user reads it whole, where a
   * front end shows only the error's line.
   */
  private failure(error: ScriptError, text: string): Result {
    if (error.script) error.script = { ...error.script, text: this.withoutMagicSecrets(error.script.text) };
    return { kind: 'error', error, source: error.script?.text ?? this.withoutMagicSecrets(text) };
  }

  /**
   * A run apart from the interactive pipeline (a job run, a webhook call): its own dataset and statebag,
   * its output on the session's output channel under `origin`. The caller runs statements on it.
   */
  newRun(request: RunRequest = {}): Run {
    const origin = request.origin;
    return new Run(this, {
      dataset: request.dataset ?? Dataset.empty(),
      pipeline: request.pipeline ?? this.pipeline,
      signal: request.signal ?? UNCANCELLED,
      commands: this.commands,
      beforeCommit: request.beforeCommit,
      emit: (result) => this.output.publish({ origin, result }),
    });
  }

  /**
   * A scope over the interactive pipeline, outside any cell (user_expressions, completion previews):
   * it sees what the next cell would, the last HTTP response and the change log included.
   */
  scope(dataset: Dataset = this.interactive.dataset): Scope {
    const run = this.newRun({ dataset });
    run.lastHttp = this.interactive.lastHttp;
    run.changeLog = this.interactive.changeLog;
    return { session: this, run, dataset };
  }

  /** Evaluates a text with functions once (as PRINT does) against the interactive pipeline. */
  evaluate(text: string): string {
    return evaluateText(text, this.scope());
  }

  /** Releases everything the session holds open (HTTP pools, listeners…); front ends call it on exit. */
  async close(): Promise<void> {
    await this.resources.close();
  }

  /** Convenience for tests and the CLI: runs a cell, collects its results, throws its error. */
  async run(text: string, options: ExecuteOptions = {}): Promise<Result[]> {
    const out: Result[] = [];
    for await (const r of this.execute(text, options)) {
      if (r.kind === 'error') throw r.error;
      out.push(r);
    }
    return out;
  }
}
