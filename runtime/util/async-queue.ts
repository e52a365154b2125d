/**
 * A push-to-pull bridge: commands push results while they run, the session's async generator pulls
 * them, so front ends see output as it happens rather than when the cell ends.
 *
 * Items are taken from a head index, not with `Array.shift`: shift moves every item behind the
 * first, and a cell of many statements pushes faster than its consumer pulls, which made taking
 * the items quadratic in their number.
 */
export class AsyncQueue<T extends { kind: string }> implements AsyncIterable<T> {
  private items: T[] = [];
  /** Index of the next item to take; the items before it are taken and dropped at compaction. */
  private head = 0;
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

  private take(): T {
    const item = this.items[this.head];
    this.items[this.head++] = undefined as unknown as T;
    // Compacting once the taken part is at least half the array costs O(1) per item, amortised.
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.head < this.items.length) {
        yield this.take();
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((r) => (this.waiting = r));
    }
  }
}
