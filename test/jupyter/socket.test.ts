import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import * as zmq from 'zeromq';
import { MessageSocket } from '../../jupyter/socket';
import { childOf, decode, Signer, type Message } from '../../jupyter/wire';
import { tempDir } from '../helpers/temp';

const signer = new Signer('key');
const message = (n: number) => childOf(undefined, 'stream', { n }, 'session') as Message<unknown>;

test('messages published while the peer cannot take them wait, then leave in order', async () => {
  // A DEALER with no peer has no room: its first send waits, and zeromq rejects the next ones (EBUSY).
  // An IPC path in a fresh folder, not a freed TCP port: another test process may take the port first.
  const folder = tempDir('sockets');
  const address = `ipc://${join(folder, 'shell')}`;
  const dealer = new zmq.Dealer({ linger: 0 });
  try {
    const logged: string[] = [];
    const socket = new MessageSocket(
      'shell',
      dealer,
      signer,
      (text) => logged.push(text),
      (content) => content,
    );
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
      // A send that waited for room is not a failed send.
      assert.deepEqual(
        logged.filter((line) => line.includes('send failed')),
        [],
      );
    } finally {
      peer.close();
    }
  } finally {
    dealer.close();
  }
});
