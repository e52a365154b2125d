import * as zmq from 'zeromq';
import { endpoint, type ConnectionInfo } from '../jupyter/connection';
import { stderrLog } from '../jupyter/log';
import { MessageSocket } from '../jupyter/socket';
import { Signer } from '../jupyter/wire';
import { Heartbeat } from './heartbeat';

/** The kernel's log: its stderr, which Jupyter front ends show in their own log or terminal. */
export const log = stderrLog('sqlcdc kernel');

/**
 * The kernel's side: ROUTER shell/control/stdin, XPUB iopub and the heartbeat (in its own thread),
 * bound to the connection file's ports. IOPub is an XPUB so the kernel knows when a client has
 * subscribed: until then whatever it publishes is lost (ZeroMQ's slow joiner).
 */
export class KernelSockets {
  readonly shell: MessageSocket;
  readonly control: MessageSocket;
  readonly stdin: MessageSocket;
  readonly iopub: MessageSocket;
  private heartbeat?: Heartbeat;
  private readonly topics = new Set<string>();

  private constructor(signer: Signer) {
    // linger: the shutdown reply and the last status must leave before the process exits
    this.shell = new MessageSocket('shell', new zmq.Router({ linger: 1000 }), signer, log);
    this.control = new MessageSocket('control', new zmq.Router({ linger: 1000 }), signer, log);
    this.stdin = new MessageSocket('stdin', new zmq.Router({ linger: 1000 }), signer, log);
    this.iopub = new MessageSocket('iopub', new zmq.XPublisher({ linger: 1000 }), signer, log);
  }

  static async bind(info: ConnectionInfo): Promise<KernelSockets> {
    const s = new KernelSockets(new Signer(info.key, info.signature_scheme));
    await Promise.all([
      s.shell.socket.bind(endpoint(info, 'shell')),
      s.control.socket.bind(endpoint(info, 'control')),
      s.stdin.socket.bind(endpoint(info, 'stdin')),
      s.iopub.socket.bind(endpoint(info, 'iopub')),
    ]);
    s.heartbeat = new Heartbeat(endpoint(info, 'hb'), (e) => log(`heartbeat stopped: ${e.message}`));
    void s.trackSubscriptions();
    return s;
  }

  /** Whether some client is subscribed to IOPub now. */
  get subscribed(): boolean {
    return this.topics.size > 0;
  }

  private async trackSubscriptions(): Promise<void> {
    const xpub = this.iopub.socket as zmq.XPublisher;
    try {
      // Each message is one byte (1 subscribe, 0 unsubscribe) then the topic prefix.
      for await (const [frame] of xpub) {
        if (frame[0] === 1) this.topics.add(frame.subarray(1).toString());
        else this.topics.delete(frame.subarray(1).toString());
      }
    } catch (e) {
      if (!xpub.closed) log(`iopub subscriptions: ${(e as Error).message}`);
    }
  }

  async close(): Promise<void> {
    for (const s of [this.shell, this.control, this.stdin, this.iopub]) s.close();
    await this.heartbeat?.stop();
  }
}
