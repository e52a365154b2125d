import { closeSync, mkdirSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ScriptError } from '../errors';
import { processAlive } from '../util/process-alive';

/** How long a process waits for another to finish with a file before giving up. */
const WAIT_MS = 10_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `fn` holding `<file>.lock`. Two processes changing a small workspace file at once (two
 * `sqlcdc webhook key new`, two `sqlcdc job trigger`) each read it, change it and write it whole: the
 * second write would drop the first one's change, a key shown to its user but never stored. The lock
 * file holds its owner's process id, so one left by a process that died is taken over. Taking one
 * over is not atomic (two waiters may both take it), which needs a crash within the milliseconds a
 * lock is held and two waiters at that moment: accepted, as node has no flock.
 */
export function withFileLock<T>(file: string, fn: () => T): T {
  const lock = lockFileOf(file);
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (e) {
      // The folder went while waiting (a job deleted): made again, for the caller to find no job in.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        mkdirSync(dirname(lock), { recursive: true });
        continue;
      }
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (ownerGone(lock)) {
        // Another waiter may have taken it over first.
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new ScriptError(`${file} is being changed by another sqlcdc process (${lock}); try again`, 'runtime');
      // Held for a few milliseconds by another process: wait without spinning, synchronously like the callers.
      Atomics.wait(sleeper, 0, 0, 5);
    }
  }
  try {
    return fn();
  } finally {
    unlinkSync(lock);
  }
}

/** Whether the process that made `lock` has died. An empty file is one whose owner is still writing its id. */
function ownerGone(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(lock, 'utf8'));
  } catch {
    return false;
  }
  return Number.isInteger(pid) && pid > 0 && !processAlive(pid);
}

/** The lock file of `file`, beside it. */
export function lockFileOf(file: string): string {
  return `${file}.lock`;
}
