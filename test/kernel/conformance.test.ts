import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeItems } from './items';
import { assertJupyter, installKernelspec, PY_DIR, ROOT, runPython, skipWithoutJupyter, withTempDir } from './jupyter';

const MODULES = ['jupyter_client', 'jupyter_kernel_test'];
/** Features the kernel does not have: the suite skips these two and nothing else. */
const UNSUPPORTED = new Set(['test_pager', 'test_clear_output']);

test('the official Jupyter conformance suite (jupyter_kernel_test) passes whole', { skip: skipWithoutJupyter(MODULES) }, async () => {
  assertJupyter(MODULES);
  const spec = installKernelspec();
  try {
    await withTempDir('sqlcdc-conformance-', async (dir) => {
      writeItems(dir);
      const r = await runPython(['-m', 'unittest', '-v', 'test_conformance'], {
        cwd: dir,
        env: { JUPYTER_PATH: spec.jupyterPath, JUPYTER_RUNTIME_DIR: dir, SQLCDC_HOME: join(dir, 'workspace'), PYTHONPATH: PY_DIR, SQLCDC_ROOT: ROOT },
      });
      assert.equal(r.code, 0, r.stderr);
      const skipped = [...r.stderr.matchAll(/^(test_\w+) \(.*\) \.\.\. skipped/gm)].map((m) => m[1]);
      assert.deepEqual(skipped.filter((t) => !UNSUPPORTED.has(t)), [], `samples missing for: ${skipped.join(', ')}`);
      assert.match(r.stderr, /^Ran \d+ tests/m);
    });
  } finally {
    spec.cleanup();
  }
});
