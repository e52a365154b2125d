/**
 * Compiled format strings by their text. A script names few formats, but a format taken from a
 * column can differ on every row, so the cache is emptied when it grows past its bound.
 */
export class FormatCache<T> extends Map<string, T> {
  /** Stores `compiled` under `key` and returns it. */
  remember(key: string, compiled: T): T {
    if (this.size > 1000) this.clear();
    this.set(key, compiled);
    return compiled;
  }
}
