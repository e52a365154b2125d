import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeItems } from './items';
import { assertJupyter, installKernelspec, PY_DIR, ROOT, runPython, skipWithoutJupyter, withTempDir } from './jupyter';

const MODULES = ['jupyter_client', 'zmq'];

/**
 * test/kernel/py/test_protocol.py through Debian's jupyter_client: IOPub order over 100 executes,
 * display bundles, errors and stop_on_error, interrupts (message and SIGINT) of a hanging HTTP call,
 * a forged signature, shutdown and restart, and the REPL attached with --existing.
 */
test('protocol behaviour through jupyter_client', { skip: skipWithoutJupyter(MODULES) }, async () => {
  assertJupyter(MODULES);
  const spec = installKernelspec();
  try {
    await withTempDir('sqlcdc-protocol-', async (dir) => {
      writeItems(dir);
      const r = await runPython(['-m', 'unittest', '-v', 'test_protocol'], {
        cwd: dir,
        env: {
          JUPYTER_PATH: spec.jupyterPath,
          JUPYTER_RUNTIME_DIR: dir,
          SQLCDC_HOME: join(dir, 'workspace'),
          PYTHONPATH: PY_DIR,
          SQLCDC_ROOT: ROOT,
          SQLCDC_NODE: process.execPath,
        },
      });
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /skipped/);
    });
  } finally {
    spec.cleanup();
  }
});
