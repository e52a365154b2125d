import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertJupyter, runKernelSuite, skipWithoutJupyter } from './jupyter';

const MODULES = ['jupyter_client', 'zmq'];

/**
 * test/kernel/py/test_issue3_contract.py through Debian's jupyter_client: the parts issue 3 names as
 * they reach a real client — completion of keywords, #/@ functions, columns, connection names and
 * magics; inspect of a function or command; is_complete with its indent; %help, %connection, %limit,
 * %reset and %workspace in the kernel.
 */
test('issue 3 interfaces through jupyter_client', { skip: skipWithoutJupyter(MODULES) }, async () => {
  assertJupyter(MODULES);
  const r = await runKernelSuite('test_issue3_contract');
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /skipped/);
  assert.match(r.stderr, /^Ran 5 tests/m);
});
