import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ScriptError } from '../errors';
import { HEARTBEAT_MS, identityAlive, processAlive, processIdentity } from '../util/process-alive';
import { lockAsidePath, removeDeadTempsNow, touch, writeFailure } from './files';

/** How long a process waits for another to finish with a file before giving up. */
const WAIT_MS = 10_000;
/** How often a long wait looks whether the lock is free again. */
const POLL_MS = 50;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `fn` holding `<file>.lock`. Two processes changing a small workspace file at once (two
 * `sqlcdc webhook key new`, two `sqlcdc job trigger`) each read it, change it and write it whole: the
 * second write would drop the first one's change, a key shown to its user but never stored. The lock
 * names its holder, so one left by a process that died is taken over (`tryLock`).
 */
export function withFileLock<T>(file: string, fn: () => T): T {
  const deadline = Date.now() + WAIT_MS;
  let token: string | undefined;
  while ((token = tryLock(file)) === undefined) {
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
    unlock(file, token);
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
    let token: string | undefined;
    while ((token = tryLock(file)) === undefined) {
      if (!told) options.waiting?.();
      told = true;
      await delay(POLL_MS, undefined, { signal: options.signal });
    }
    const held = join(lockFileOf(file), token);
    const heartbeat = setInterval(() => touch(held), HEARTBEAT_MS).unref();
    try {
      return await fn();
    } finally {
      clearInterval(heartbeat);
      unlock(file, token);
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

/**
 * Takes `<file>.lock` when it is free or its holder died: this acquisition's token, or undefined while
 * another holds it. The lock is a folder holding one empty file named by its holder's token (its
 * process's identity, a random nonce per process, a count per acquisition). It is put in place whole by renaming a
 * folder made aside, which fails while the lock holds a token (a folder that is not empty is never
 * replaced), so it never exists without its holder's id. A holder that died is taken over by removing
 * its token file by name: of several waiters that judged it dead, the removal succeeds or fails
 * harmlessly (the name is that dead process's, which never comes back), and then they compete again
 * by rename, which only one wins. Removing the lock's name instead (as a file lock is) would not be
 * atomic: a waiter that judged the dead holder gone could remove the lock another waiter had just
 * taken over, and both would hold it.
 */
function tryLock(file: string): string | undefined {
  const lock = lockFileOf(file);
  makeFolderOf(lock);
  // A taker killed between making its lock aside and renaming it left that folder: it is removed.
  removeDeadTempsNow(dirname(lock));
  for (;;) {
    const token = take(lock);
    if (token !== undefined) return token;
    if (!clearIfGone(lock)) return undefined;
  }
}

function unlock(file: string, token: string): void {
  const lock = lockFileOf(file);
  rmSync(join(lock, token), { force: true });
  // A waiter may have put its lock in place of the empty folder already (then it is not empty).
  removeFolder(lock);
}

const nonce = randomBytes(4).toString('hex');
let acquisitions = 0;

/** `<process identity>.<nonce>.<count>`: what `holderAlive` judges by. */
function newToken(): string {
  return `${processIdentity()}.${nonce}.${(acquisitions++).toString(16)}`;
}

/** Puts this process's lock in place, or returns undefined when another lock is there. */
function take(lock: string): string | undefined {
  const token = newToken();
  const aside = lockAsidePath(lock, token);
  try {
    mkdirSync(aside);
    writeFileSync(join(aside, token), '', { flag: 'wx', mode: 0o600 });
  } catch (e) {
    rmSync(aside, { recursive: true, force: true });
    // The folder went while waiting (a job deleted): made again, for the caller to find no job in.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw writeFailure(lock, e);
    makeFolderOf(lock);
    return take(lock);
  }
  try {
    renameSync(aside, lock);
    return token;
  } catch (e) {
    rmSync(aside, { recursive: true, force: true });
    const code = (e as NodeJS.ErrnoException).code;
    // A lock holding a token (on Windows any folder; ENOTDIR: an older sqlcdc's lock file); ENOENT: see above.
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EPERM') return undefined;
    if (code !== 'ENOENT') throw writeFailure(lock, e);
    makeFolderOf(lock);
    return take(lock);
  }
}

/** Removes what a dead holder left of `lock`: false while a live one holds it. */
function clearIfGone(lock: string): boolean {
  let tokens: string[];
  try {
    tokens = readdirSync(lock);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return true;
    if (code === 'ENOTDIR') return clearOlderLock(lock);
    throw writeFailure(lock, e);
  }
  if (tokens.some((token) => holderAlive(lock, token))) return false;
  for (const token of tokens) rmSync(join(lock, token), { force: true });
  removeFolder(lock);
  return true;
}

/** Removes `folder` when it is empty: a lock released, or one whose dead holder's token was removed. */
function removeFolder(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // Not empty (taken again meanwhile) or gone (removed by another): either way not ours to remove.
  }
}

/**
 * Whether the holder of `token` lives (`identityAlive`: a lock of another PID namespace is held while
 * touched within STALE_MS; a long holder touches it every HEARTBEAT_MS). One of this process is held
 * by it when it has its nonce (another of its runs: the caller keeps them apart).
 */
function holderAlive(lock: string, token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 6) return false;
  if (token.startsWith(`${processIdentity()}.`)) return parts[4] === nonce;
  return identityAlive(
    parts.slice(0, 4).join('.'),
    () => statSync(join(lock, token), { throwIfNoEntry: false })?.mtimeMs,
  );
}

/**
 * An older sqlcdc's lock, a file holding its owner's id (or empty: made before its id was written).
 * Removed when its owner died; the removal cannot take a lock folder with it (unlink fails on a folder).
 */
function clearOlderLock(lock: string): boolean {
  let text: string;
  try {
    text = readFileSync(lock, 'utf8');
  } catch {
    return true;
  }
  const pid = Number(text);
  if (text !== '' && pid !== process.pid && !(Number.isInteger(pid) && pid > 0 && !processAlive(pid))) return false;
  try {
    unlinkSync(lock);
  } catch {
    // Removed by another waiter, or replaced by a lock folder.
  }
  return true;
}

/** Makes the folder `lock` goes in; the first folder it made, if any. */
function makeFolderOf(lock: string): string | undefined {
  try {
    return mkdirSync(dirname(lock), { recursive: true });
  } catch (e) {
    throw writeFailure(lock, e);
  }
}

/** Whether `name`, in the folder of `file`, is its lock or one being put in place by a waiter. */
export function isLockEntry(file: string, name: string): boolean {
  const lock = basename(lockFileOf(file));
  return name === lock || name.startsWith(`.${lock}.`);
}

/** The lock file of `file`, beside it. */
function lockFileOf(file: string): string {
  return `${file}.lock`;
}
