import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { endpoint, readConnectionFile, type ConnectionInfo } from '../../jupyter/connection';
import { MessageSocket } from '../../jupyter/socket';
import { newHeader, Signer, type Message } from '../../jupyter/wire';
import { listed, listingTo } from '../helpers/loaded-modules';
import { tempDir } from '../helpers/temp';
import { startKernel } from './process';

/**
 * A kernel's start as a client sees it (docs/jupyter.md, "Performance"): what the kernel loads before
 * its first kernel_info reply, and that reply's busy and idle reaching a client whose IOPub
 * subscription comes in after the request (jupyter_client sends it again after 0.2 s without them).
 */
const LIMITS = { timeout: 60_000 };
const PACKAGE = join(__dirname, '..', '..', '..', 'package.json');

const parentId = (m: Message) => (m.parent_header as { msg_id?: string }).msg_id;

/** One socket of the test's client, keeping every message it receives. */
class ClientSocket {
  private readonly received: Message[] = [];
  private readonly waiting = new Set<() => void>();
  private readonly socket: MessageSocket;

  constructor(t: { after(fn: () => void): void }, info: ConnectionInfo, channel: 'shell' | 'control' | 'iopub') {
    const socket = channel === 'iopub' ? new zmq.Subscriber({ linger: 0 }) : new zmq.Dealer({ linger: 0 });
    if (socket instanceof zmq.Subscriber) socket.subscribe();
    socket.connect(endpoint(info, channel));
    t.after(() => socket.close());
    this.socket = new MessageSocket(
      channel,
      socket,
      new Signer(info.key, info.signature_scheme),
      () => undefined,
      (c) => c,
    );
    void this.socket.receive((m) => {
      this.received.push(m);
      for (const wake of this.waiting) wake();
      this.waiting.clear();
    });
  }

  /** The messages received so far that `match`. */
  seen(match: (m: Message) => boolean): Message[] {
    return this.received.filter(match);
  }

  /** The first message received that `matches`, waiting for it. */
  async until(matches: (m: Message) => boolean): Promise<Message> {
    for (;;) {
      const found = this.received.find(matches);
      if (found) return found;
      await new Promise<void>((wake) => this.waiting.add(wake));
    }
  }

  /** Sends a request; its id. */
  async send(type: string, content: object): Promise<string> {
    const header = newHeader(type, randomUUID(), 'test');
    await this.socket.send({ identities: [], header, parent_header: {}, metadata: {}, content, buffers: [] });
    return header.msg_id;
  }

  async request(type: string, content: object): Promise<Message> {
    const id = await this.send(type, content);
    return this.until((m) => parentId(m) === id);
  }
}

test(
  'the kernel answers kernel_info having loaded of the runtime only where the workspace is and how secrets are masked',
  LIMITS,
  async (t) => {
    const dir = tempDir('kernel-startup');
    const list = join(dir, 'loaded.txt');
    const { kernel, file } = await startKernel(t, {
      dir,
      cwd: dir,
      env: { SQLCDC_HOME: join(dir, 'ws'), ...listingTo(list) },
    });
    const info = readConnectionFile(file);
    // No IOPub subscription: no client is ready, so the kernel does not load the interpreter after its reply.
    const reply = await new ClientSocket(t, info, 'shell').request('kernel_info_request', {});
    assert.equal(reply.header.msg_type, 'kernel_info_reply');
    const stopped = await new ClientSocket(t, info, 'control').request('shutdown_request', { restart: false });
    assert.equal(stopped.header.msg_type, 'shutdown_reply');
    const [code] = (await once(kernel, 'exit')) as [number];
    assert.equal(code, 0);

    const loaded = listed(list);
    const dependencies = Object.keys(
      (JSON.parse(readFileSync(PACKAGE, 'utf8')) as { dependencies: object }).dependencies,
    );
    const packages = new Set(loaded.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]));
    assert.deepEqual(
      dependencies.filter((d) => packages.has(d)),
      ['zeromq'],
    );
    assert.deepEqual(
      loaded.filter((f) => /^runtime\/(?!startup|workspace\/(location|secret-input|redact)|util\/fifo)/.test(f)),
      [],
    );
  },
);

test(
  'a kernel_info request that arrives before any IOPub subscription has its busy and idle seen by the client subscribing after it',
  LIMITS,
  async (t) => {
    const dir = tempDir('kernel-startup');
    const { kernel, file } = await startKernel(t, {
      dir,
      cwd: dir,
      env: { SQLCDC_HOME: join(dir, 'ws'), SQLCDC_KERNEL_TRACE: '1' },
    });
    const info = readConnectionFile(file);
    let log = '';
    kernel.stderr.on('data', (chunk: string) => (log += chunk));
    const shell = new ClientSocket(t, info, 'shell');
    const first = await shell.send('kernel_info_request', {});
    // The kernel has the request, and no client has subscribed yet (its trace line says it received it).
    while (!log.includes(`← shell kernel_info_request ${first}`)) await once(kernel.stderr, 'data');
    const iopub = new ClientSocket(t, info, 'iopub');
    await shell.until((m) => parentId(m) === first);
    // A second request's idle: whatever IOPub carried for the first has arrived before it.
    const second = await shell.send('kernel_info_request', {});
    await iopub.until((m) => parentId(m) === second && m.content.execution_state === 'idle');
    assert.deepEqual(
      iopub.seen((m) => parentId(m) === first && m.header.msg_type === 'status').map((m) => m.content.execution_state),
      ['busy', 'idle'],
    );
  },
);
