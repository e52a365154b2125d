import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
 * A new empty folder in the system's temp folder, named after the test `area` for whoever looks there,
 * removed when the test process exits.
 */
export function tempDir(area: string): string {
  const dir = mkdtempSync(join(tmpdir(), `sqlcdc-${area}-`));
  made.add(dir);
  return dir;
}

/** Removes a `tempDir` folder now: large ones, or one a child process used and has stopped using. */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  made.delete(dir);
}
