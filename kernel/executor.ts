import { toScriptError, type Result, type Session } from '../runtime/index';
import { displayBundle, errorContent, tableBundle, type ErrorContent, type MimeBundle } from './display';
import type { History } from './history';

export interface ExecuteRequest {
  code: string;
  silent?: boolean;
  store_history?: boolean;
  user_expressions?: Record<string, string>;
  stop_on_error?: boolean;
}

type UserExpressionResult =
  { status: 'ok'; data: MimeBundle; metadata: Record<string, never> } | ({ status: 'error' } & ErrorContent);

export type ExecuteReply = { execution_count: number } & (
  | { status: 'ok'; payload: never[]; user_expressions: Record<string, UserExpressionResult> }
  | ({ status: 'error' } & ErrorContent)
);

/** Sends one IOPub message under the request being handled (see OutputContext). */
export type Publish = (msgType: string, content: object) => void;

/**
 * Runs execute_requests on the session and turns its results into IOPub output, in order:
 * execute_input, then each message, warning, table, display and error as it comes, the last table of the
 * cell as its execute_result. One request runs at a time (the shell queue guarantees it).
 */
export class Executor {
  private count = 0;
  private readonly progressShown = new Set<string>();
  private running?: AbortController;

  constructor(
    private readonly session: Session,
    private readonly history: History,
    private readonly publish: Publish,
  ) {
    // Output after its cell ended (a timer or listener a statement started) still runs in that cell's
    // async context, so publish sends it under that cell (OutputContext).
    session.output.subscribe((item) => this.show(item.result));
  }

  get executionCount(): number {
    return this.count;
  }

  async execute(req: ExecuteRequest): Promise<ExecuteReply> {
    const silent = req.silent === true;
    const storeHistory = !silent && req.store_history !== false;
    if (storeHistory) {
      this.count++;
      this.history.add(this.count, req.code);
    }
    // Every client on IOPub gets the echo, not only the one that sent the cell: its magics' secrets masked.
    if (!silent)
      this.publish('execute_input', { code: this.session.withoutMagicSecrets(req.code), execution_count: this.count });

    const controller = new AbortController();
    this.running = controller;
    let failure: ErrorContent | undefined;
    // A table is held back until the next result: the cell's last one is its execute_result.
    let held: Extract<Result, { kind: 'table' }> | undefined;
    const take = (r: Result) => {
      if (r.kind === 'error') failure ??= errorContent(r.error, r.source);
      if (silent) return;
      if (held) this.show(held);
      held = undefined;
      if (r.kind === 'table') held = r;
      else this.show(r);
    };
    try {
      for await (const r of this.session.execute(req.code, { signal: controller.signal })) take(r);
    } catch (e) {
      // The session reports failures as results; anything thrown is a defect, shown like an error.
      take({ kind: 'error', error: toScriptError(e), source: this.session.withoutMagicSecrets(req.code) });
    } finally {
      if (this.running === controller) this.running = undefined;
    }
    if (held) {
      this.publish('execute_result', {
        execution_count: this.count,
        data: tableBundle(held.dataset, held.limit, held.title),
        metadata: {},
      });
    }
    if (failure) return { status: 'error', execution_count: this.count, ...failure };
    return {
      status: 'ok',
      execution_count: this.count,
      payload: [],
      user_expressions: this.evaluate(req.user_expressions ?? {}),
    };
  }

  /** Aborts the running cell, if any: its statement ends with a 'cancelled' error, the pipeline stays as before it. */
  interrupt(): void {
    this.running?.abort();
  }

  /** One result as IOPub output outside the execute_result slot: also used for results arriving after their cell. */
  private show(r: Result): void {
    switch (r.kind) {
      case 'table':
        this.publish('display_data', { data: tableBundle(r.dataset, r.limit, r.title), metadata: {}, transient: {} });
        break;
      case 'display':
        this.publish('display_data', { data: displayBundle(r.data, r.text), metadata: {}, transient: {} });
        break;
      case 'progress': {
        // One display per progress id, updated in place (update_display_data), as tqdm does in notebooks.
        const type = this.progressShown.has(r.id) ? 'update_display_data' : 'display_data';
        if (r.done) this.progressShown.delete(r.id);
        else this.progressShown.add(r.id);
        this.publish(type, { data: { 'text/plain': r.text }, metadata: {}, transient: { display_id: r.id } });
        break;
      }
      case 'message':
        this.publish('stream', { name: 'stdout', text: r.text + '\n' });
        break;
      case 'warning':
        this.publish('stream', { name: 'stderr', text: r.text + '\n' });
        break;
      case 'error':
        this.publish('error', errorContent(r.error, r.source));
        break;
    }
  }

  /** user_expressions are SQL CDC texts with functions (`#data.count()`), evaluated like PRINT's text. */
  private evaluate(expressions: Record<string, string>): Record<string, UserExpressionResult> {
    const out: Record<string, UserExpressionResult> = {};
    for (const [name, text] of Object.entries(expressions)) {
      try {
        out[name] = { status: 'ok', data: { 'text/plain': this.session.evaluate(text) }, metadata: {} };
      } catch (e) {
        out[name] = { status: 'error', ...errorContent(toScriptError(e), text) };
      }
    }
    return out;
  }
}
