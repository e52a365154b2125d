import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/temp';
import { assertJupyter, installKernelspec, PY_DIR, runPython, skipWithoutJupyter } from './jupyter';

const MODULES = ['jupyter_console'];

/**
 * Issue 3, "done when": `jupyter console --kernel sqlcdc` works with Tab completion. Debian's console in
 * a pseudo-terminal (test/kernel/py/console_tab.py): Tab after `[ord` completes the connection name,
 * after `APPLY T` the keyword.
 */
test(
  'jupyter console --kernel sqlcdc completes a connection name and a keyword on Tab',
  { skip: skipWithoutJupyter(MODULES), timeout: 180_000 },
  async (t) => {
    assertJupyter(MODULES);
    const spec = installKernelspec();
    t.after(() => spec.cleanup());
    const dir = tempDir('console-tab');
    const r = await runPython([join(PY_DIR, 'console_tab.py')], {
      cwd: dir,
      limitSeconds: 150,
      env: {
        JUPYTER_PATH: spec.jupyterPath,
        JUPYTER_RUNTIME_DIR: dir,
        SQLCDC_HOME: join(dir, 'workspace'),
      },
    });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  },
);
