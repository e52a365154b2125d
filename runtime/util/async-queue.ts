import { Fifo } from './fifo';

/**
 * A push-to-pull bridge: commands push results while they run, the session's async generator pulls
 * them, so front ends see output as it happens rather than when the cell ends.
 */
export class AsyncQueue<T extends { kind: string }> implements AsyncIterable<T> {
  /** A cell of many statements pushes faster than its consumer pulls: taking must stay O(1). */
  private readonly items = new Fifo<T>();
  private waiting?: () => void;
  private closed = false;
  /** True once an item of kind 'error' went through: nothing should follow it but the end. */
  failed = false;

  push(item: T): void {
    if (this.closed) return;
    if (item.kind === 'error') this.failed = true;
    this.items.push(item);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.items.size) {
        yield this.items.shift() as T;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((r) => (this.waiting = r));
    }
  }
}
