import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { readConnectionFile } from '../jupyter/connection';
import type { MessageSocket } from '../jupyter/socket';
import { childOf, type Message } from '../jupyter/wire';
import type { SessionFolders } from '../runtime/startup';
import type { Backend } from './backend';
import type { ExecuteReply, ExecuteRequest } from './executor';
import type { History, HistoryQuery } from './history';
import { kernelInfo } from './kernel-info';
import { log } from './log';
import { OutputContext } from './output-context';
import { BadRequest, codeRequest, cursorRequest } from './requests';
import { KernelSockets } from './sockets';

type Handler = (msg: Message, channel: MessageSocket) => Promise<void> | void;

/** Quiet time before the interpreter is loaded while no client is known to be ready (see scheduleWarmUp). */
const WARM_UP_AFTER_MS = 300;
/**
 * How long a kernel_info request on the shell waits for a first IOPub subscription. A starting client
 * connects its sockets together, but the kernel may get its request before its subscription (10–60 ms
 * before, measured); the request's busy and idle would then be lost, and jupyter_client, having
 * waited 0.2 s for them, asks again. Under the second jupyter_client waits for the reply.
 */
const SUBSCRIBER_WAIT_MS = 500;

/**
 * The Jupyter protocol side of the kernel: it routes requests, runs shell requests one at a time in
 * arrival order, each framed by busy/idle on IOPub, and control requests at once (so an interrupt or
 * shutdown reaches a running cell). All language work goes to the Backend.
 */
export class Kernel {
  /** This kernel's session id, in the header of everything it sends. */
  private readonly sessionId = randomUUID();
  private readonly context = new OutputContext();
  private loaded?: Backend;
  private historyStore?: History;
  private warmUpTimer?: NodeJS.Timeout;
  /**
   * A kernel_info was answered. With a client subscribed to IOPub that client is ready: cells come next.
   * Checked when the warm-up is scheduled, not when kernel_info is answered: ZeroMQ may deliver that
   * request's idle to a subscription this side has not read yet, and the client is ready all the same.
   */
  private kernelInfoAnswered = false;
  /** The warm-up cell; requests wait for it, as for any cell before them. */
  private warming?: Promise<void>;
  private readonly shellQueue: Message[] = [];
  private draining = false;
  /** Execute requests queued when a cell failed: answered without running (stop_on_error). */
  private readonly aborted = new WeakSet<Message>();
  private stopping = false;
  private closing?: Promise<void>;
  private finished!: () => void;
  /** Resolves once a shutdown_request has been answered and the sockets are closed. */
  readonly stopped = new Promise<void>((r) => (this.finished = r));

  /** A Map, not an object literal: a msg_type such as 'constructor' must not find Object's. */
  private readonly handlers = new Map<string, Handler>([
    ['kernel_info_request', (m, ch) => this.reply(ch, m, 'kernel_info_reply', kernelInfo())],
    ['execute_request', (m, ch) => this.execute(m, ch)],
    [
      'complete_request',
      (m, ch) =>
        this.reply(ch, m, 'complete_reply', this.backend.complete(cursorRequest('complete_request', m.content))),
    ],
    [
      'inspect_request',
      (m, ch) => this.reply(ch, m, 'inspect_reply', this.backend.inspect(cursorRequest('inspect_request', m.content))),
    ],
    [
      'is_complete_request',
      (m, ch) =>
        this.reply(ch, m, 'is_complete_reply', this.backend.isComplete(codeRequest('is_complete_request', m.content))),
    ],
    [
      'history_request',
      (m, ch) =>
        this.reply(ch, m, 'history_reply', {
          status: 'ok',
          history: this.history.query(m.content as unknown as HistoryQuery),
        }),
    ],
    // No comm targets exist: say so, and close any comm a front end opens so it does not wait on it.
    ['comm_info_request', (m, ch) => this.reply(ch, m, 'comm_info_reply', { status: 'ok', comms: {} })],
    ['comm_open', (m) => this.publish('comm_close', { comm_id: m.content.comm_id, data: {} })],
    ['comm_msg', () => undefined],
    ['comm_close', () => undefined],
    [
      'interrupt_request',
      (m, ch) => {
        this.interrupt();
        return this.reply(ch, m, 'interrupt_reply', { status: 'ok' });
      },
    ],
    ['shutdown_request', (m, ch) => this.shutdown(m, ch)],
  ]);

