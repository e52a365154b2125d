import type { Result } from './results';

/**
 * Output that arrives outside a running cell: a result a statement emitted after its cell ended (a
 * timer, a listener it opened), or the output of a job run or a webhook call. `origin` names where it
 * belongs: the `origin` the front end gave the `execute` call that started it (the kernel passes the
 * execute_request's msg_id and shows the output under that cell), or a job/webhook run's own label.
 */
export interface OutputItem {
  origin: string | undefined;
  result: Result;
}

export type OutputListener = (item: OutputItem) => void;

/** The session-level output channel front ends subscribe to. */
export class OutputChannel {
  private readonly listeners = new Set<OutputListener>();

  /** Returns the function that unsubscribes. */
  subscribe(listener: OutputListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(item: OutputItem): void {
    for (const listener of this.listeners) listener(item);
  }
}
