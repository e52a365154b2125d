import { randomBytes } from 'node:crypto';
import {
  close,
  closeSync,
  fdatasync,
  fsync,
  fsyncSync,
  link,
  linkSync,
  mkdirSync,
  open,
  openSync,
  rename,
  renameSync,
  rmSync,
  unlink,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { basename, dirname, join } from 'node:path';
import type { ByteSink } from '../util/bytes';

export interface AtomicFileOptions {
  mode?: number;
  overwrite?: boolean;
}

/** Folders AtomicFile.create made or found: a listener writes thousands of files into a few folders. */
const knownFolders = new Set<string>();

function tempPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * A file that appears whole or not at all: written under a temp name in the same folder (so the
 * rename stays on one file system), flushed to disk, renamed, and the folder flushed so the rename
 * itself survives a power cut. The temp name starts with a dot and ends in `.tmp-<pid>-<random>`,
 * so no reader that looks for a file's extension (`*.eds`, `*.json`) ever sees a partial one. A
 * crash leaves at most a temp file behind, never a half-written target.
 */
export class AtomicFile implements ByteSink {
  readonly tempPath: string;
  private fd: number | undefined;

  /** `overwrite: false` publishes with a hard link, which fails rather than replace an existing file. */
  constructor(
    readonly path: string,
    private readonly options: AtomicFileOptions = {},
    opened?: { tempPath: string; fd: number },
  ) {
    if (opened) {
      this.tempPath = opened.tempPath;
      this.fd = opened.fd;
      return;
    }
    mkdirSync(dirname(path), { recursive: true });
    this.tempPath = tempPathOf(path);
    this.fd = openSync(this.tempPath, 'wx', options.mode);
  }

  /**
   * As the constructor, creating the temp file on libuv's thread pool: creating a file in a busy
   * folder waits on the file system's journal, which flushes of other files hold meanwhile.
   */
  static async create(path: string, options: AtomicFileOptions = {}): Promise<AtomicFile> {
    if (!knownFolders.has(dirname(path))) {
      await mkdir(dirname(path), { recursive: true });
      knownFolders.add(dirname(path));
    }
    const tempPath = tempPathOf(path);
    const fd = await promisify(open)(tempPath, 'wx', options.mode);
    return new AtomicFile(path, options, { tempPath, fd });
  }

  write(data: Uint8Array): void {
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

  /**
   * As `commit`, without blocking the event loop: the flush runs on libuv's thread pool, where the
   * flushes of many files written at once overlap (the file system folds them into few journal
   * commits), and one flush of the folder covers every rename made while the previous one ran (a
   * group commit). For a listener writing a log per call.
   */
  async commitAsync(): Promise<void> {
    const fd = this.descriptor();
    this.fd = undefined;
    try {
      await promisify(fdatasync)(fd);
    } finally {
      closeSync(fd);
    }
    if (this.options.overwrite === false) {
      await promisify(link)(this.tempPath, this.path);
      await promisify(unlink)(this.tempPath);
    } else {
      await promisify(rename)(this.tempPath, this.path);
    }
    await syncFolderGrouped(dirname(this.path));
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

/** Folder flushes not started yet (whoever asks joins it) and under way, by folder. */
const queuedSyncs = new Map<string, Promise<void>>();
const runningSyncs = new Map<string, Promise<void>>();

/**
 * Makes the renames done so far in `folder` durable, sharing one flush among all callers that ask
 * while a flush is under way: the next one starts after it and covers all of them.
 */
function syncFolderGrouped(folder: string): Promise<void> {
  if (process.platform === 'win32') return Promise.resolve();
  const queued = queuedSyncs.get(folder);
  if (queued) return queued;
  const previous = runningSyncs.get(folder) ?? Promise.resolve();
  const next: Promise<void> = previous
    .catch(() => undefined)
    .then(async () => {
      queuedSyncs.delete(folder);
      runningSyncs.set(folder, next);
      const fd = await promisify(open)(folder, 'r');
      try {
        await promisify(fsync)(fd);
      } finally {
        await promisify(close)(fd);
      }
    })
    .finally(() => {
      if (runningSyncs.get(folder) === next) runningSyncs.delete(folder);
    });
  queuedSyncs.set(folder, next);
  return next;
}

/** Writes a whole file atomically (state files: connections, variables, histories). */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode?: number): void {
  const file = new AtomicFile(path, { mode });
  try {
    file.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    file.commit();
  } catch (e) {
    file.abort();
    throw e;
  }
}
