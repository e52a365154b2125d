import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';
import { startKernel } from './process';

const LIMITS = { timeout: 60_000 };

test(
  'a kernel the server does not name a notebook to (nbclient, jupyter console) has the pipeline `notebook`; %pipeline NAME sets it',
  LIMITS,
  async (t) => {
    const project = tempDir('kernel-pipeline-default');
    writeFileSync(join(project, 'orders.csv'), 'id,status\n1,new\n');
    const ws = join(project, 'ws');
    const { file } = await startKernel(t, {
      dir: tempDir('kernel-pipeline-default-conn'),
      cwd: project,
      args: ['--workspace', ws],
      env: { JPY_SESSION_NAME: undefined },
    });
    const input = "%pipeline\nSELECT * FROM DRIVE 'orders.csv';\nCAPTURE ON KEYS 'id';\n%pipeline daily\n%pipeline\n";
    const r = await runCli(tempDir('kernel-pipeline-default-client'), ['repl', '--existing', file], { input });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^pipeline: notebook$/m);
    assert.match(r.stdout, /^pipeline: daily\npipeline: daily$/m);
    assert.match(readdirSync(join(ws, 'changelogs', 'notebook'))[0], /^notebook_\d+\.eds$/);
  },
);
