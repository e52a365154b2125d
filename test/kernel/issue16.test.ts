import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertJupyter, runKernelSuite, skipWithoutJupyter } from './jupyter';

const MODULES = ['jupyter_client', 'zmq'];

/** Issue 16 in Jupyter, test/kernel/py/test_issue16.py through Debian's jupyter_client: a decimal keeps its scale in the data resource. */
test('issue 16 through jupyter_client', { skip: skipWithoutJupyter(MODULES) }, async () => {
  assertJupyter(MODULES);
  const r = await runKernelSuite('test_issue16');
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /skipped/);
});
