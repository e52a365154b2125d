import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertJupyter, runKernelSuite, skipWithoutJupyter } from './jupyter';

const MODULES = ['jupyter_client', 'jupyter_kernel_test'];
/** Features the kernel does not have: the suite skips these two and nothing else. */
const UNSUPPORTED = new Set(['test_pager', 'test_clear_output']);

test(
  'the official Jupyter conformance suite (jupyter_kernel_test) passes whole',
  { skip: skipWithoutJupyter(MODULES) },
  async () => {
    assertJupyter(MODULES);
    const r = await runKernelSuite('test_conformance');
    assert.equal(r.code, 0, r.stderr);
    const skipped = [...r.stderr.matchAll(/^(test_\w+) \(.*\) \.\.\. skipped/gm)].map((m) => m[1]);
    assert.deepEqual(
      skipped.filter((t) => !UNSUPPORTED.has(t)),
      [],
      `samples missing for: ${skipped.join(', ')}`,
    );
    assert.match(r.stderr, /^Ran \d+ tests/m);
  },
);
