/**
 * A first-in first-out list taking items from a head index: `Array.shift` moves every item behind
 * the first, which made draining a long list quadratic in its length.
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  /** Index of the first item; the slots before it are taken and dropped at compaction. */
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  first(): T | undefined {
    return this.size ? this.items[this.head] : undefined;
  }

  last(): T | undefined {
    return this.size ? this.items[this.items.length - 1] : undefined;
  }

  shift(): T | undefined {
    if (!this.size) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
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
}
