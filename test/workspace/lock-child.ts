import { appendFileSync, existsSync } from 'node:fs';
import { whileHoldingFileLock, withFileLock } from '../../runtime/workspace/file-lock';

/**
 * A process taking a workspace lock, for lock-takeover.test.ts (run as a test file by `node --test`, it
 * does nothing):
 * - `--hold <file>`: takes `<file>`'s lock, says `held`, and keeps it until killed;
 * - `--enter <file> <journal> <go> sync|async`: says `ready`, waits for the file `go` to appear (so
 *   that every such process asks for the lock at the same moment), then takes the lock (as a quick
 *   workspace change does, or as a CAPTURE does) and writes `enter <pid>`, then `leave <pid>` a
 *   little later, to `journal`.
 */
const [mode, file, journal, go, kind] = process.argv.slice(2);
const held = new Int32Array(new SharedArrayBuffer(4));

if (mode === '--hold') {
  void whileHoldingFileLock(file, {}, async () => {
    process.stdout.write('held\n');
    await new Promise(() => setInterval(() => {}, 60_000));
  });
} else if (mode === '--enter') {
  const inside = () => {
    appendFileSync(journal, `enter ${process.pid}\n`);
    // Long enough for another process that took the lock too to write its own `enter` meanwhile.
    Atomics.wait(held, 0, 0, 30);
    appendFileSync(journal, `leave ${process.pid}\n`);
  };
  process.stdout.write('ready\n');
  while (!existsSync(go));
  if (kind === 'sync') withFileLock(file, inside);
  else void whileHoldingFileLock(file, {}, () => Promise.resolve(inside()));
}
