import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { tempDir } from '../helpers/session';
import { ipcConnectionFile, KERNEL } from './process';

// A console killed with its terminal leaves the kernel with closed stdout/stderr pipes and a dead
// parent. The kernel must notice the parent is gone and exit, not loop on failing log writes.
test('the kernel exits when its parent is gone, even with its output pipes closed', { timeout: 60_000 }, async () => {
  const dir = tempDir('kernel-life');
  const file = ipcConnectionFile(dir);
  const parent = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1500)'], { stdio: 'ignore' });
  const kernel = spawn(process.execPath, [KERNEL, file], {
    cwd: dir,
    env: { ...process.env, JPY_PARENT_PID: String(parent.pid), SQLCDC_HOME: join(dir, 'ws') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(kernel, 'exit');
  // the terminal goes away: nobody reads the kernel's output any more
  kernel.stdout.destroy();
  kernel.stderr.destroy();
  await once(parent, 'exit');
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0);
});
