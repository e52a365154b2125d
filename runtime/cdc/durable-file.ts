import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { processAlive } from '../util/process-alive';

/**
 * Replaces `path` with `parts` so that a crash at any moment leaves either the old file or the new
 * one: the bytes go to a temp file in the same folder, which is flushed to disk before it is renamed
 * over `path`, and the folder is flushed after the rename so the rename itself survives a power loss.
 * Temp files that a killed writer left behind (their process is gone) are removed first.
 */
export async function writeFileDurably(path: string, parts: readonly Uint8Array[]): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  await removeStaleTemps(path);
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const file = await open(tmp, 'wx', 0o600);
  try {
    try {
      for (const part of parts) {
        for (let done = 0; done < part.length;) done += (await file.write(part, done, part.length - done)).bytesWritten;
      }
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** Temp files of `path` are named `<name>.<pid>.<random>.tmp`; those of a live process are left alone. */
async function removeStaleTemps(path: string): Promise<void> {
  const prefix = `${basename(path)}.`;
  const names = await readdir(dirname(path));
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length).split('.')[0]);
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    await rm(join(dirname(path), name), { force: true });
  }
}
