import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../helpers/temp';

const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Issue 2 and the README: `npm start` opens the REPL on one session. Driven as a pipe: the statements
 * typed run, and the end of input (Ctrl-D) ends it with 0.
 */
test('npm start opens the REPL: a statement typed runs, the end of input exits 0', { timeout: 60_000 }, async () => {
  const home = join(tempDir('issue2-npm-start'), 'ws');
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, SQLCDC_HOME: home, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end("PRINT\n  'typed #toupper(in the repl)';\n");
  const code = await new Promise((done) => child.on('close', done));
  assert.equal(code, 0, stderr);
  assert.equal(stdout, 'typed IN THE REPL\n');
  assert.ok(existsSync(join(home, 'repl_history')), 'the REPL keeps its history in the workspace');
});
