import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertJupyter, PY_DIR, runKernelSuite, skipWithoutJupyter } from './jupyter';

const MODULES = ['jupyter_client', 'zmq'];

/**
 * The test classes of test_protocol.py, read from the file so that a class added there runs too. Each
 * starts kernels of its own and spends most of its time waiting on them (a kernel starting, an
 * interrupt, a REPL noticing a dead kernel): run side by side, each in a folder and workspace of its
 * own, they take the time of the longest rather than of all three.
 */
const CLASSES = [
  ...readFileSync(join(PY_DIR, 'test_protocol.py'), 'utf8').matchAll(/^class (\w+)\(unittest\.TestCase\):/gm),
].map((m) => m[1]);

/**
 * test/kernel/py/test_protocol.py through Debian's jupyter_client: IOPub order over 100 executes,
 * display bundles, errors and stop_on_error, interrupts (message and SIGINT) of a hanging HTTP call and
 * (message) of a Parquet read stuck in decoding,
 * a forged signature, shutdown and restart, and the REPL attached with --existing.
 */
test('protocol behaviour through jupyter_client', { skip: skipWithoutJupyter(MODULES) }, async () => {
  assertJupyter(MODULES);
  assert.ok(CLASSES.length >= 3, `test classes found in test_protocol.py: ${CLASSES.join(', ')}`);
  const runs = await Promise.all(CLASSES.map((name) => runKernelSuite(`test_protocol.${name}`)));
  for (const [i, r] of runs.entries()) {
    assert.equal(r.code, 0, `${CLASSES[i]}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /skipped/, CLASSES[i]);
  }
});
