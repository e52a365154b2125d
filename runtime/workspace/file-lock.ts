import { linkSync, mkdirSync, readFileSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ScriptError } from '../errors';
import { processAlive } from '../util/process-alive';
import { tempPathOf, writeFailure } from './files';

/** How long a process waits for another to finish with a file before giving up. */
const WAIT_MS = 10_000;
/** How often a long wait looks whether the lock is free again. */
const POLL_MS = 50;
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
  const deadline = Date.now() + WAIT_MS;
  while (!tryLock(file)) {
    if (Date.now() > deadline)
      throw new ScriptError(
        `${file} is being changed by another sqlcdc process (${lockFileOf(file)}); try again`,
        'runtime',
      );
    // Held for a few milliseconds by another process: wait without spinning, synchronously like the callers.
    Atomics.wait(sleeper, 0, 0, 5);
  }
  try {
    return fn();
  } finally {
    unlock(file);
  }
}

/**
 * Runs `fn` holding `<file>.lock` for as long as it takes, as `withFileLock` does for a quick change:
 * for work of minutes (a CAPTURE's diff and log). Waits as long as another process holds it, calling
 * `waiting` once first; `signal` (Ctrl-C) stops the wait. One process does not wait for itself: the
 * caller keeps two of its own runs apart.
 */
export async function whileHoldingFileLock<T>(
  file: string,
  options: { signal?: AbortSignal; waiting?: () => void },
  fn: () => Promise<T>,
): Promise<T> {
  const folder = dirname(lockFileOf(file));
  // What `fn` does not fill (a run that failed, or kept nothing) is left as it was, without folders.
  const made = makeFolderOf(lockFileOf(file));
  try {
    let told = false;
    while (!tryLock(file)) {
      if (!told) options.waiting?.();
      told = true;
      await delay(POLL_MS, undefined, { signal: options.signal });
    }
    try {
      return await fn();
    } finally {
      unlock(file);
    }
  } finally {
    if (made) removeEmptyFolders(folder, made);
  }
}

/** Removes `folder` and its parents up to `top` while they are empty. */
function removeEmptyFolders(folder: string, top: string): void {
  for (let at = folder; ; at = dirname(at)) {
    try {
      rmdirSync(at);
    } catch {
      return;
    }
    if (at === top) return;
  }
}

/** Takes `<file>.lock` when it is free or was left by a process that died: false while another holds it. */
function tryLock(file: string): boolean {
  const lock = lockFileOf(file);
  makeFolderOf(lock);
  for (;;) {
    if (take(lock)) return true;
    if (!ownerGone(lock)) return false;
    // Another waiter may have taken it over first.
    rmSync(lock, { force: true });
  }
}

function unlock(file: string): void {
  unlinkSync(lockFileOf(file));
}

/**
 * Makes `lock` holding this process's id, or returns false when another process holds it. The id is
 * written to a temp file first and linked under the lock's name (a link fails rather than replace a
 * file), so the lock never exists without its owner's id: an empty one, left by a process killed or
 * a disk filled between making the lock and writing to it, would read as held for good.
 */
function take(lock: string): boolean {
  const temp = tempPathOf(lock);
  try {
    writeFileSync(temp, String(process.pid), { flag: 'wx', mode: 0o600 });
    linkSync(temp, lock);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // The folder went while waiting (a job deleted): made again, for the caller to find no job in.
    if (code === 'ENOENT') {
      makeFolderOf(lock);
      return take(lock);
    }
    throw writeFailure(lock, e);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Makes the folder `lock` goes in; the first folder it made, if any. */
function makeFolderOf(lock: string): string | undefined {
  try {
    return mkdirSync(dirname(lock), { recursive: true });
  } catch (e) {
    throw writeFailure(lock, e);
  }
}

/**
 * Whether the process that made `lock` has died. An empty lock is one an older sqlcdc left, which made
 * the lock before writing its id: none is ever empty now. One holding this process's id is an earlier
 * process's that had the same id: this one holds no lock when it takes one.
 */
function ownerGone(lock: string): boolean {
  let text: string;
  try {
    text = readFileSync(lock, 'utf8');
  } catch {
    return false;
  }
  const pid = Number(text);
  return text === '' || pid === process.pid || (Number.isInteger(pid) && pid > 0 && !processAlive(pid));
}

/** The lock file of `file`, beside it. */
export function lockFileOf(file: string): string {
  return `${file}.lock`;
}
