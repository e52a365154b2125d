import type { TypedArray } from '../dataset/thread-wire';
import { copyInSlices } from './sliced-copy';

const align8 = (n: number) => (n + 7) & ~7;

/** The bytes `arrays` take in an arena, each placed at a multiple of 8. */
export function arenaBytes(arrays: readonly TypedArray[]): number {
  return arrays.reduce((sum, a) => sum + align8(a.byteLength), 0);
}

/**
 * Shared memory kept from one job of a worker thread to the next, so that arrays reach the thread
 * without a copy per post: memory never used before costs a page fault every 4 KB (a million rows of
 * typed columns took 10-20 ms to copy into new memory on a quiet machine, 2 ms into memory used
 * before). A job takes it (`writer`) until it gives it back, once no thread reads it any more: a job
 * meanwhile (another pipeline's, in a process running several) gets memory of its own. Dropped once
 * no job came for IDLE_MS, so an idle process does not keep it.
 */
export class SharedArena {
  private kept: SharedArrayBuffer | undefined;
  private release: NodeJS.Timeout | undefined;

  /** A writer into the kept memory if it has `bytes`, else into new memory. */
  writer(bytes: number): ArenaWriter {
    const memory = this.kept && this.kept.byteLength >= bytes ? this.kept : new SharedArrayBuffer(bytes);
    this.kept = undefined;
    return new ArenaWriter(memory, () => this.giveBack(memory));
  }

  private giveBack(memory: SharedArrayBuffer): void {
    if (!this.kept || this.kept.byteLength < memory.byteLength) this.kept = memory;
    clearTimeout(this.release);
    this.release = setTimeout(() => (this.kept = undefined), IDLE_MS);
    this.release.unref();
  }
}

const IDLE_MS = 10_000;

/** Places typed arrays one after the other in an arena's memory, then copies them there (`fill`). */
export class ArenaWriter {
  private offset = 0;
  private readonly placed: [from: TypedArray, to: TypedArray][] = [];

  constructor(
    readonly memory: SharedArrayBuffer,
    /** Hands the memory back to be reused; call it once no thread reads it any more. */
    readonly giveBack: () => void,
  ) {}

  /** The view of the memory that `fill` copies `a` into. */
  readonly place = <T extends TypedArray>(a: T): T => {
    const view = new (a.constructor as new (buffer: SharedArrayBuffer, offset: number, length: number) => T)(
      this.memory,
      this.offset,
      a.length,
    );
    this.placed.push([a, view]);
    this.offset += align8(a.byteLength);
    return view;
  };

  /** `length` int32s of the memory, for the thread to write into. */
  int32s(length: number): Int32Array {
    const view = new Int32Array(this.memory, this.offset, length);
    this.offset += align8(4 * length);
    return view;
  }

  /**
   * Copies the placed arrays in slices (util/sliced-copy.ts), yielding between them: tens of MB of
   * memory never used before are half a second or more of page faults.
   */
  *fill(): Generator<void> {
    for (const [from, to] of this.placed) {
      yield* copyInSlices(to, from);
      yield;
    }
  }
}
