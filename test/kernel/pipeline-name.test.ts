import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';
import { startKernel } from './process';

const LIMITS = { timeout: 60_000 };

/** Runs `input` in the kernel's session through `sqlcdc repl --existing`; its stdout. */
async function inKernel(file: string, input: string): Promise<string> {
  const r = await runCli(tempDir('kernel-pipeline-client'), ['repl', '--existing', file], { input });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

test(
  "in Jupyter the pipeline name is the notebook's file name: it keys the CDC state and names the change logs",
  LIMITS,
  async (t) => {
    const project = tempDir('kernel-pipeline');
    writeFileSync(join(project, 'orders.csv'), 'id,status\n1,new\n2,new\n');
    const ws = join(project, 'ws');
    const { file } = await startKernel(t, {
      dir: tempDir('kernel-pipeline-conn'),
      cwd: project,
      args: ['--workspace', ws],
      // jupyter_server names the notebook's path, relative to its root, in JPY_SESSION_NAME.
      env: { JPY_SESSION_NAME: 'sales/orders sync.ipynb' },
    });
    assert.match(await inKernel(file, '%pipeline\n'), /^pipeline: orders_sync$/m);
    await inKernel(file, "SELECT * FROM DRIVE 'orders.csv';\nCAPTURE ON KEYS 'id';\n");
    const [log] = readdirSync(join(ws, 'changelogs', 'orders_sync'));
    assert.match(log, /^orders_sync_\d+\.eds$/);
    assert.deepEqual(readdirSync(join(ws, 'cdc')), ['orders_sync']);
  },
);
