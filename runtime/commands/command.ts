import type { Dataset } from '../dataset/dataset';
import type { Result } from '../results';
import type { Statement } from '../script/ast';
import type { RuntimeState } from '../state';
import type { ConnectionStore } from '../workspace/connections';

/** What a command gets besides its statement. */
export interface CommandContext {
  state: RuntimeState;
  connections: ConnectionStore;
  /** Cancels the statement: pass it to every HTTP call, wait and long loop. */
  signal: AbortSignal;
  /** Sends a result (message, warning, table) to the front end while the statement runs. */
  emit(result: Result): void;
  /** Runs nested statements (APPLY PIPELINE, per page) on a dataset and returns the result. */
  runStatements(statements: Statement[], dataset: Dataset): Promise<Dataset>;
}

/**
 * A command gives a statement its meaning. It returns the new pipeline dataset, or undefined when
 * the dataset is unchanged. It never mutates `ctx.state.dataset` (see Dataset's ownership rule) and
 * reports failure by throwing a ScriptError.
 */
export type Command<S extends Statement = Statement> = (stmt: S, ctx: CommandContext) => Promise<Dataset | void>;

/** Thrown by EXIT: stops the script; the session keeps `dataset` as the pipeline. */
export class ExitSignal {
  constructor(readonly dataset: Dataset | undefined) {}
}
