import { mkdirSync } from 'node:fs';
import { Dataset } from './dataset/dataset';
import { ScriptError, toScriptError } from './errors';
import type { ExecuteOptions, Result } from './results';
import type { Statement } from './script/ast';
import { parseScript } from './script/parser';
import type { RuntimeState } from './state';
import { ConnectionStore } from './workspace/connections';
import { sessionFolders } from './workspace/location';
import { ExitSignal, type CommandContext } from './commands/command';
import { commandFor } from './commands/registry';
import { runMagic } from './magics/index';
import { splitCell } from './script/cell';
import { AsyncQueue } from './util/async-queue';
import { closeHttpPools } from './sources/http/pools';
import './commands/index';

export interface SessionOptions {
  /** Workspace folder; default $SQLCDC_HOME or ./.sqlcdc under cwd. */
  workspace?: string;
  /** Folder relative file paths resolve against; default process.cwd(). */
  cwd?: string;
}

export const DEFAULT_DISPLAY_LIMIT = 20;

/**
 * One interpreter session: the pipeline dataset and everything a script can reach. Both front ends
 * (REPL, Jupyter kernel) and the CLI drive this API and nothing else; it never prints.
 */
export class Session {
  readonly state: RuntimeState;
  readonly connections: ConnectionStore;
  /** Rows shown when a dataset is displayed (%limit). */
  displayLimit = DEFAULT_DISPLAY_LIMIT;
  /**
   * Where results emitted after their cell finished go (a listener or timer a statement started):
   * front ends show them under the cell that started them. Unset, they are dropped.
   */
  onLateResult?: (result: Result) => void;

  constructor(options: SessionOptions = {}) {
    const { cwd, workspace } = sessionFolders(options);
    mkdirSync(workspace, { recursive: true });
    this.connections = new ConnectionStore(workspace);
    this.state = {
      workspace,
      cwd,
      dataset: Dataset.empty(),
      statebag: new Map(),
      jsonSettings: new Map(),
      pipelineVariables: new Map(),
    };
  }

  get dataset(): Dataset {
    return this.state.dataset;
  }

  /** %reset: a new empty pipeline; workspace, connections and variables stay. */
  reset(): void {
    this.state.dataset = Dataset.empty();
    this.state.statebag.clear();
    this.state.lastHttp = undefined;
  }

  /**
   * Runs a cell: leading `%magic` lines, then SQL CDC statements in order. Yields results as they
   * come. The first failing statement yields one error and stops the cell; the pipeline is then as it
   * was before that statement. When any statement produced a dataset, the cell ends with it as a table.
   */
  async *execute(text: string, options: ExecuteOptions = {}): AsyncGenerator<Result> {
    const signal = options.signal ?? new AbortController().signal;
    const { magics, body, bodyOffset } = splitCell(text);
    for (const magic of magics) {
      try {
        yield* runMagic(this, magic);
      } catch (e) {
        yield { kind: 'error', error: toScriptError(e, undefined, `%${magic.name}`), source: text };
        return;
      }
    }
    if (!body.trim()) return;

    let statements: Statement[];
    try {
      statements = parseScript(text, bodyOffset).statements;
    } catch (e) {
      yield { kind: 'error', error: toScriptError(e), source: text };
      return;
    }

    this.state.statebag.clear();
    const queue = new AsyncQueue<Result>();
    let changed = false;
    let open = true;
    const emit = (r: Result) => (open ? queue.push(r) : this.onLateResult?.(r));
    const run = (async () => {
      try {
        for (const stmt of statements) {
          const before = this.state.dataset;
          const after = await this.runStatement(stmt, before, signal, emit);
          if (after !== before) {
            this.state.dataset = after;
            changed = true;
          }
        }
      } catch (e) {
        if (!(e instanceof ExitSignal)) {
          queue.push({ kind: 'error', error: toScriptError(e), source: text });
          return;
        }
        if (e.dataset) {
          this.state.dataset = e.dataset;
          changed = true;
        }
      } finally {
        if (changed && !queue.failed) queue.push({ kind: 'table', dataset: this.state.dataset, limit: this.displayLimit });
        open = false;
        queue.close();
      }
    })();
    yield* queue;
    await run;
  }

  /** Runs one statement on `input` and returns the resulting dataset (input itself when unchanged). */
  private async runStatement(
    stmt: Statement,
    input: Dataset,
    signal: AbortSignal,
    emit: (r: Result) => void,
  ): Promise<Dataset> {
    if (signal.aborted) throw new ScriptError('cancelled', 'cancelled', stmt.pos, stmt.keyword);
    const previous = this.state.dataset;
    this.state.dataset = input;
    const ctx: CommandContext = {
      state: this.state,
      connections: this.connections,
      signal,
      emit,
      runStatements: async (list, dataset) => {
        let current = dataset;
        for (const s of list) current = await this.runStatement(s, current, signal, emit);
        return current;
      },
    };
    try {
      const out = await commandFor(stmt)(stmt, ctx);
      if (signal.aborted) throw new ScriptError('cancelled', 'cancelled', stmt.pos, stmt.keyword);
      return out ?? input;
    } catch (e) {
      if (e instanceof ExitSignal) throw e;
      throw toScriptError(e, stmt.pos, stmt.keyword);
    } finally {
      this.state.dataset = previous;
    }
  }

  /** Releases what the session holds open (HTTP keep-alive pools); front ends call it on exit. */
  async close(): Promise<void> {
    await closeHttpPools(this.state);
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
