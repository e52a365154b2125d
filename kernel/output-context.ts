import { AsyncLocalStorage } from 'node:async_hooks';
import type { Message } from '../jupyter/wire';

/**
 * Which request IOPub output belongs to. Each request is handled inside `run`, and Node carries the
 * store into every timer, listener and promise started from it, so output produced after the cell
 * finished (a webhook listener a cell opened) still goes out under that cell's parent header.
 */
export class OutputContext {
  private readonly storage = new AsyncLocalStorage<Message>();
  /** For output with no request in its async ancestry (started before any request): the latest execute. */
  private lastExecute?: Message;

  run<T>(request: Message, fn: () => T): T {
    if (request.header.msg_type === 'execute_request') this.lastExecute = request;
    return this.storage.run(request, fn);
  }

  current(): Message | undefined {
    return this.storage.getStore() ?? this.lastExecute;
  }
}
