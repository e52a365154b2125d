import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertJupyter, runKernelSuite, skipWithoutJupyter } from '../kernel/jupyter';

const MODULES = ['jupyter_client', 'zmq'];

/** test/kernel/py/test_webhook.py: %webhook in the kernel with a real HTTP POST, seen through jupyter_client. */
test(
  '%webhook through jupyter_client: the call shows under the cell that started the listener',
  { skip: skipWithoutJupyter(MODULES) },
  async () => {
    assertJupyter(MODULES);
    const r = await runKernelSuite('test_webhook');
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /skipped/);
  },
);
