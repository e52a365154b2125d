import { accessSync, constants, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { freemem, tmpdir } from 'node:os';
import { join } from 'node:path';

/** The room a memory folder must have to take the suite's largest files (1M-row states and logs). */
const ENOUGH = 4 * 1024 ** 3;
const TMPFS_MAGIC = 0x01021994;

/**
 * Where test folders go: Linux's /dev/shm when it is a tmpfs with room to spare, else the system's temp
 * folder. What the tests check is the same on either, but on a disk every open, rename and fsync of
 * the thousands the suite makes waits on the device (a change log test spent 45 s there against 12 s
 * in memory). A container's small /dev/shm (Docker's 64 MB), or a machine short of memory, is passed over.
 */
function base(): string {
  try {
    const fs = statfsSync('/dev/shm');
    accessSync('/dev/shm', constants.W_OK);
    // Free memory too: a tmpfs's size is only a ceiling on the memory its files take.
    if (fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= ENOUGH && freemem() >= ENOUGH) return '/dev/shm';
  } catch {
    // no /dev/shm here (macOS, Windows)
  }
  return tmpdir();
}

const BASE = base();

/** Every folder `tempDir` made in this process and not removed yet. */
const made = new Set<string>();

/**
 * One hook for the whole test file (node --test runs each file in a process of its own): it runs
 * whether the tests passed, failed or threw, after every `after` hook has stopped the servers, kernels
 * and CLI children that wrote into these folders.
 */
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * A new empty folder in /dev/shm or the system's temp folder (see `base`), named after the test `area`
 * for whoever looks there, removed when the test process exits.
 */
export function tempDir(area: string): string {
  const dir = mkdtempSync(join(BASE, `sqlcdc-${area}-`));
  made.add(dir);
  return dir;
}

/** Removes a `tempDir` folder now: large ones, or one a child process used and has stopped using. */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  made.delete(dir);
}