  private constructor(
    private readonly sockets: KernelSockets,
    private readonly connectionFile: string,
    private readonly folders: SessionFolders,
  ) {}

  static async start(connectionFile: string, folders: SessionFolders): Promise<Kernel> {
    const kernel = new Kernel(await KernelSockets.bind(readConnectionFile(connectionFile)), connectionFile, folders);
    const { shell, control } = kernel.sockets;
    void shell.receive((m) => kernel.enqueue(m));
    void control.receive((m) => void kernel.handle(control, m));
    void kernel.publish('status', { execution_state: 'starting' });
    return kernel;
  }

  /** Cancels the running cell (interrupt_request, SIGINT); the session and its dataset stay. */
  interrupt(): void {
    this.loaded?.executor.interrupt();
  }

  private get backend(): Backend {
    if (!this.loaded) {
      clearTimeout(this.warmUpTimer);
      const { Backend: Impl } = require('./backend') as typeof import('./backend');
      this.loaded = new Impl(
        (type, content) => void this.publish(type, content),
        this.history,
        this.connectionFile,
        this.folders,
      );
    }
    return this.loaded;
  }

  /**
   * Kept apart from the interpreter: consoles ask for history at start and wait only a second. Loaded
   * with the first history request or the interpreter, not before the first reply.
   */
  private get history(): History {
    if (!this.historyStore) {
      const { History: Impl } = require('./history') as typeof import('./history');
      this.historyStore = new Impl(join(this.folders.workspace, 'kernel_history.jsonl'));
    }
    return this.historyStore;
  }

  private enqueue(msg: Message): void {
    this.shellQueue.push(msg);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    await this.warming;
    let msg: Message | undefined;
    while ((msg = this.shellQueue.shift())) await this.handle(this.sockets.shell, msg);
    this.draining = false;
  }

  private handle(channel: MessageSocket, msg: Message): Promise<void> {
    return this.context.run(msg, async () => {
      // Shell requests are framed by busy/idle (clients wait for it). Control requests are not: an
      // interrupt's idle would report the kernel idle while its cell still runs (jupyter_client#838).
      const framed = channel === this.sockets.shell;
      const type = msg.header.msg_type;
      if (framed && type === 'kernel_info_request') await this.sockets.iopub.subscriber(SUBSCRIBER_WAIT_MS);
      if (framed) void this.publish('status', { execution_state: 'busy' });
      try {
        const handler = this.handlers.get(type);
        if (handler) await handler(msg, channel);
        else log(`ignored unknown message type '${type}' on ${channel.name}`);
      } catch (e) {
        // Neither a malformed request nor a defect in a service may leave the client waiting for a reply.
        const text = e instanceof Error ? e.message : String(e);
        const ename = e instanceof BadRequest ? e.ename : 'KernelError';
        log(e instanceof BadRequest ? text : `${type} failed: ${e instanceof Error ? e.stack : text}`);
        if (type.endsWith('_request')) {
          await this.reply(channel, msg, type.replace(/_request$/, '_reply'), {
            status: 'error',
            ename,
            evalue: text,
            traceback: [text],
          });
        }
      }
      const idle = framed ? this.publish('status', { execution_state: 'idle' }) : undefined;
      if (this.stopping) {
        await idle;
        await this.stop();
        return;
      }
      if (type === 'kernel_info_request') this.kernelInfoAnswered = true;
      // Once the idle has left: ZeroMQ's own thread sends it while the load blocks this one.
      void (idle ?? Promise.resolve()).then(() => this.scheduleWarmUp());
    });
  }

