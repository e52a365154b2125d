import { closeSync, fdatasync, fsync, linkSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { parentPort } from 'node:worker_threads';

/** A file the event loop hands over (group-commit.ts). */
export interface ToPublish {
  id: number;
  path: string;
  tempPath: string;
  parts: readonly Uint8Array[];
  overwrite: boolean;
  mode?: number;
}

/** What the thread answers, once per batch (and at once for files it could not even write). */
export interface Published {
  done: number[];
  failed: { id: number; message: string; code?: string }[];
}

interface Written {
  file: ToPublish;
  fd?: number;
  error?: unknown;
}

const fdatasyncAsync = promisify(fdatasync);
const fsyncAsync = promisify(fsync);

/**
 * Flushes running on the thread pool at once, at most: enough for the flushes of a whole batch to
 * overlap (the listener raises the pool to 64 threads), bounded so a burst cannot queue thousands.
 */
const FLUSHES_IN_FLIGHT = 48;

let written: Written[] = [];
let committing = false;

/** Creates the temp file and writes it, synchronously: this thread exists to do exactly that. */
function write(file: ToPublish): Written {
  const create = () => openSync(file.tempPath, 'wx', file.mode);
  let fd: number;
  try {
    fd = create();
  } catch (e) {
    // The folder is made when missing rather than checked before each of thousands of files.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { file, error: e };
    try {
      mkdirSync(dirname(file.path), { recursive: true });
      fd = create();
    } catch (again) {
      return { file, error: again };
    }
  }
  const w: Written = { file, fd };
  try {
    for (const part of file.parts) for (let at = 0; at < part.length;) at += writeSync(fd, part, at);
  } catch (e) {
    w.error = e;
  }
  return w;
}

/** Runs `step` over the items, `limit` at a time. */
async function bounded<T>(items: readonly T[], limit: number, step: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await step(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

async function commit(batch: Written[]): Promise<void> {
  await bounded(batch, FLUSHES_IN_FLIGHT, async (w) => {
    if (w.error !== undefined) return;
    try {
      await fdatasyncAsync(w.fd!);
    } catch (e) {
      w.error = e;
    }
  });
  const folders = new Map<string, Written[]>();
  for (const w of batch) {
    closeSync(w.fd!);
    w.fd = undefined;
    if (w.error !== undefined) continue;
    try {
      if (w.file.overwrite) renameSync(w.file.tempPath, w.file.path);
      else {
        linkSync(w.file.tempPath, w.file.path);
        unlinkSync(w.file.tempPath);
      }
    } catch (e) {
      w.error = e;
      continue;
    }
    const folder = dirname(w.file.path);
    folders.set(folder, [...(folders.get(folder) ?? []), w]);
  }
  // One flush per folder makes every rename and link of the batch in it durable.
  if (process.platform !== 'win32') {
    await bounded([...folders], FLUSHES_IN_FLIGHT, async ([folder, ws]) => {
      try {
        const fd = openSync(folder, 'r');
        try {
          await fsyncAsync(fd);
        } finally {
          closeSync(fd);
        }
      } catch (e) {
        for (const w of ws) w.error = e;
      }
    });
  }
  answer(batch);
}

/** Tells the event loop how each file ended; a failed one's temp file goes (a published file is whole and stays). */
function answer(ws: Written[]): void {
  const published: Published = { done: [], failed: [] };
  for (const w of ws) {
    if (w.error === undefined) {
      published.done.push(w.file.id);
      continue;
    }
    if (w.fd !== undefined) closeSync(w.fd);
    try {
      unlinkSync(w.file.tempPath);
    } catch {
      // never created, or already gone
    }
    const e = w.error as NodeJS.ErrnoException;
    published.failed.push({ id: w.file.id, message: e.message ?? String(e), ...(e.code ? { code: e.code } : {}) });
  }
  parentPort!.postMessage(published);
}

/** Starts a batch of what has been written unless one is under way; that one starts the next when it ends. */
function next(): void {
  if (committing || written.length === 0) return;
  committing = true;
  const batch = written;
  written = [];
  void commit(batch)
    .catch((e: unknown) => {
      // Only a bug gets here; none of the batch is known to be on disk, so none may be answered done.
      for (const w of batch) w.error ??= e;
      answer(batch);
    })
    .finally(() => {
      committing = false;
      next();
    });
}

parentPort!.on('message', (files: ToPublish[]) => {
  const failed: Written[] = [];
  for (const file of files) {
    const w = write(file);
    if (w.error === undefined) written.push(w);
    else failed.push(w);
  }
  if (failed.length > 0) answer(failed);
  next();
});
