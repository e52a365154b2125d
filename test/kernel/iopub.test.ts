import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import * as zmq from 'zeromq';
import { IOPUB_LIMITS, IopubPublisher, type IopubLimits } from '../../kernel/iopub';
import { childOf, decode, Signer, type Message } from '../../jupyter/wire';
import { tempDir } from '../helpers/temp';

const signer = new Signer('key');
/** Bounds a receive that would wait for ever (a lost message); not a timing check. */
const RECEIVE_LIMIT_MS = 20_000;

const cell = (id: string) => ({
  header: { msg_id: id, msg_type: 'execute_request', session: 'client', username: 'u', date: '', version: '5.3' },
  identities: [],
});
const stream = (parent: string, name: string, text: string) =>
  childOf(cell(parent), 'stream', { name, text }, 'kernel', []) as Message<unknown>;
const display = (parent: string, type: string, id: string, text: string) =>
  childOf(
    cell(parent),
    type,
    { data: { 'text/plain': text }, metadata: {}, transient: { display_id: id } },
    'kernel',
    [],
  ) as Message<unknown>;
const status = (parent: string, state: string) =>
  childOf(cell(parent), 'status', { execution_state: state }, 'kernel', []) as Message<unknown>;

interface Rig {
  publisher: IopubPublisher;
  /** A subscriber that is known to receive what is published from now on. */
  subscribe: (options?: { receiveHighWaterMark?: number }) => Promise<zmq.Subscriber>;
}

const PROBE = 'probe';

/** A publisher on an IPC path in a fresh folder (a freed TCP port could be taken by another test process). */
async function withPublisher(
  limits: IopubLimits,
  options: { sendHighWaterMark?: number },
  fn: (rig: Rig) => Promise<void>,
): Promise<void> {
  const folder = tempDir('iopub');
  const address = `ipc://${join(folder, 'iopub')}`;
  const publisher = new IopubPublisher(new zmq.XPublisher({ linger: 0, ...options }), signer, limits);
  const subscribers: zmq.Subscriber[] = [];
  try {
    await publisher.socket.bind(address);
    await fn({
      publisher,
      async subscribe(o = {}) {
        const sub = new zmq.Subscriber({ linger: 0, receiveTimeout: 50, ...o });
        subscribers.push(sub);
        sub.connect(address);
        sub.subscribe();
        // Subscribing takes a moment to reach the publisher: probe until one gets through.
        for (let i = 0; ; i++) {
          void publisher.publish(status(PROBE, PROBE));
          try {
            await sub.receive();
            break;
          } catch (e) {
            if (i > 400) throw e;
          }
        }
        sub.receiveTimeout = RECEIVE_LIMIT_MS;
        return sub;
      },
    });
  } finally {
    publisher.close();
    for (const s of subscribers) s.close();
  }
}

const parentOf = (m: Message) => (m.parent_header as { msg_id?: string }).msg_id;

/** The next message other than a probe. */
async function next(sub: zmq.Subscriber): Promise<Message> {
  for (;;) {
    const m = decode(await sub.receive(), signer);
    if (parentOf(m) !== PROBE) return m;
  }
}

/** Every message up to and including the idle of `parent`. */
async function untilIdle(sub: zmq.Subscriber, parent: string): Promise<Message[]> {
  const out: Message[] = [];
  for (;;) {
    const m = await next(sub);
    out.push(m);
    if (m.header.msg_type === 'status' && m.content.execution_state === 'idle' && parentOf(m) === parent) return out;
  }
}

const yieldToLoop = () => new Promise((r) => setImmediate(r));

test('stream writes of one request and stream are coalesced, in order, and flushed by the next message', async () => {
  await withPublisher(IOPUB_LIMITS, {}, async ({ publisher, subscribe }) => {
    const sub = await subscribe();
    void publisher.publish(status('a', 'busy'));
    for (let i = 0; i < 20_000; i++) void publisher.publish(stream('a', 'stdout', `${i}\n`));
    void publisher.publish(stream('a', 'stderr', 'warned\n'));
    void publisher.publish(stream('a', 'stdout', 'after\n'));
    void publisher.publish(stream('b', 'stdout', 'other cell\n'));
    void publisher.publish(status('a', 'idle'));
    const messages = await untilIdle(sub, 'a');
    // 109 KB of text: two messages (a stream message is cut at 64 K characters), not 20,000
    assert.equal(messages.length, 7);
    const runs: [string, string | undefined, unknown, string][] = [];
    for (const m of messages) {
      const key = m.content.name ?? m.content.execution_state;
      const prev = runs.at(-1);
      if (m.header.msg_type === 'stream' && prev?.[0] === 'stream' && prev[1] === parentOf(m) && prev[2] === key)
        prev[3] += m.content.text as string;
      else runs.push([m.header.msg_type, parentOf(m), key, (m.content.text as string) ?? '']);
    }
    let expected = '';
    for (let i = 0; i < 20_000; i++) expected += `${i}\n`;
    assert.deepEqual(runs, [
      ['status', 'a', 'busy', ''],
      ['stream', 'a', 'stdout', expected],
      ['stream', 'a', 'stderr', 'warned\n'],
      ['stream', 'a', 'stdout', 'after\n'],
      ['stream', 'b', 'stdout', 'other cell\n'],
      ['status', 'a', 'idle', ''],
    ]);
  });
});

test('a lone stream write leaves after the flush interval, with nothing published behind it', async () => {
  await withPublisher(IOPUB_LIMITS, {}, async ({ publisher, subscribe }) => {
    const sub = await subscribe();
    void publisher.publish(stream('a', 'stdout', 'progress\n'));
    const m = await next(sub);
    assert.deepEqual([m.header.msg_type, m.content.text], ['stream', 'progress\n']);
  });
});

