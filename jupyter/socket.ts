import * as zmq from 'zeromq';
import type { Channel } from './connection';
import type { Log } from './log';
import { BadSignatureError, decode, encode, type Message, type Signer } from './wire';

/**
 * One ZeroMQ socket speaking Jupyter messages; receiving drops (and logs) messages with a bad
 * signature.
 *
 * A message is handed to ZeroMQ at once when nothing waits before it: zeromq v6 sends at once while
 * the socket can take it, and rejects a send (EBUSY) while an earlier one waits for room. Then, and
 * until that line has drained, messages wait in order behind the last send. Chaining every send
 * on the previous one's promise instead would hold each message until the cell's synchronous work
 * is done: a cell's `busy` would leave with its output.
 */
export class MessageSocket {
  /** The last send ZeroMQ took, and the line of messages waiting behind it (if any). */
  private last: Promise<void> = Promise.resolve();
  private line?: Promise<void>;

  constructor(
    readonly name: Channel,
    readonly socket: zmq.Router | zmq.Dealer | zmq.XPublisher | zmq.Subscriber,
    private readonly signer: Signer,
    private readonly log: Log,
    /** What a trace line shows of a message's content: the caller's masking of secrets (a cell's password). */
    private readonly traced: (content: unknown) => unknown,
  ) {}

  send(msg: Message<unknown>): Promise<void> {
    if (TRACE) this.trace('→', msg);
    const frames = encode(msg, this.signer);
    if (!this.line) {
      try {
        return this.settle(this.hand(frames));
      } catch (e) {
        if ((e as { code?: string }).code !== 'EBUSY') return this.settle(Promise.reject(e));
      }
    }
    const behind = this.line ?? this.last;
    // settle outside the callback, so a send that throws is logged like one that rejects
    const sent = this.settle(behind.then(() => this.hand(frames)));
    this.line = sent;
    void sent.then(() => {
      if (this.line === sent) this.line = undefined;
    });
    return sent;
  }

  /** Gives the frames to ZeroMQ (throws EBUSY while an earlier send waits for room). */
  private hand(frames: Buffer[]): Promise<void> {
    if (this.socket.closed) return Promise.resolve();
    const sending = (this.socket as zmq.Writable).send(frames);
    this.last = sending.catch(() => undefined);
    return sending;
  }

  /** A send's outcome: failures are logged, never thrown at the request being answered. */
  private settle(sending: Promise<unknown>): Promise<void> {
    return sending.then(
      () => undefined,
      (e) => this.log(`${this.name}: send failed: ${(e as Error).message}`),
    );
  }

  /** Calls `handle` for every well-signed message until the socket closes. */
  async receive(handle: (msg: Message) => void): Promise<void> {
    const readable = this.socket as unknown as AsyncIterable<Buffer[]>;
    try {
      for await (const frames of readable) {
        let msg: Message;
        try {
          msg = decode(frames, this.signer);
        } catch (e) {
          if (e instanceof BadSignatureError) {
            this.log(`${this.name}: ${e.message}`);
            continue;
          }
          throw e;
        }
        if (TRACE) this.trace('←', msg);
        handle(msg);
      }
    } catch (e) {
      if (!this.socket.closed) throw e;
    }
  }

  close(): void {
    if (!this.socket.closed) this.socket.close();
  }

  private trace(direction: string, msg: Message<unknown>): void {
    const parent = (msg.parent_header as { msg_id?: string }).msg_id;
    this.log(
      `${direction} ${this.name} ${msg.header.msg_type} ${msg.header.msg_id}${parent ? ` (re ${parent})` : ''} ${JSON.stringify(this.traced(msg.content)).slice(0, 200)}`,
    );
  }
}

/** SQLCDC_KERNEL_TRACE=1 logs every message on stderr (the kernel's, or the attached REPL's): what a client sent and got, for debugging clients. */
const TRACE = Boolean(process.env.SQLCDC_KERNEL_TRACE);
