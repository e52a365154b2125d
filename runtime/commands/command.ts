import type { Dataset } from '../dataset/dataset';
import type { Result } from '../results';
import type { Scope } from '../scope';
import type { Statement } from '../script/ast';

/**
 * What a command gets besides its statement and input: the scope it evaluates in (`dataset` is the
 * input, for `#data.*`), the run's signal and output, and a way to run nested statements.
 */
export interface CommandContext extends Scope {
  /** Cancels the statement: pass it to every HTTP call, wait and long loop. */
  signal: AbortSignal;
  /** Sends a result (message, warning, table) to the front end while the statement runs. */
  emit(result: Result): void;
  /** Runs nested statements (APPLY PIPELINE, per page) on a dataset and returns the result. */
  runStatements(statements: Statement[], dataset: Dataset): Promise<Dataset>;
}

/**
 * A command gives a statement its meaning. It receives the pipeline dataset as `input`, returns the new
 * one (undefined when unchanged), never mutates `input` (see Dataset's ownership rule), and reports
 * failure by throwing a ScriptError.
 */
export type Command<S extends Statement = Statement> = (
  stmt: S,
  input: Dataset,
  ctx: CommandContext,
) => Promise<Dataset | void>;

/** Thrown by EXIT: stops the script; the run keeps `dataset` as the pipeline. */
export class ExitSignal {
  constructor(readonly dataset: Dataset | undefined) {}
}
