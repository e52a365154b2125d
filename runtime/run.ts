import type { Dataset } from './dataset/dataset';
import type { Value } from './dataset/types';
import { applyCommit, type CommitWrite } from './changelog/commit';
import { highWatermarkWrite, readHighWatermark } from './changelog/watermark';
import { ScriptError, toScriptError } from './errors';
import { nextExecutionId } from './execution-id';
import type { Result } from './results';
import type { CurrentChangeLog, LastHttp, RunState, SessionEnv } from './scope';
import type { Statement } from './script/ast';
import { ExitSignal, type CommandContext } from './commands/command';
import { checkScript } from './commands/checks';
import { commandFor, type CommandTable } from './commands/table';

/** Scripts that passed checkScript; parsed statements are not changed afterwards. */
const checked = new WeakSet<readonly Statement[]>();

export interface RunOptions {
  /** The dataset the run starts with: the session's pipeline for a cell, a payload for a webhook call. */
  dataset: Dataset;
  pipeline: string;
  signal: AbortSignal;
  /** Where the run's output goes while it runs and after (see Session.execute). */
  emit: (result: Result) => void;
  commands: CommandTable;
  /** #last_http_*() of the run before this one, for cells, which continue each other. */
  lastHttp?: LastHttp;
  /** The change log of the cell before, likewise. */
  changeLog?: CurrentChangeLog;
  /** See ExecuteOptions.beforeCommit. */
  beforeCommit?: (dataset: Dataset, writes: readonly CommitWrite[]) => Promise<void>;
  /** See ExecuteOptions.commitId. */
  commitId?: string;
}

/**
 * One execution: a cell, a job run or a webhook call. It owns its dataset and everything that lives for
 * one execution; the session only lends it the workspace, connections and open resources. Each statement
 * receives its input dataset explicitly and returns its output, so two runs on one session (a cell and a
 * webhook call arriving meanwhile) never see each other's dataset or statebag.
 */
export class Run implements RunState {
  readonly executionId = nextExecutionId();
  readonly commitId: string;
  readonly pipeline: string;
  // Made at first use: most webhook calls' runs touch neither, and a listener makes a run per call.
  private bag?: Map<string, Value>;
  private variables?: Map<string, Value>;
  lastHttp?: LastHttp;
  changeLog?: CurrentChangeLog;
  /** The pipeline as of the last statement that completed. */
  dataset: Dataset;
  /** Some statement produced a new dataset (the cell then shows it). */
  changed = false;
  readonly signal: AbortSignal;
  readonly emit: (result: Result) => void;
  private readonly commands: CommandTable;
  // The four below are made at first use too: a webhook call's run usually has none of them.
  /** Watermark files to write once the run succeeded, by file. */
  private writes?: Map<string, CommitWrite>;
  private onCommit?: (() => Promise<void> | void)[];
  private onSuccess?: (() => Promise<void> | void)[];
  private endTasks?: (() => Promise<void>)[];
  private nextHighWatermark: Value = null;
  private readonly beforeCommit?: (dataset: Dataset, writes: readonly CommitWrite[]) => Promise<void>;

  constructor(
    readonly session: SessionEnv,
    options: RunOptions,
  ) {
    this.dataset = options.dataset;
    this.pipeline = options.pipeline;
    this.signal = options.signal;
    this.emit = options.emit;
    this.commands = options.commands;
    this.lastHttp = options.lastHttp;
    this.changeLog = options.changeLog;
    this.beforeCommit = options.beforeCommit;
    this.commitId = options.commitId ?? this.executionId;
  }

  get statebag(): Map<string, Value> {
    return (this.bag ??= new Map());
  }

  get pipelineVariables(): Map<string, Value> {
    return (this.variables ??= new Map());
  }

  /**
   * Runs the statements in order. The first failure throws its ScriptError, and `dataset` is then as it
   * was before the failing statement. EXIT ends the run early, successfully. Rules about the script as
   * a whole are checked before its first statement runs.
   */
  async execute(statements: readonly Statement[]): Promise<void> {
    // A script is checked once: a job's parsed script runs again for every webhook call.
    if (!checked.has(statements)) {
      checkScript(statements);
      checked.add(statements);
    }
    try {
      try {
        for (const stmt of statements) {
          const before = this.dataset;
          this.dataset = await this.statement(stmt, before);
          if (this.dataset !== before) this.changed = true;
        }
      } catch (e) {
        if (!(e instanceof ExitSignal)) throw e;
        if (e.dataset) {
          this.dataset = e.dataset;
          this.changed = true;
        }
      }
      const writes = this.commitWrites();
      if (this.beforeCommit) await this.beforeCommit(this.dataset, writes);
      if (this.onCommit) for (const action of this.onCommit.splice(0)) await action();
      applyCommit(this.session.workspace, writes);
      if (this.onSuccess) for (const action of this.onSuccess.splice(0)) await action();
    } finally {
      if (this.endTasks) await this.end(this.endTasks);
    }
  }