  /**
   * Loading the interpreter blocks for a while (0.1–0.3 s, chevrotain analysing the grammar). It is
   * loaded as soon as the shell queue is empty after a client became ready, so that a client's
   * first cell finds it loaded: jupyter_client, once ready, listens to IOPub for 0.2 s before it
   * returns. Before that (no kernel_info answered yet), only after a quiet moment, so that the
   * requests clients send right after connecting (kernel_info again, history) are not held up.
   * The heartbeat answers from its own thread meanwhile.
   */
  private scheduleWarmUp(): void {
    if (this.loaded || this.stopping) return;
    clearTimeout(this.warmUpTimer);
    const clientReady = this.kernelInfoAnswered && this.sockets.iopub.subscribed;
    this.warmUpTimer = setTimeout(() => this.warmUp(), clientReady ? 0 : WARM_UP_AFTER_MS);
  }

  private warmUp(): void {
    if (this.loaded || this.stopping || this.draining) return;
    if (!this.sockets.iopub.subscribed) return this.scheduleWarmUp();
    try {
      this.warming = this.backend.warmUp().catch((e: Error) => log(`warm-up cell failed: ${e.stack}`));
    } catch (e) {
      log(`cannot load the interpreter: ${(e as Error).stack}`);
    }
  }

  private async execute(msg: Message, channel: MessageSocket): Promise<void> {
    let reply: ExecuteReply;
    if (this.aborted.has(msg)) {
      reply = {
        status: 'error',
        execution_count: this.loaded?.executor.executionCount ?? 0,
        ename: 'Aborted',
        evalue: 'not run: an earlier cell failed or was interrupted',
        traceback: [],
      };
    } else {
      codeRequest('execute_request', msg.content);
      const request = msg.content as unknown as ExecuteRequest;
      reply = await this.backend.executor.execute(request);
      if (reply.status === 'error' && request.stop_on_error !== false && !request.silent) await this.abortQueued();
    }
    await this.reply(channel, msg, 'execute_reply', reply);
  }

  /** After a failed cell, the cells already sent behind it are not run (a notebook's "run all" stops there). */
  private async abortQueued(): Promise<void> {
    // Two check phases have an I/O poll between them: the socket hands over requests that had
    // already arrived (a notebook's "run all" sends every cell at once).
    await new Promise((r) => setImmediate(() => setImmediate(r)));
    for (const m of this.shellQueue) if (m.header.msg_type === 'execute_request') this.aborted.add(m);
  }

  private async shutdown(msg: Message, channel: MessageSocket): Promise<void> {
    this.interrupt();
    const content = { status: 'ok', restart: msg.content.restart === true };
    await this.reply(channel, msg, 'shutdown_reply', content);
    // Older clients listen for it on IOPub.
    await this.publish('shutdown_reply', content);
    this.stopping = true;
  }

  /** Closes the sockets (the heartbeat thread included); `stopped` resolves after it. */
  stop(): Promise<void> {
    if (!this.closing) {
      this.stopping = true;
      clearTimeout(this.warmUpTimer);
      const written = this.historyStore?.flushed() ?? Promise.resolve();
      // The session first: its listener's calls under way finish and its ports close before the process exits.
      const released = this.loaded?.close().catch((e: unknown) => log(`closing the session: ${String(e)}`));
      this.closing = Promise.all([written, released])
        .then(() => this.sockets.close())
        .then(() => this.finished());
    }
    return this.closing;
  }

  private reply(channel: MessageSocket, request: Message, type: string, content: object): Promise<void> {
    return channel.send(childOf(request, type, content, this.sessionId));
  }

  /** Sends on IOPub under the request in whose async context this runs (see OutputContext). */
  private publish(type: string, content: object): Promise<void> {
    return this.sockets.iopub.publish(childOf(this.context.current(), type, content, this.sessionId, []));
  }
}
