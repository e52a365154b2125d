import { randomUUID } from 'node:crypto';
import * as zmq from 'zeromq';
import { endpoint, type ConnectionInfo } from '../../jupyter/connection';
import { stderrLog } from '../../jupyter/log';
import { MessageSocket } from '../../jupyter/socket';
import { newHeader, Signer, type Message } from '../../jupyter/wire';
import { withoutSecrets } from '../../runtime/support';

/** What goes wrong on the wire: on stderr, apart from the cells' output on stdout. */
const log = stderrLog('sqlcdc');

const MAX_FINISHED = 1000;
const HEARTBEAT_EVERY_MS = 1000;
/** The kernel's heartbeat answers from its own thread, even during a long cell: silence this long means it is gone. */
const DEAD_AFTER_MS = 5000;

interface Pending {
  resolve(reply: Message): void;
  reject(e: Error): void;
  onOutput?: (msg: Message) => void;
  reply?: Message;
  idle: boolean;
  timer?: NodeJS.Timeout;
}

export interface RequestOptions {
  channel?: 'shell' | 'control';
  /** IOPub messages this request produced, other than busy/idle. */
  onOutput?: (msg: Message) => void;
  timeoutMs?: number;
}

/**
 * A Jupyter client over ZeroMQ (DEALER shell/control, SUB iopub). A request completes when both
 * its reply and its `idle` status have arrived, so every output of the request has been seen.
 */
export class KernelClient {
  private readonly session = randomUUID();
  private readonly pending = new Map<string, Pending>();
  /**
   * Output handlers of finished requests, newest last: a cell's output can come after its idle
   * (a listener it started), and still belongs to it.
   */
  private readonly finished = new Map<string, (msg: Message) => void>();
  private heartbeat?: { socket: zmq.Dealer; timer: NodeJS.Timeout };
  private dead?: Error;
  /** Called once when the kernel stops answering heartbeats; pending and later requests fail. */
  onDead?: (e: Error) => void;

  private constructor(
    private readonly shell: MessageSocket,
    private readonly control: MessageSocket,
    private readonly iopub: MessageSocket,
  ) {
    for (const s of [shell, control]) void s.receive((m) => this.onReply(m));
    void iopub.receive((m) => this.onIopub(m));
  }

  /** Connects and waits until the kernel answers kernel_info with its IOPub status seen (so no output is missed). */
  static async connect(info: ConnectionInfo, timeoutMs = 10_000): Promise<{ client: KernelClient; info: Message }> {
    const signer = new Signer(info.key, info.signature_scheme);
    const shell = new zmq.Dealer({ linger: 0 });
    const control = new zmq.Dealer({ linger: 0 });
    const iopub = new zmq.Subscriber({ linger: 0 });
    shell.connect(endpoint(info, 'shell'));
    control.connect(endpoint(info, 'control'));
    iopub.connect(endpoint(info, 'iopub'));
    iopub.subscribe();
    const client = new KernelClient(
      new MessageSocket('shell', shell, signer, log, withoutSecrets),
      new MessageSocket('control', control, signer, log, withoutSecrets),
      new MessageSocket('iopub', iopub, signer, log, withoutSecrets),
    );
    const deadline = Date.now() + timeoutMs;
    // A SUB socket misses what is published before its subscription reaches the kernel: retry until a
    // kernel_info's busy/idle comes through.
    for (;;) {
      try {
        const reply = await client.request('kernel_info_request', {}, { timeoutMs: 1000 });
        client.watchHeartbeat(endpoint(info, 'hb'));
        return { client, info: reply };
      } catch (e) {
        if (Date.now() > deadline) {
          client.close();
          throw new Error(`the kernel did not answer within ${timeoutMs / 1000} s (${(e as Error).message})`, {
            cause: e,
          });
        }
      }
    }
  }

  request(type: string, content: object, options: RequestOptions = {}): Promise<Message> {
    if (this.dead) return Promise.reject(this.dead);
    const msg: Message<object> = {
      identities: [],
      header: newHeader(type, this.session, 'sqlcdc'),
      parent_header: {},
      metadata: {},
      content,
      buffers: [],
    };
    return new Promise<Message>((resolve, reject) => {
      const p: Pending = { resolve, reject, onOutput: options.onOutput, idle: false };
      if (options.timeoutMs) {
        p.timer = setTimeout(() => {
          this.pending.delete(msg.header.msg_id);
          reject(new Error(`no answer to ${type}`));
        }, options.timeoutMs);
      }
      this.pending.set(msg.header.msg_id, p);
      void (options.channel === 'control' ? this.control : this.shell).send(msg);
    });
  }

  close(): void {
    for (const s of [this.shell, this.control, this.iopub]) s.close();
    if (this.heartbeat) {
      clearInterval(this.heartbeat.timer);
      this.heartbeat.socket.close();
    }
    this.failPending(new Error('client closed'));
  }

  /** Pings the heartbeat (a DEALER talking to the kernel's REP, hence the empty envelope frame). */
  private watchHeartbeat(address: string): void {
    const socket = new zmq.Dealer({ linger: 0 });
    socket.connect(address);
    let last = Date.now();
    void (async () => {
      try {
        for await (const _ of socket) last = Date.now();
      } catch {
        // closed with the client
      }
    })();
    const timer = setInterval(() => {
      if (Date.now() - last > DEAD_AFTER_MS) {
        clearInterval(timer);
        this.dead = new Error(`the kernel stopped answering (no heartbeat for ${DEAD_AFTER_MS / 1000} s)`);
        this.failPending(this.dead);
        this.onDead?.(this.dead);
        return;
      }
      // A send still pending (kernel unreachable) makes the next one fail with EBUSY: nothing to do.
      socket.send([Buffer.alloc(0), Buffer.from('ping')]).catch(() => undefined);
    }, HEARTBEAT_EVERY_MS);
    timer.unref();
    this.heartbeat = { socket, timer };
  }

  private failPending(e: Error): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(e);
    }
    this.pending.clear();
  }

  private onReply(msg: Message): void {
    const p = this.pending.get(parentId(msg));
    if (!p) return;
    p.reply = msg;
    this.settle(parentId(msg), p);
  }

  private onIopub(msg: Message): void {
    const id = parentId(msg);
    const p = this.pending.get(id);
    if (!p) {
      if (msg.header.msg_type !== 'status') this.finished.get(id)?.(msg);
      return;
    }
    if (msg.header.msg_type === 'status') {
      if (msg.content.execution_state === 'idle') {
        p.idle = true;
        this.settle(id, p);
      }
      return;
    }
    p.onOutput?.(msg);
  }

  private settle(id: string, p: Pending): void {
    if (!p.reply || !p.idle) return;
    clearTimeout(p.timer);
    this.pending.delete(id);
    if (p.onOutput) {
      this.finished.set(id, p.onOutput);
      if (this.finished.size > MAX_FINISHED) this.finished.delete(this.finished.keys().next().value as string);
    }
    p.resolve(p.reply);
  }
}

function parentId(msg: Message): string {
  return (msg.parent_header as { msg_id?: string }).msg_id ?? '';
}
