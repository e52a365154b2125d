import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/temp';
import { assertJupyter, installKernelspec, PYTHON, skipWithoutJupyter } from './jupyter';

/**
 * docs/jupyter.md tells terminal users how to see webhook calls in `jupyter console` as they arrive:
 * Debian's console 6.4 reads the kernel's output only after each cell unless
 * `include_other_output` is on. This runs that command line as documented, through pipes
 * (`--simple-prompt`, the console's own mode for scripted use), and posts to the listener while the
 * console waits at its prompt with nothing typed.
 */
const MODULES = ['jupyter_console'];

test(
  'jupyter console with include_other_output shows a webhook call while it waits at the prompt',
  { skip: skipWithoutJupyter(MODULES), timeout: 120_000 },
  async (t) => {
    assertJupyter(MODULES);
    const spec = installKernelspec();
    t.after(() => spec.cleanup());
    const dir = tempDir('console');
    const child = spawn(
      PYTHON,
      [
        '-m',
        'jupyter_console',
        '--kernel',
        'sqlcdc',
        '--simple-prompt',
        '--ZMQTerminalInteractiveShell.include_other_output=True',
      ],
      {
        cwd: dir,
        env: {
          ...process.env,
          JUPYTER_PATH: spec.jupyterPath,
          JUPYTER_RUNTIME_DIR: dir,
          SQLCDC_HOME: join(dir, 'workspace'),
          PYTHONDONTWRITEBYTECODE: '1',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    t.after(() => child.kill('SIGKILL'));
    let output = '';
    let wake = (): void => undefined;
    child.stdout.on('data', (d) => {
      output += d;
      wake();
    });
    child.stderr.on('data', (d) => (output += d));
    const seen = (pattern: RegExp): Promise<RegExpExecArray> =>
      new Promise((found, failed) => {
        const check = (): void => {
          const m = pattern.exec(output);
          if (m) found(m);
        };
        wake = check;
        child.once('close', () => failed(new Error(`the console ended before ${pattern}:\n${output}`)));
        check();
      });

    child.stdin.write('%webhook start --no-auth\n');
    const [url] = await seen(/http:\/\/127\.0\.0\.1:\d+\/job\/push\?guid=[0-9a-f]{32}/);
    await seen(/In \[2\]: /);
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ sku: 'lamp', qty: 2 }]),
    });
    assert.equal(answer.status, 202);
    // Nothing more is typed: the call's table must reach the terminal on its own.
    const [shown] = await seen(/webhook call 1 \(POST, 1 row\)[\s\S]*lamp[\s\S]*\(1 row\)/);
    assert.match(shown, /│ sku +│ qty │/);
    child.stdin.end();
    await new Promise((done) => child.once('close', done));
  },
);