  /**
   * Something to do once every statement of the run has succeeded, before its watermarks move: a
   * finished push's progress record is removed this way (targets/resume.ts says why then).
   */
  atCommit(action: () => Promise<void> | void): void {
    (this.onCommit ??= []).push(action);
  }

  /**
   * Something to do once every statement of the run has succeeded and its watermarks moved, and only
   * then: LOAD drops the ids of played logs its watermark passed this way.
   */
  afterSuccess(action: () => Promise<void> | void): void {
    (this.onSuccess ??= []).push(action);
  }

  /** LOAD's watermark moves this way, so a failing push loads the same change log again next time. */
  commitWrite(write: CommitWrite): void {
    (this.writes ??= new Map()).set(write.file, write);
  }

  /** What the run writes once it succeeded: LOAD's watermarks, then the high watermark it proposed. */
  private commitWrites(): CommitWrite[] {
    const writes = this.writes ? [...this.writes.values()] : [];
    if (this.nextHighWatermark !== null)
      writes.push(highWatermarkWrite(this.session.workspace, this.pipeline, this.nextHighWatermark, this.commitId));
    return writes;
  }

  variable(name: string): Value | undefined {
    const key = name.toLowerCase();
    const own = this.variables?.get(key);
    if (own !== undefined) return own;
    // The change log a later cell carries over is still the one a PUSH there sends: its id, as in one script.
    if (key === 'executionid') return this.changeLog?.executionId ?? this.executionId;
    if (key === 'highwatermark') {
      // Read once per run: the value the run started from, whatever it proposes meanwhile.
      const stored = readHighWatermark(this.session.workspace, this.pipeline);
      this.pipelineVariables.set(key, stored);
      return stored;
    }
    return this.session.variables.get(key);
  }

  variableNames(): string[] {
    const names = new Set([
      'executionId',
      'highwatermark',
      ...(this.variables?.keys() ?? []),
      ...this.session.variables.keys(),
    ]);
    names.delete('executionid');
    return [...names].sort();
  }

  proposeHighWatermark(value: Value, larger: (a: Value, b: Value) => Value): void {
    if (value === null || value === '') return;
    this.nextHighWatermark = this.nextHighWatermark === null ? value : larger(this.nextHighWatermark, value);
  }

  atEnd(task: () => Promise<void>): void {
    (this.endTasks ??= []).push(task);
  }

  private async end(tasks: (() => Promise<void>)[]): Promise<void> {
    for (const task of tasks.splice(0).reverse()) {
      try {
        await task();
      } catch (e) {
        this.emit({ kind: 'warning', text: toScriptError(e).message });
      }
    }
  }

  /** Runs one statement on `input` and returns the resulting dataset (input itself when unchanged). */
  private async statement(stmt: Statement, input: Dataset): Promise<Dataset> {
    this.throwIfCancelled(stmt);
    const ctx: CommandContext = {
      session: this.session,
      run: this,
      dataset: input,
      signal: this.signal,
      emit: this.emit,
      runStatements: this.runStatements,
    };
    try {
      const out = await commandFor(this.commands, stmt)(stmt, input, ctx);
      this.throwIfCancelled(stmt);
      return out ?? input;
    } catch (e) {
      if (e instanceof ExitSignal) throw e;
      throw toScriptError(e, stmt.pos, stmt.keyword);
    }
  }

  /** Runs nested statements (APPLY PIPELINE); one function per run, not per statement. */
  private readonly runStatements = async (list: readonly Statement[], dataset: Dataset): Promise<Dataset> => {
    let current = dataset;
    for (const s of list) current = await this.statement(s, current);
    return current;
  };

  private throwIfCancelled(stmt: Statement): void {
    if (this.signal.aborted) throw new ScriptError('cancelled', 'cancelled', stmt.pos, stmt.keyword);
  }
}
