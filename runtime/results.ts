import type { ScriptError } from './errors';
import type { Dataset } from './dataset/dataset';
import type { CommitWrite } from './changelog/commit';

/**
 * What `Session.execute` yields. Front ends render these; the runtime never prints.
 * - table: a dataset to show (the pipeline after a statement, or a listing from a magic);
 *   `limit` is the display limit in force (rows beyond it are cut, the total is shown).
 * - message: plain text for the user (PRINT output, "12 rows loaded", magic output).
 * - warning: something the user should notice that did not stop the cell.
 * - display: a rich output only a notebook can show (a chart): `data` maps MIME types to their
 *   content, `text` says in words what it shows; terminals print `needs Jupyter: <text>`.
 * - progress: how far a long statement (a push) got; the same `id` comes again with newer text, and a
 *   last time with `done`. Notebooks update one display in place; terminals redraw one line.
 * - error: the statement that failed; the cell stops after it.
 */
export type Result =
  | { kind: 'table'; dataset: Dataset; limit: number; title?: string }
  | { kind: 'message'; text: string }
  | { kind: 'warning'; text: string }
  | { kind: 'display'; data: Record<string, unknown>; text: string }
  | { kind: 'progress'; id: string; text: string; done: boolean }
  | { kind: 'error'; error: ScriptError; source: string };

export interface ExecuteOptions {
  /** Aborting it cancels the running statement (HTTP calls and waits included). */
  signal?: AbortSignal;
  /**
   * Labels output this cell's statements emit after the cell ended (on Session.output), so the front end
   * can show it where it belongs: the kernel passes the execute_request's msg_id.
   */
  origin?: string;
  /**
   * Called once every statement succeeded, before the run's watermark files are written, with the
   * dataset the run ends with and those writes: a job run records its success durably there with the
   * writes, so a kill after its watermarks moved never loses the record, and a kill before they moved
   * leaves what the next start needs to move them (jobs/runner.ts, jobs/recovery.ts).
   */
  beforeCommit?: (dataset: Dataset, writes: readonly CommitWrite[]) => Promise<void>;
  /** The id the run's watermark files carry (RunState.commitId): a job run's record id. */
  commitId?: string;
}

/** What a front end without rich output (REPL, CLI) prints for a display result. */
export function displayFallback(r: Extract<Result, { kind: 'display' }>): string {
  return `needs Jupyter: ${r.text}`;
}
