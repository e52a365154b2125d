import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';

const KERNEL = join(__dirname, '..', '..', 'kernel', 'main.js');
const LIMITS = { timeout: 60_000 };

/**
 * Starts the kernel as jupyter_client would (the connection file as argument, the notebook's folder
 * as working directory) and resolves with its first log line, once it has bound its sockets.
 */
async function startKernel(t: { after(fn: () => void): void }, cwd: string, args: string[], env: Record<string, string | undefined>) {
  const dir = tempDir('kernel-ws');
  const file = join(dir, 'kernel.json');
  // IPC endpoints in the test's own folder: freed TCP ports could be taken by another test process.
  writeFileSync(file, JSON.stringify({
    shell_port: 1, iopub_port: 2, stdin_port: 3, control_port: 4, hb_port: 5,
    ip: join(dir, 'kernel'), key: 'k', transport: 'ipc', signature_scheme: 'hmac-sha256', kernel_name: 'sqlcdc',
  }));
  const merged: Record<string, string | undefined> = { ...process.env, ...env };
  for (const k of Object.keys(merged)) if (merged[k] === undefined) delete merged[k];
  const kernel = spawn(process.execPath, [KERNEL, file, ...args], { cwd, env: merged, stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => kernel.kill());
  let log = '';
  kernel.stderr.setEncoding('utf8');
  while (!log.includes('\n')) {
    const [chunk] = (await once(kernel.stderr, 'data')) as [string];
    log += chunk;
  }
  return { file, firstLine: log.slice(0, log.indexOf('\n')) };
}

/** What %workspace says in the kernel's session, asked through `sqlcdc repl --existing`. */
async function workspaceOf(file: string): Promise<string | undefined> {
  const r = await runCli(tempDir('kernel-ws-client'), ['repl', '--existing', file], { input: '%workspace\n' });
  assert.equal(r.code, 0, r.stderr);
  return /^workspace: (.*)$/m.exec(r.stdout)?.[1];
}

test('the kernel started in a subfolder uses the .sqlcdc of a parent folder and logs which', LIMITS, async (t) => {
  const project = tempDir('kernel-project');
  mkdirSync(join(project, '.sqlcdc'));
  mkdirSync(join(project, 'notebooks'));
  const { file, firstLine } = await startKernel(t, join(project, 'notebooks'), [], { SQLCDC_HOME: undefined });
  assert.equal(firstLine, `[sqlcdc kernel] workspace ${join(project, '.sqlcdc')} (found in a parent folder)`);
  assert.equal(await workspaceOf(file), join(project, '.sqlcdc'));
  assert.ok(!existsSync(join(project, 'notebooks', '.sqlcdc')));
});

test('the kernel takes --workspace from its argv, over SQLCDC_HOME and a parent .sqlcdc', LIMITS, async (t) => {
  const project = tempDir('kernel-project');
  mkdirSync(join(project, '.sqlcdc'));
  const chosen = join(tempDir('kernel-chosen'), 'ws');
  const { file, firstLine } = await startKernel(t, project, ['--workspace', chosen], { SQLCDC_HOME: join(project, 'home') });
  assert.equal(firstLine, `[sqlcdc kernel] workspace ${chosen}`);
  assert.equal(await workspaceOf(file), chosen);
});

test('the kernel takes SQLCDC_HOME from its environment', LIMITS, async (t) => {
  const project = tempDir('kernel-project');
  const home = join(project, 'home');
  const { file, firstLine } = await startKernel(t, project, [], { SQLCDC_HOME: home });
  assert.equal(firstLine, `[sqlcdc kernel] workspace ${home} (from SQLCDC_HOME)`);
  assert.equal(await workspaceOf(file), home);
});
