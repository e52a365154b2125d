import { existsSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Dataset } from '../dataset/dataset';
import { columnArrays, copyColumn, typedColumn, type TypedColumn } from '../dataset/thread-wire';
import type { Column } from '../dataset/types';
import { arenaBytes, SharedArena } from '../util/shared-arena';
import { familyOf, type Family } from './families';
import type { Classified, StateKeys } from './match';

/**
 * A worker thread that takes part of a diff (diff.ts): it matches the rows' keys with the state's
 * (match.ts) and hashes the typed observed columns (hash.ts `typedLanes`) while the calling thread
 * hashes the text columns: the machine's second core, as DuckDB's diff uses it. Strings cannot be
 * shared between threads, so text stays on the calling thread; typed storage is copied into shared
 * memory (a few ms a million rows), and the state's keys are read where they are (state files are
 * read into shared memory, next states built in it). A part that cannot go (few rows, a column
 * without typed storage, a state in memory of this thread only) is done by the calling thread, as
 * is anything the worker failed at.
 */

export interface DiffJob {
  rows: number;
  /** Typed lanes to compute: of these columns, into `hashes` (two int32 a row). */
  hash?: { columns: TypedColumn[]; families: Family[]; hashes: Int32Array };
  /** Keys to match: the key columns, and the state's keys; the outcome is posted on `reply`, the job's own port. */
  match?: { columns: Column[]; keys: TypedColumn[]; state: StateKeys | undefined; reply: MessagePort };
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
/** A worker that has not said it runs this long after it was started is taken for dead. */
const START_MS = 10_000;
/**
 * A wait for a job is cut into waits this long, with a look between them at whether the worker still
 * runs: one that died mid-job (out of memory, say) never flags it, and its 'exit' event cannot reach
 * this thread while it waits, which would otherwise hold the calling thread (a kernel, a REPL) for
 * the whole TIMEOUT_MS.
 */
const SLICE_MS = 100;

interface Thread {
  worker: Worker;
  /** The worker's thread id in the system once it runs (0 until then; -1 where it cannot be known). */
  tid: Int32Array;
  startedAt: number;
  /** How many callers await a job of it (`settled`): while any does, it keeps the process alive. */
  awaited: number;
}

let thread: Thread | undefined;
let jobs = 0;

/** How many jobs were handed over to the thread in this process (the bench and the tests show it). */
export function handedOver(): number {
  return jobs;
}

/** The worker, once started (a test stops it mid-job to see a diff go on without it). */
export function diffWorker(): Worker | undefined {
  return thread?.worker;
}

/** Reads where the worker writes it: its thread id, as /proc names it (diff-worker.ts). */
export function ownThreadId(): number {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop()) || -1;
  } catch {
    return -1;
  }
}

/** Whether the thread still runs (or still starts), as far as can be told: where the system does not say, it is taken to. */
function running(t: Thread): boolean {
  const tid = Atomics.load(t.tid, 0);
  if (tid === 0) return Date.now() - t.startedAt < START_MS;
  return tid < 0 || existsSync(`/proc/self/task/${tid}`);
}

/**
 * Waits until the worker flags `flag`: true once flagged; false when it died first or took longer
 * than TIMEOUT_MS, after which it is dropped (the next diff starts another).
 */
function waitFor(t: Thread, flag: Int32Array): boolean {
  const deadline = Date.now() + TIMEOUT_MS;
  while (Atomics.wait(flag, 0, 0, SLICE_MS) === 'timed-out') {
    if (running(t) && Date.now() < deadline) continue;
    // Never to be done: nobody waits for it again.
    Atomics.store(flag, 0, FAILED);
    if (thread === t) thread = undefined;
    void t.worker.terminate();
    return false;
  }
  return true;
}

/** Atomics.waitAsync (ES2024, in Node since 16; not in this build's ES2022 types): resolves once `flag` is not 0, or after `ms`. */
function waitAsync(flag: Int32Array, ms: number): Promise<unknown> {
  const wait = (
    Atomics as unknown as {
      waitAsync(a: Int32Array, index: number, value: number, ms: number): { value: Promise<unknown> | string };
    }
  ).waitAsync(flag, 0, 0, ms);
  return Promise.resolve(wait.value);
}

function worker(): Thread {
  if (thread) return thread;
  const tid = new Int32Array(new SharedArrayBuffer(4));
  const started = new Worker(join(__dirname, 'diff-worker.js'), { workerData: { tid } });
  // Idle, it must not keep the process alive.
  started.unref();
  const t: Thread = { worker: started, tid, startedAt: Date.now(), awaited: 0 };
  const gone = () => {
    if (thread === t) thread = undefined;
  };
  started.on('error', gone);
  started.on('exit', gone);
  thread = t;
  return t;
}

