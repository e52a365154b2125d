import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertJupyter, runKernelSuite, skipWithoutJupyter } from './jupyter';

const MODULES = ['jupyter_client', 'zmq'];

/**
 * Issue 15 in Jupyter, test/kernel/py/test_issue15_secrets.py through Debian's jupyter_client:
 * `%connection list`, a refused inline URL, and a failing database call never show a secret.
 */
test('no kernel output shows a connection secret', { skip: skipWithoutJupyter(MODULES) }, async () => {
  assertJupyter(MODULES);
  const r = await runKernelSuite('test_issue15_secrets');
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /skipped/);
});
