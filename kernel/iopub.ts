import type * as zmq from 'zeromq';
import { Fifo } from '../runtime/startup';
import { log, trace, TRACE } from './log';
import { encode, newHeader, type Message, type Signer } from '../jupyter/wire';

export interface IopubLimits {
  /** Stream text waits this long for more text of the same request and stream before it leaves… */
  flushMs: number;
  /** …or until it holds this many characters. */
  streamChars: number;
  /** Bytes waiting to leave past which further output (stream text, displays) is dropped, with a marker. */
  backlogBytes: number;
  /** How long ZeroMQ may refuse the next message (a subscriber not reading) before IOPub turns lossy. */
  stallMs: number;
}

export const IOPUB_LIMITS: IopubLimits = {
  flushMs: 50,
  streamChars: 64 * 1024,
  backlogBytes: 16 * 1024 * 1024,
  stallMs: 2000,
};

/** What a client can do without when it cannot keep up. Status, execute_input, results and errors are always sent. */
const DROPPABLE = new Set(['stream', 'display_data', 'update_display_data']);

/** A display's id, when it is one the kernel updates in place (progress): only its latest state matters. */
const displayId = (msg: Message<unknown>): string | undefined => {
  const id = (msg.content as { transient?: { display_id?: unknown } }).transient?.display_id;
  return typeof id === 'string' ? id : undefined;
};

interface StreamContent {
  name: string;
  text: string;
}

interface Outgoing {
  msg: Message<unknown>;
  /** Encoded when handed to ZeroMQ: until then a stream's text may still grow. */
  frames?: Buffer[];
  bytes: number;
  /** When a stream leaves even with nothing queued behind it. */
  due: number;
  sent: Promise<void>;
  resolve: () => void;
}

const parentId = (parent: Message['parent_header']): string | undefined => (parent as { msg_id?: string }).msg_id;

/**
 * The kernel's IOPub: an XPUB socket (so the kernel knows when a client has subscribed: until then
 * whatever it publishes is lost, ZeroMQ's slow joiner) behind an ordered outbox.
 *
 * - Stream text is coalesced as ipykernel's OutStream does: consecutive writes of one request to one
 *   stream become one message, sent after `flushMs`, at `streamChars`, or at once when any other
 *   message (an `idle` included) is published behind it. Order is kept: text of another stream or
 *   request starts a new message.
 * - Nothing is dropped silently. The socket is set not to drop (ZMQ_XPUB_NODROP): while a
 *   subscriber's queue is full, ZeroMQ refuses the message and the outbox retries it, keeping
 *   everything behind it waiting. Past `backlogBytes` waiting, output is dropped and a stderr line
 *   says how much, where it was; status and the other messages are never dropped here. A display
 *   updated in place (progress, by display_id) loses only intermediate states: its latest one is
 *   queued, uncounted, with the next message that is.
 * - A subscriber that reads nothing for `stallMs` (a client stopped in a debugger, a script that
 *   reads only replies) must not hold every other client's output: IOPub then turns lossy, as a
 *   plain PUB socket (ipykernel's) always is: what a subscriber has no room for is dropped for it.
 *   It stays so until a client subscribes or leaves (the stuck one, usually), since telling whether
 *   the stuck client reads again would take another stall.
 */
export class IopubPublisher {
  private readonly queue = new Fifo<Outgoing>();
  /** Bytes of the queued messages (a stream's text counted in characters until it is encoded). */
  private bytes = 0;
  /** The message at the head of the queue is being handed to ZeroMQ. */
  private handing = false;
  private retry?: NodeJS.Timeout;
  private retryMs = 0;
  private flushTimer?: NodeJS.Timeout;
  /** When ZeroMQ first refused the message now at the head. */
  private refusedSince?: number;
  private lossy = false;
  /** Output dropped since the last message that went into the queue, all under one parent. */
  private dropped?: { parent: Message['parent_header']; session: string; outputs: number };
  /** The latest dropped message of each display updated in place, queued with the next message that is. */
  private readonly droppedDisplays = new Map<string, Message<unknown>>();
  /** Subscriptions of all clients (each client's counted: the socket reports every one). */
  private subscriptions = 0;
  /** Callers of `subscriber` waiting for the next subscription. */
  private readonly awaitingSubscriber = new Set<() => void>();
  private closed = false;

