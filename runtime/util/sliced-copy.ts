import type { TypedArray } from '../dataset/thread-wire';

/**
 * Bytes copied between two yields of `copyInSlices`. Memory never written before costs a page fault
 * every 4 KB: 8 MB copied into fresh (shared) memory took 67 ms on a VM at load 2, 2 MB take a
 * fraction of a turn's worth.
 */
export const COPY_BYTES = 1 << 21;

/**
 * Copies `from` into `to` at `at` (in elements), yielding between slices of COPY_BYTES (none after
 * the last): a job written as a generator (util/turn.ts) gives the event loop its turns there.
 */
export function* copyInSlices<T extends TypedArray>(to: T, from: T, at = 0): Generator<void> {
  const step = COPY_BYTES / from.BYTES_PER_ELEMENT;
  for (let i = 0; i < from.length; i += step) {
    if (i > 0) yield;
    to.set(from.subarray(i, i + step) as never, at + i);
  }
}
