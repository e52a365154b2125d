import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Shared by the benchmarks: a seeded generator for their data and a best-of-N timer. */

/**
 * mulberry32: a 32-bit generator in integer arithmetic, so generated data has as many distinct values
 * as it asks for. (A float LCG overflows 2^53 and cycles after a few hundred rows.)
 */
export function seededRandom(seed = 42): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Best wall time of `runs` runs, in seconds; `check` sees each result so nothing is optimised away.
 * `before` runs ahead of each run, untimed.
 */
export async function best<T>(
  runs: number,
  run: () => T | Promise<T>,
  check: (result: T) => void,
  before?: () => void,
): Promise<number> {
  let fastest = Infinity;
  for (let i = 0; i < runs; i++) {
    before?.();
    const start = process.hrtime.bigint();
    const result = await run();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    check(result);
    fastest = Math.min(fastest, seconds);
  }
  return fastest;
}

let gc: (() => void) | undefined;

/**
 * A full garbage collection: run before a timed run in a process that holds a large heap, so that
 * the run does not pay for collecting what the runs before it left (a full collection of a heap of
 * a million rows takes longer than most runs). Without --expose-gc on the command line, V8 gives a
 * new context the gc() function once the flag is set.
 */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
