import * as zmq from 'zeromq';
import { endpoint, type ConnectionInfo } from '../jupyter/connection';
import { MessageSocket } from '../jupyter/socket';
import { Signer } from '../jupyter/wire';
import { Heartbeat } from './heartbeat';
import { IopubPublisher } from './iopub';
import { log } from './log';
import { withoutSecrets } from '../runtime/startup';
/**
 * The kernel's side: ROUTER shell/control/stdin, the IOPub publisher and the heartbeat (in its own
 * thread), bound to the connection file's ports.
 */
export class KernelSockets {
  readonly shell: MessageSocket;
  readonly control: MessageSocket;
  readonly stdin: MessageSocket;
  readonly iopub: IopubPublisher;
  private heartbeat?: Heartbeat;

  private constructor(signer: Signer) {
    // linger: the shutdown reply and the last status must leave before the process exits
    this.shell = new MessageSocket('shell', new zmq.Router({ linger: 1000 }), signer, log, withoutSecrets);
    this.control = new MessageSocket('control', new zmq.Router({ linger: 1000 }), signer, log, withoutSecrets);
    this.stdin = new MessageSocket('stdin', new zmq.Router({ linger: 1000 }), signer, log, withoutSecrets);
    this.iopub = new IopubPublisher(new zmq.XPublisher({ linger: 1000 }), signer);
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
    return s;
  }

  async close(): Promise<void> {
    for (const s of [this.shell, this.control, this.stdin, this.iopub]) s.close();
    await this.heartbeat?.stop();
  }
}