const LINE = (n: number) => `${String(n).padStart(6, '0')} ${'.'.repeat(992)}\n`;

test('a subscriber reading nothing: waiting output stays bounded, the excess is dropped with a marker where it was, status is kept', async () => {
  const limits = { ...IOPUB_LIMITS, streamChars: 1024, backlogBytes: 32 * 1024, stallMs: 600_000 };
  await withPublisher(limits, { sendHighWaterMark: 4 }, async ({ publisher, subscribe }) => {
    const sub = await subscribe({ receiveHighWaterMark: 4 });
    const writes = 10_000; // 10 MB: far more than ZeroMQ's and the system's buffers hold
    for (let n = 0; n < writes;) {
      // a cell's statements give the event loop a turn now and then; 10 KB at a time stays under the backlog bound
      for (let k = 0; k < 10; k++, n++) void publisher.publish(stream('a', 'stdout', LINE(n)));
      await yieldToLoop();
    }
    void publisher.publish(status('a', 'idle'));
    const messages = await untilIdle(sub, 'a');
    assert.equal(messages.at(-1)?.header.msg_type, 'status');
    assert.ok(
      assertGapsTold(messages.slice(0, -1), writes) > 0,
      'nothing was dropped: the test did not fill the buffers',
    );
  });
});

/**
 * Checks that the stream lines (LINE(0) to LINE(writes - 1)) arrived in order, each gap told by
 * markers right where it is with counts that add up; returns the number of markers.
 */
function assertGapsTold(messages: Message[], writes: number): number {
  let expected = 0;
  let told = 0;
  let markers = 0;
  for (const m of messages) {
    assert.equal(parentOf(m), 'a');
    if (m.content.name === 'stderr') {
      const count = /^\[sqlcdc: (\d+) outputs? dropped here: /.exec(m.content.text as string);
      assert.ok(count, m.content.text as string);
      told += Number(count[1]);
      markers++;
      continue;
    }
    for (const line of (m.content.text as string).split('\n').slice(0, -1)) {
      const n = Number(line.slice(0, 6));
      assert.equal(line, LINE(n).slice(0, -1));
      assert.equal(n - expected, told, `lines ${expected} to ${n - 1} missing, markers tell of ${told}`);
      expected = n + 1;
      told = 0;
    }
  }
  assert.equal(writes - expected, told);
  return markers;
}

test('past the bound, a display updated in place skips states but arrives in its latest one, a display_data first, before what follows', async () => {
  const limits = { ...IOPUB_LIMITS, streamChars: 1024, backlogBytes: 32 * 1024, stallMs: 600_000 };
  await withPublisher(limits, { sendHighWaterMark: 4 }, async ({ publisher, subscribe }) => {
    const sub = await subscribe({ receiveHighWaterMark: 4 });
    const batches = 100;
    const burst = 40; // 40 KB published at once: past the bound before any of it can leave
    void publisher.publish(display('a', 'display_data', 'p', 'p 0'));
    let writes = 0;
    for (let b = 1; b <= batches; b++) {
      for (let k = 0; k < burst; k++) void publisher.publish(stream('a', 'stdout', LINE(writes++)));
      void publisher.publish(display('a', 'update_display_data', 'p', `p ${b}`));
      // published past the bound: the client would never get the display its updates are for
      if (b === 10) void publisher.publish(display('a', 'display_data', 'q', `q ${b}`));
      if (b > 10) void publisher.publish(display('a', 'update_display_data', 'q', `q ${b}`));
      await yieldToLoop();
    }
    void publisher.publish(display('a', 'update_display_data', 'p', `p ${batches + 1}`));
    void publisher.publish(status('a', 'idle'));
    const messages = await untilIdle(sub, 'a');
    const shown = new Map<string, Message[]>();
    for (const m of messages) {
      const id = (m.content.transient as { display_id?: string } | undefined)?.display_id;
      if (id) shown.set(id, [...(shown.get(id) ?? []), m]);
    }
    for (const [id, last] of [
      ['p', batches + 1],
      ['q', batches],
    ] as const) {
      const states = shown.get(id) ?? [];
      assert.deepEqual(
        states.map((m) => m.header.msg_type),
        ['display_data', ...Array<string>(states.length - 1).fill('update_display_data')],
        `display ${id}`,
      );
      const numbers = states.map((m) => Number((m.content.data as Record<string, string>)['text/plain'].split(' ')[1]));
      assert.deepEqual(
        numbers,
        [...numbers].sort((x, y) => x - y),
        `display ${id}: states out of order`,
      );
      assert.equal(numbers.at(-1), last, `display ${id}: its last state is missing`);
    }
    assert.ok((shown.get('p')?.length ?? 0) < batches + 2, 'no update was dropped: the test did not pass the bound');
    // Displays do not count as dropped output: the markers tell of stream lines only.
    const streams = messages.filter((m) => m.header.msg_type === 'stream');
    assert.ok(assertGapsTold(streams, writes) > 0);
  });
});

test('a subscriber reading nothing holds the others back only for the stall time, then they get every message', async () => {
  const limits = { ...IOPUB_LIMITS, stallMs: 300 };
  await withPublisher(limits, { sendHighWaterMark: 4 }, async ({ publisher, subscribe }) => {
    await subscribe({ receiveHighWaterMark: 4 }); // then never read
    const reader = await subscribe();
    // One message at a time, each read before the next is published: the reader never lacks room,
    // so it must get all of them once the stuck subscriber no longer holds IOPub.
    for (let n = 0; n < 5000; n++) {
      void publisher.publish(
        childOf(cell('k'), 'execute_input', { code: String(n), execution_count: n }, 'kernel', []),
      );
      assert.equal((await next(reader)).content.code, String(n));
    }
  });
});
