import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BigIntVector, BoolVector, DateVector, DecimalVector, NumberVector, type Vector } from '../dataset/vector';
import type { Family } from './families';

/**
 * A worker thread that hashes the typed columns of a diff (hash.ts `startRowHashes`) while the
 * calling thread hashes its text and matches its keys: the machine's second core, as DuckDB's
 * diff uses it. Only typed storage goes over, copied into shared memory (a few ms a million rows);
 * strings cannot be shared between threads, so text stays on the calling thread.
 */

/** A typed column in shared memory, as the worker rebuilds its vector. */
export type SharedColumn =
  | { kind: 'number'; data: Int32Array | Float64Array | Float32Array; nulls?: Uint8Array }
  | { kind: 'bigint'; data: BigInt64Array; nulls?: Uint8Array }
  | { kind: 'date'; data: Float64Array; nulls?: Uint8Array }
  | { kind: 'bool'; data: Uint8Array; length: number; nulls?: Uint8Array }
  | { kind: 'decimal'; data: Float64Array; scale: number | Uint8Array; nulls?: Uint8Array };

export interface HashJob {
  columns: SharedColumn[];
  families: Family[];
  /** The lanes to fill, two int32 a row. */
  hashes: Int32Array;
  /** [0]: 0 while the worker works, then DONE or FAILED. */
  flag: Int32Array;
}

export const DONE = 1;
export const FAILED = 2;

/**
 * Below this many rows the calling thread hashes everything itself: handing over costs a copy, and
 * a first hand-over starts the worker (tens of ms).
 */
export const PARALLEL_ROWS = 65536;

/** The worker never finishes a job this long (hashing runs at millions of rows a second). */
const TIMEOUT_MS = 120_000;

let thread: Worker | undefined;
let jobs = 0;

/** How many jobs were handed over to the thread in this process (the bench and the tests show it). */
export function handedOver(): number {
  return jobs;
}

function worker(): Worker {
  if (thread) return thread;
  const started = new Worker(join(__dirname, 'hash-worker.js'));
  // Idle, it must not keep the process alive.
  started.unref();
  const gone = () => {
    if (thread === started) thread = undefined;
  };
  started.on('error', gone);
  started.on('exit', gone);
  thread = started;
  return started;
}

type Typed = Int32Array | Float64Array | Float32Array | BigInt64Array | Uint8Array;

/**
 * Shared memory kept from one job to the next: memory never used before costs a page fault every
 * 4 KB (the bench's million rows of typed columns took 10-20 ms to copy into new memory, 2 ms into
 * memory used before). Dropped once no job came for IDLE_MS, so an idle process does not keep it.
 */
let arena: SharedArrayBuffer | undefined;
let release: NodeJS.Timeout | undefined;
/** The last job handed over: until it is done, its part of the arena is not reused. */
let lastJob: HashJob | undefined;
const IDLE_MS = 10_000;

const align8 = (n: number) => (n + 7) & ~7;

/** Copies typed arrays one after the other into the arena (grown first to `bytes` if smaller). */
class ArenaWriter {
  private offset = 0;
  readonly memory: SharedArrayBuffer;

  constructor(bytes: number) {
    if (lastJob && Atomics.load(lastJob.flag, 0) === 0) Atomics.wait(lastJob.flag, 0, 0, TIMEOUT_MS);
    if (!arena || arena.byteLength < bytes) arena = new SharedArrayBuffer(bytes);
    this.memory = arena;
  }

  copy<T extends Typed>(a: T): T {
    const view = new (a.constructor as new (buffer: SharedArrayBuffer, offset: number, length: number) => T)(
      this.memory,
      this.offset,
      a.length,
    );
    view.set(a as never);
    this.offset += align8(a.byteLength);
    return view;
  }

  lanes(rows: number): Int32Array {
    const view = new Int32Array(this.memory, this.offset, 2 * rows);
    this.offset += 8 * rows;
    return view;
  }
}

/** The typed arrays of a vector, when it has typed storage (those a SharedColumn holds). */
function arraysOf(v: Vector): Typed[] | undefined {
  const nulls = 'nulls' in v && v.nulls instanceof Uint8Array ? [v.nulls] : [];
  if (v instanceof NumberVector || v instanceof BigIntVector) return [v.data, ...nulls];
  if (v instanceof DateVector) return [v.ms, ...nulls];
  if (v instanceof BoolVector) return [v.bits, ...nulls];
  if (v instanceof DecimalVector) return [v.unscaled, ...(typeof v.scale === 'number' ? [] : [v.scale]), ...nulls];
  return undefined;
}

function sharedColumn(v: Vector, arena: ArenaWriter): SharedColumn {
  const nulls = 'nulls' in v && v.nulls instanceof Uint8Array ? { nulls: arena.copy(v.nulls) } : {};
  if (v instanceof NumberVector) return { kind: 'number', data: arena.copy(v.data), ...nulls };
  if (v instanceof BigIntVector) return { kind: 'bigint', data: arena.copy(v.data), ...nulls };
  if (v instanceof DateVector) return { kind: 'date', data: arena.copy(v.ms), ...nulls };
  if (v instanceof BoolVector) return { kind: 'bool', data: arena.copy(v.bits), length: v.length, ...nulls };
  const d = v as DecimalVector;
  const scale = typeof d.scale === 'number' ? d.scale : arena.copy(d.scale);
  return { kind: 'decimal', data: arena.copy(d.unscaled), scale, ...nulls };
}

/** The vector a shared column was made from (same storage, same cells). */
export function vectorOf(c: SharedColumn): Vector {
  switch (c.kind) {
    case 'number':
      return new NumberVector(c.data, c.nulls);
    case 'bigint':
      return new BigIntVector(c.data, c.nulls);
    case 'date':
      return new DateVector(c.data, c.nulls);
    case 'bool':
      return new BoolVector(c.data, c.length, c.nulls);
    case 'decimal':
      return new DecimalVector(c.data, c.scale, c.nulls);
  }
}

/**
 * Hands the lanes of `vectors` (hash.ts `hashVectors`) over to the worker; undefined when the
 * calling thread should hash them itself: few rows, or a column without typed storage. `result`
 * waits for the lanes, or returns undefined if the worker failed (then the caller hashes them).
 */
export function hashElsewhere(
  vectors: readonly Vector[],
  families: readonly Family[],
  rows: number,
): { result(): Int32Array | undefined } | undefined {
  if (rows < PARALLEL_ROWS || vectors.length === 0) return undefined;
  let bytes = 8 * rows;
  for (const v of vectors) {
    const arrays = arraysOf(v);
    if (!arrays) return undefined;
    for (const a of arrays) bytes += align8(a.byteLength);
  }
  const memory = new ArenaWriter(bytes);
  const job: HashJob = {
    columns: vectors.map((v) => sharedColumn(v, memory)),
    families: [...families],
    hashes: memory.lanes(rows),
    flag: new Int32Array(new SharedArrayBuffer(4)),
  };
  const w = worker();
  w.postMessage(job);
  jobs++;
  lastJob = job;
  clearTimeout(release);
  return {
    result: () => {
      release = setTimeout(() => (arena = undefined), IDLE_MS);
      release.unref();
      if (Atomics.wait(job.flag, 0, 0, TIMEOUT_MS) === 'timed-out') {
        if (thread === w) thread = undefined;
        void w.terminate();
        return undefined;
      }
      return Atomics.load(job.flag, 0) === DONE ? job.hashes : undefined;
    },
  };
}
