import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';
import { startKernel } from './process';

const LIMITS = { timeout: 60_000 };

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
  const { file, firstLine } = await startKernel(t, {
    dir: tempDir('kernel-ws'),
    cwd: join(project, 'notebooks'),
    env: { SQLCDC_HOME: undefined },
  });
  assert.equal(firstLine, `[sqlcdc kernel] workspace ${join(project, '.sqlcdc')} (found in a parent folder)`);
  assert.equal(await workspaceOf(file), join(project, '.sqlcdc'));
  assert.ok(!existsSync(join(project, 'notebooks', '.sqlcdc')));
});

test('the kernel takes --workspace from its argv, over SQLCDC_HOME and a parent .sqlcdc', LIMITS, async (t) => {
  const project = tempDir('kernel-project');
  mkdirSync(join(project, '.sqlcdc'));
  const chosen = join(tempDir('kernel-chosen'), 'ws');
  const { file, firstLine } = await startKernel(t, {
    dir: tempDir('kernel-ws'),
    cwd: project,
    args: ['--workspace', chosen],
    env: { SQLCDC_HOME: join(project, 'home') },
  });
  assert.equal(firstLine, `[sqlcdc kernel] workspace ${chosen}`);
  assert.equal(await workspaceOf(file), chosen);
});

test('the kernel takes SQLCDC_HOME from its environment', LIMITS, async (t) => {
  const project = tempDir('kernel-project');
  const home = join(project, 'home');
  const { file, firstLine } = await startKernel(t, {
    dir: tempDir('kernel-ws'),
    cwd: project,
    env: { SQLCDC_HOME: home },
  });
  assert.equal(firstLine, `[sqlcdc kernel] workspace ${home} (from SQLCDC_HOME)`);
  assert.equal(await workspaceOf(file), home);
});
