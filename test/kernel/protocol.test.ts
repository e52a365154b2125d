import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertJupyter, runKernelSuite, skipWithoutJupyter } from './jupyter';

const MODULES = ['jupyter_client', 'zmq'];

/**
 * test/kernel/py/test_protocol.py through Debian's jupyter_client: IOPub order over 100 executes,
 * display bundles, errors and stop_on_error, interrupts (message and SIGINT) of a hanging HTTP call and
 * (message) of a Parquet read stuck in decoding,
 * a forged signature, shutdown and restart, and the REPL attached with --existing.
 */
test('protocol behaviour through jupyter_client', { skip: skipWithoutJupyter(MODULES) }, async () => {
  assertJupyter(MODULES);
  const r = await runKernelSuite('test_protocol');
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /skipped/);
});
