import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Heartbeat } from '../../kernel/heartbeat';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * A client in another thread pings the heartbeat while this thread is blocked (as a long cell
 * blocks the kernel's event loop) and wakes it when the echo comes back. Waking by notification,
 * not by the wait's bound, proves the heartbeat answered while the main thread could not.
 */
test('the heartbeat answers while the main thread is blocked', async () => {
  const address = `tcp://127.0.0.1:${await freePort()}`;
  const heartbeat = new Heartbeat(address, (e) => assert.fail(e));
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const client = new Worker(
    `
    const { workerData } = require('node:worker_threads');
    const zmq = require(${JSON.stringify(require.resolve('zeromq'))});
    (async () => {
      const dealer = new zmq.Dealer({ linger: 0, receiveTimeout: 20000 });
      dealer.connect(workerData.address);
      await dealer.send([Buffer.alloc(0), Buffer.from('ping')]);
      const echo = await dealer.receive().then(([, frame]) => frame.toString(), () => 'no answer');
      Atomics.store(workerData.flag, 0, echo === 'ping' ? 1 : 2);
      Atomics.notify(workerData.flag, 0);
      dealer.close();
    })();
    `,
    { eval: true, workerData: { address, flag } },
  );
  const woken = Atomics.wait(flag, 0, 0, 20_000);
  await new Promise((r) => client.once('exit', r));
  await heartbeat.stop();
  assert.notEqual(woken, 'timed-out', 'no echo while the main thread was blocked');
  assert.equal(flag[0], 1);
});