/** Memory the columns of a job are copied into, kept for the next (util/shared-arena.ts). */
const arena = new SharedArena();

function isShared(a: ArrayBufferView): boolean {
  return a.buffer instanceof SharedArrayBuffer;
}

const all = (columns: (TypedColumn | undefined)[]): columns is TypedColumn[] => columns.every((c) => c !== undefined);

/** A job handed over (see `handOver`). */
export interface HandedOver {
  matching: boolean;
  result(): Done;
  settled(): Promise<void>;
}

/** What the worker did of a diff; a part it did not do (or failed at) is undefined. */
export interface Done {
  lanes?: Int32Array;
  matched?: Classified;
}

/**
 * Hands over to the worker what it can take of a diff of `input` (see the top): the typed lanes of
 * the columns `typed` (hash.ts `typedLanes`), and the matching of the keys `keyOrdinals` with
 * `state` (match.ts `classify`). Undefined when it takes nothing; else `matching` says whether the
 * keys went, `result` waits for what the worker did, and `settled` lets the event loop turn until
 * the worker is done with the job (or cannot be), so that `result` then does not wait. Yields while
 * it copies the columns into the arena; a caller that stops there hands nothing over.
 */
export function* handOver(
  input: Dataset,
  typed: readonly number[],
  keyOrdinals: readonly number[],
  state: StateKeys | undefined,
): Generator<void, HandedOver | undefined> {
  const rows = input.rowCount;
  if (rows < PARALLEL_ROWS) return undefined;
  const typedColumns = typed.map((c) => typedColumn(input.vector(c)));
  const keyColumns = keyOrdinals.map((c) => typedColumn(input.vector(c)));
  const hashing = typed.length > 0 && all(typedColumns);
  const matching =
    all(keyColumns) &&
    (!state || (isShared(state.entries.bytes) && isShared(state.entries.offsets) && isShared(state.table)));
  if (!hashing && !matching) return undefined;
  const copied = [...(hashing ? typedColumns : []), ...(matching ? keyColumns : [])];
  const memory = arena.writer((hashing ? 8 * rows : 0) + arenaBytes(copied.flatMap(columnArrays)));
  const hash = hashing && {
    columns: typedColumns.map((c) => copyColumn(c, memory.place)),
    families: typed.map((c) => familyOf(input.columns[c].type.base)),
    hashes: memory.int32s(2 * rows),
  };
  const keys = matching ? keyColumns.map((c) => copyColumn(c, memory.place)) : undefined;
  yield* memory.fill();
  const w = worker();
  // Its own port: another pipeline's diff may have a job under way too.
  const channel = keys ? new MessageChannel() : undefined;
  channel?.port1.unref();
  const job: DiffJob = {
    rows,
    ...(hash && { hash }),
    ...(keys &&
      channel && {
        match: {
          columns: keyOrdinals.map((c) => ({ ...input.columns[c] })),
          keys,
          state: state && { entries: state.entries, table: state.table },
          reply: channel.port2,
        },
      }),
    flag: new Int32Array(new SharedArrayBuffer(4)),
  };
  w.worker.postMessage(job, channel ? [channel.port2] : []);
  jobs++;
  return {
    matching,
    settled: async () => {
      const deadline = Date.now() + TIMEOUT_MS;
      // An asynchronous wait holds no handle: the awaited worker keeps the process (`sqlcdc run`) alive meanwhile.
      if (w.awaited++ === 0) w.worker.ref();
      try {
        while (Atomics.load(job.flag, 0) === 0 && running(w) && Date.now() < deadline)
          await waitAsync(job.flag, SLICE_MS);
      } finally {
        if (--w.awaited === 0) w.worker.unref();
      }
    },
    result: () => {
      if (!waitFor(w, job.flag)) return {};
      // The worker posts the matching's outcome before it flags the job, so it is there (or, after a failure, dropped).
      const matched = channel && (receiveMessageOnPort(channel.port1)?.message as Classified | undefined);
      channel?.port1.close();
      if (Atomics.load(job.flag, 0) !== DONE) return {};
      // The worker is done with the arena, and the caller reads the lanes before its next turn (diff.ts).
      memory.giveBack();
      return { lanes: job.hash?.hashes, matched };
    },
  };
}
