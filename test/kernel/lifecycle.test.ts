import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers/session';

const KERNEL = join(__dirname, '..', '..', 'kernel', 'main.js');

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

// A console killed with its terminal leaves the kernel with closed stdout/stderr pipes and a dead
// parent. The kernel must notice the parent is gone and exit, not loop on failing log writes.
test('the kernel exits when its parent is gone, even with its output pipes closed', { timeout: 60_000 }, async () => {
  const dir = tempDir('kernel-life');
  const [shell, iopub, stdin, control, hb] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const file = join(dir, 'kernel.json');
  writeFileSync(file, JSON.stringify({
    shell_port: shell, iopub_port: iopub, stdin_port: stdin, control_port: control, hb_port: hb,
    ip: '127.0.0.1', key: 'k', transport: 'tcp', signature_scheme: 'hmac-sha256', kernel_name: 'sqlcdc',
  }));
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
  const [code] = await exited;
  assert.equal(code, 0);
});
