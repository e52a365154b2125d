import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { ScriptError } from '../errors';
import type { ByteSink } from '../util/bytes';
import { identityAlive, processIdentity } from '../util/process-alive';

export interface AtomicFileOptions {
  mode?: number;
  overwrite?: boolean;
}

/** Random once per process: drawing random bytes for each of a listener's thousands of temp files costs more than the rest of the name. */
const processNonce = randomBytes(4).toString('hex');
let tempCount = 0;
const tempTail = `.tmp-${processIdentity()}-${processNonce}`;

/**
 * A temp name beside `path` that no other writer can take: the process's identity (boot, PID
 * namespace, id, start time) tells live processes apart and whether its writer is gone
 * (`removeDeadTemps`), the nonce a process from an earlier one with the same id, the count the files
 * of this process.
 */
export function tempPathOf(path: string, folder = dirname(path)): string {
  // Joined by hand: the folder is already normalized, and path.join would normalize it again for each of a listener's files.
  const into = folder.endsWith(sep) ? folder : folder + sep;
  return `${into}.${path.slice(path.lastIndexOf(sep) + 1)}${tempTail}${(tempCount++).toString(16)}`;
}

/**
 * The folder a taker of `lock` makes aside and renames into place (file-lock.ts), named by its token
 * (`<process identity>.<nonce>.<count>`): a taker killed between the two leaves it, and it is removed
 * as a dead writer's temp file is (`removeDeadTemps`).
 */
export function lockAsidePath(lock: string, token: string): string {
  return join(dirname(lock), `.${basename(lock)}.${token}`);
}

/**
 * The writer's identity in a temp name (`tempPathOf`; a bare process id of an older sqlcdc) or in a
 * lock's folder made aside (`lockAsidePath`), or undefined for another name.
 */
function tempWriter(name: string): string | undefined {
  return /(?:\.tmp-([0-9a-f]*\.\d*\.\d+\.\d*|\d+)-[0-9a-f]+|\.lock\.([0-9a-f]*\.\d*\.\d+\.\d*)\.[0-9a-f]+\.[0-9a-f]+)$/
    .exec(name)
    ?.slice(1)
    .find((id) => id !== undefined);
}

/** When this process last removed the dead writers' temps of each folder it writes to (`removeDeadTempsNow`). */
const cleanedAt = new Map<string, number>();
/** A folder is looked through again after this long: a long-lived kernel still clears what writers killed meanwhile left. */
const CLEAN_AGAIN_MS = 60_000;

/**
 * `removeDeadTemps` for a folder about to be written to, at most once a minute per folder: a change
 * log folder may hold thousands of logs, and reading it whole before each atomic write would cost
 * more than the write.
 */
export function removeDeadTempsNow(folder: string): void {
  const now = Date.now();
  if (now - (cleanedAt.get(folder) ?? -Infinity) < CLEAN_AGAIN_MS) return;
  cleanedAt.set(folder, now);
  removeDeadTemps(folder);
}

/**
 * Removes the temp files (`tempPathOf`) and lock folders made aside (`lockAsidePath`) a killed writer
 * left in `folder`: a log cut short can be as large as a log. Only those whose writer is gone: never
 * one a live process is still writing.
 */