  constructor(
    readonly socket: zmq.XPublisher,
    private readonly signer: Signer,
    private readonly limits: IopubLimits = IOPUB_LIMITS,
  ) {
    socket.noDrop = true;
    socket.verbosity = 'allSubsUnsubs';
    // Every send is tried at once and a refusal reported (EAGAIN): the outbox does the waiting.
    // Otherwise zeromq.js defers sends after 512 in one turn of the event loop, and a cell that
    // never gives the loop a turn would hold its output until it ends.
    socket.sendTimeout = 0;
    void this.trackSubscriptions();
  }

  /** Whether some client is subscribed now. */
  get subscribed(): boolean {
    return this.subscriptions > 0;
  }

  /** Resolves once some client is subscribed, or after `withinMs` without one. */
  subscriber(withinMs: number): Promise<void> {
    if (this.subscribed || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.awaitingSubscriber.delete(done);
        resolve();
      };
      const timer = setTimeout(done, withinMs);
      this.awaitingSubscriber.add(done);
    });
  }

  /** Queues `msg` (its topic is set here); resolves once ZeroMQ has it, or it was dropped. */
  publish(msg: Message<unknown>): Promise<void> {
    if (this.closed) return Promise.resolve();
    const type = msg.header.msg_type;
    msg.identities = [Buffer.from(`kernel.${msg.header.session}.${type}`)];
    if (DROPPABLE.has(type) && this.bytes >= this.limits.backlogBytes) {
      this.drop(msg);
      return Promise.resolve();
    }
    this.markDropped();
    const out = (type === 'stream' && this.appendToLast(msg)) || this.enqueue(msg);
    this.pump();
    return out.sent;
  }

  close(): void {
    this.closed = true;
    for (const done of this.awaitingSubscriber) done();
    clearTimeout(this.retry);
    clearTimeout(this.flushTimer);
    for (let out = this.queue.shift(); out; out = this.queue.shift()) out.resolve();
    if (!this.socket.closed) this.socket.close();
  }

  private enqueue(msg: Message<unknown>): Outgoing {
    let resolve!: () => void;
    const sent = new Promise<void>((r) => (resolve = r));
    const out: Outgoing = { msg, bytes: 0, due: 0, sent, resolve };
    if (msg.header.msg_type === 'stream') {
      out.bytes = (msg.content as StreamContent).text.length;
      out.due = Date.now() + this.limits.flushMs;
    } else {
      out.frames = encode(msg, this.signer);
      for (const f of out.frames) out.bytes += f.length;
    }
    this.queue.push(out);
    this.bytes += out.bytes;
    return out;
  }

  /** Adds a stream write to the last queued message when it is the same request's same stream, not yet handed over. */
  private appendToLast(msg: Message<unknown>): Outgoing | undefined {
    const last = this.queue.last();
    if (!last || last.frames || last.msg.header.msg_type !== 'stream' || last.bytes >= this.limits.streamChars)
      return undefined;
    const into = last.msg.content as StreamContent;
    const add = msg.content as StreamContent;
    if (into.name !== add.name || parentId(last.msg.parent_header) !== parentId(msg.parent_header)) return undefined;
    into.text += add.text;
    last.bytes += add.text.length;
    this.bytes += add.text.length;
    return last;
  }

  private drop(msg: Message<unknown>): void {
    const id = displayId(msg);
    if (id !== undefined) return this.dropDisplay(id, msg);
    if (this.dropped && parentId(this.dropped.parent) !== parentId(msg.parent_header)) this.markDropped();
    this.dropped ??= { parent: msg.parent_header, session: msg.header.session, outputs: 0 };
    this.dropped.outputs++;
  }

  /**
   * A display updated in place (progress) is a state, not a piece of output: its intermediate states
   * may be skipped, its last one must arrive, and updates are lost on a client that never got the
   * display itself. So the latest message of each is kept, as a display_data when the display_data
   * itself was dropped.
   */
  private dropDisplay(id: string, msg: Message<unknown>): void {
    const kept = this.droppedDisplays.get(id);
    if (kept?.header.msg_type === 'display_data' && msg.header.msg_type === 'update_display_data')
      kept.content = msg.content;
    else this.droppedDisplays.set(id, msg);
  }

  /**
   * Queues what stands for the output dropped since the last queued message: the line telling the
   * client where output was lost, under the request that lost it, then each display's latest state.
   */
  private markDropped(): void {
    const d = this.dropped;
    this.dropped = undefined;
    if (d) {
      const text = `[sqlcdc: ${d.outputs} output${d.outputs === 1 ? '' : 's'} dropped here: the client did not read the kernel's output fast enough]\n`;
      this.enqueue({
        identities: [Buffer.from(`kernel.${d.session}.stream`)],
        header: newHeader('stream', d.session),
        parent_header: d.parent,
        metadata: {},
        content: { name: 'stderr', text },
        buffers: [],
      });
    }
    for (const msg of this.droppedDisplays.values()) this.enqueue(msg);
    this.droppedDisplays.clear();
  }

  /** Hands the head of the queue to ZeroMQ, one message at a time so that a refused one keeps its place. */
  private pump(): void {
    if (this.handing || this.retry || this.closed) return;
    const out = this.queue.first();
    if (!out) return;
    if (!out.frames && this.queue.size === 1 && out.bytes < this.limits.streamChars) {
      const wait = out.due - Date.now();
      if (wait > 0) {
        this.flushTimer ??= setTimeout(() => {
          this.flushTimer = undefined;
          this.pump();
        }, wait);
        return;
      }
    }
    out.frames ??= encode(out.msg, this.signer);
    this.handing = true;
    let sending: Promise<void>;
    try {
      sending = this.socket.send(out.frames);
    } catch (e) {
      sending = Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    sending.then(
      () => this.taken(out),
      (e: Error & { code?: string }) => this.refused(out, e),
    );
  }

  private taken(out: Outgoing): void {
    this.handing = false;
    this.refusedSince = undefined;
    this.retryMs = 0;
    if (this.closed) return;
    if (TRACE) trace('→', 'iopub', out.msg);
    this.queue.shift();
    this.bytes -= out.bytes;
    out.resolve();
    this.pump();
  }

  private refused(out: Outgoing, e: Error & { code?: string }): void {
    this.handing = false;
    if (this.closed) return;
    if (e.code !== 'EAGAIN') {
      log(`iopub: send failed: ${e.message}`);
      return this.taken(out);
    }
    const now = Date.now();
    this.refusedSince ??= now;
    if (now - this.refusedSince >= this.limits.stallMs) {
      log(
        `iopub: a client has read nothing for ${this.limits.stallMs / 1000} s: until a client comes or goes, what a client has no room for is dropped for it`,
      );
      this.setLossy(true);
      return this.pump();
    }
    this.retryMs = Math.min(Math.max(1, this.retryMs * 2), 20);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.pump();
    }, this.retryMs);
  }

  /** libzmq applies ZMQ_XPUB_NODROP at once, though zeromq.js warns that it waits for the next bind. */
  private setLossy(lossy: boolean): void {
    this.lossy = lossy;
    this.socket.noDrop = !lossy;
  }

  private async trackSubscriptions(): Promise<void> {
    try {
      // Each message is one byte (1 subscribe, 0 unsubscribe) then the topic prefix.
      for await (const [frame] of this.socket) {
        this.subscriptions += frame[0] === 1 ? 1 : -1;
        if (this.lossy) this.setLossy(false);
        if (this.subscribed) for (const done of this.awaitingSubscriber) done();
      }
    } catch (e) {
      if (!this.socket.closed) log(`iopub subscriptions: ${(e as Error).message}`);
    }
  }
}
