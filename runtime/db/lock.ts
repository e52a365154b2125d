import { AsyncLocalStorage } from 'node:async_hooks';

/** The locks the current async context holds. */
const held = new AsyncLocalStorage<ReadonlySet<SerialLock>>();

/**
 * Runs units of work on one SQLite connection one at a time. better-sqlite3 is synchronous, but a
 * long insert yields to the event loop between batches, and another run of the session (a webhook
 * call during a cell) must not slip its statements into that transaction meanwhile. Work started
 * from inside the holder (the APPLY PIPELINE a SELECT FROM DB runs per page) re-enters instead of
 * waiting for itself.
 */
export class SerialLock {
  private tail: Promise<void> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const mine = held.getStore();
    if (mine?.has(this)) return work();
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    return previous.then(() => held.run(new Set([...(mine ?? []), this]), work)).finally(release);
  }
}
