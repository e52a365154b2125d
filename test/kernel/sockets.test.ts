import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as zmq from 'zeromq';
import { MessageSocket } from '../../kernel/sockets';
import { childOf, decode, Signer, type Message } from '../../kernel/wire';

const signer = new Signer('key');
const message = (n: number) => childOf(undefined, 'stream', { n }, 'session') as Message<unknown>;

test('messages published while the peer cannot take them wait, then leave in order', async () => {
  // A DEALER with no peer has no room: its first send waits, and zeromq rejects the next ones (EBUSY).
  const dealer = new zmq.Dealer({ linger: 0 });
  const router = new zmq.Router({ linger: 0 });
  try {
    await router.bind('tcp://127.0.0.1:*');
    const address = router.lastEndpoint!;
    router.close();
    const socket = new MessageSocket('shell', dealer, signer);
    dealer.connect(address);
    const sends = [1, 2, 3, 4, 5].map((n) => socket.send(message(n)));
    const peer = new zmq.Router({ linger: 0 });
    try {
      await peer.bind(address);
      const received: number[] = [];
      for (let i = 0; i < 5; i++) {
        const frames = await peer.receive();
        received.push((decode(frames, signer).content as { n: number }).n);
      }
      await Promise.all(sends);
      assert.deepEqual(received, [1, 2, 3, 4, 5]);
      // With room again, a message is handed over at once and still after the others.
      await socket.send(message(6));
      assert.equal((decode(await peer.receive(), signer).content as { n: number }).n, 6);
    } finally {
      peer.close();
    }
  } finally {
    dealer.close();
    if (!router.closed) router.close();
  }
});