export function removeDeadTemps(folder: string): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const writer = name.startsWith('.') ? tempWriter(name) : undefined;
    if (writer === undefined) continue;
    const temp = join(folder, name);
    if (!identityAlive(writer, () => statSync(temp, { throwIfNoEntry: false })?.mtimeMs))
      rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * Tells processes of other PID namespaces or machines, which cannot look this one up, that the
 * process holding `path` (a lock, a journal segment) still lives (`identityAlive`'s `touched`). A
 * file gone meanwhile (taken over after all, as a process stopped for that long would find) stays gone.
 */
export function touch(path: string): void {
  const now = new Date();
  try {
    utimesSync(path, now, now);
  } catch {
    // Gone: nothing to tell.
  }
}

/**
 * A file that appears whole or not at all: written under a temp name in the same folder (so the
 * rename stays on one file system), flushed to disk, renamed, and the folder flushed so the rename
 * itself survives a power cut. The temp name starts with a dot and ends in `.tmp-<pid>-<hex>`,
 * so no reader that looks for a file's extension (`*.eds`, `*.json`) ever sees a partial one. A
 * crash leaves at most a temp file behind, never a half-written target.
 */
export class AtomicFile implements ByteSink {
  readonly tempPath: string;
  /** Bytes written so far. */
  size = 0;
  private fd: number | undefined;

  /** `overwrite: false` publishes with a hard link, which fails rather than replace an existing file. */
  constructor(
    readonly path: string,
    private readonly options: AtomicFileOptions = {},
  ) {
    mkdirSync(dirname(path), { recursive: true });
    removeDeadTempsNow(dirname(path));
    this.tempPath = tempPathOf(path);
    this.fd = openSync(this.tempPath, 'wx', options.mode);
  }

  write(data: Uint8Array): void {
    this.size += data.length;
    let at = 0;
    while (at < data.length) at += writeSync(this.descriptor(), data, at, data.length - at);
  }

  /** Publishing happens in `commit`; a sink's end is not a commit, so that a failed writer can still abort. */
  end(): void {}

  /** Flushes, then puts the file in place. EEXIST when not overwriting and the target exists. */
  commit(): void {
    const fd = this.descriptor();
    fsyncSync(fd);
    closeSync(fd);
    this.fd = undefined;
    if (this.options.overwrite === false) {
      linkSync(this.tempPath, this.path);
      unlinkSync(this.tempPath);
    } else {
      renameSync(this.tempPath, this.path);
    }
    syncFolder(dirname(this.path));
  }

  /** Removes the temp file; safe to call after a failed commit or twice. */
  abort(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.tempPath, { force: true });
  }

  private descriptor(): number {
    if (this.fd === undefined) throw new Error(`${this.path}: already committed or aborted`);
    return this.fd;
  }
}

/** Makes a rename or link in `folder` durable. Windows cannot open a folder for syncing, and its renames are journaled. */
export function syncFolder(folder: string): void {
  if (process.platform === 'win32') return;
  syncFile(folder);
}

/** Flushes a finished file (or a folder's entries) to disk. */
export function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a whole file atomically (state files: connections, variables, histories). A failure (a full
 * disk, a folder it may not write) leaves the file as it was and says which file it is: the system's
 * message names no file for a failed write.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode?: number): void {
  writeWhole(path, data, { mode });
}

/**
 * Makes a new file atomically, as `writeFileAtomic` writes one, unless a file is there already:
 * false then, and that file is left as it is (another process made it first).
 */
export function createFileAtomic(path: string, data: string | Uint8Array, mode?: number): boolean {
  return writeWhole(path, data, { mode, overwrite: false });
}

function writeWhole(path: string, data: string | Uint8Array, options: AtomicFileOptions): boolean {
  let file: AtomicFile | undefined;
  try {
    file = new AtomicFile(path, options);
    file.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    file.commit();
    return true;
  } catch (e) {
    file?.abort();
    if (options.overwrite === false && (e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw writeFailure(path, e);
  }
}

/** A file system's failure to write `path` as the user's error, naming the file; anything else as it is. */
export function writeFailure(path: string, e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  // Errno codes (ENOSPC, EACCES, EFBIG…), not node's own ERR_… of a bad call.
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)
    ? new ScriptError(`cannot write ${path}: ${(e as Error).message}`, 'runtime')
    : e;
}

/**
 * What changes whenever a small workspace file is written again (a new inode, as writeFileAtomic
 * renames a new file over it), or undefined when there is none: how a store kept in memory sees
 * that another session or process changed the file.
 */
export function fileStamp(path: string): string | undefined {
  const s = statSync(path, { throwIfNoEntry: false, bigint: true });
  return s && `${s.ino}:${s.mtimeNs}:${s.size}`;
}
