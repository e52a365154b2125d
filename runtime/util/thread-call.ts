import { parentPort, Worker, type TransferListItem } from 'node:worker_threads';
import { ScriptError, type ErrorKind, type Position } from '../errors';

/** What a worker posts back for one request: its answer, or the ScriptError it met, as plain data. */
export type ThreadReply<A> = { answer: A } | { error: { message: string; kind: ErrorKind; position?: Position } };

/**
 * How long a thread waits for the next request before it ends: a glob of many files reuses one thread
 * (starting one costs about 85 ms), and an idle kernel does not keep one with its memory.
 */
const IDLE_MS = 10_000;

/**
 * Runs synchronous work (a decoder, a parser, an encoder) in a worker thread, one request at a time per
 * thread, so Ctrl-C, the kernel's interrupt and heartbeat keep their turns: `signal` ends the thread
 * itself, which is the only way to stop a synchronous library mid-work. A call that fails or is
 * cancelled settles once its thread has stopped, so nothing the thread did (a file it writes) goes on
 * after the caller cleans up. One finished thread is kept for the next call.
 */
export class ThreadCall<R, A> {
  private idle: { worker: Worker; timer: NodeJS.Timeout } | undefined;

  /**
   * `script`: the worker's compiled file, which answers with `serveThreadCalls`; `verb`: what the
   * thread does to the input, as a failure names it (`cannot write …`).
   */
  constructor(
    private readonly script: string,
    private readonly verb: 'read' | 'write' = 'read',
  ) {}

  /** The answer to `request`; `display` names the input in the error of a thread that failed. */
  call(request: R, display: string, signal: AbortSignal, transfer: readonly TransferListItem[] = []): Promise<A> {
    if (signal.aborted) return Promise.reject(new ScriptError('cancelled', 'cancelled'));
    const worker = this.take();
    return new Promise<A>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        signal.removeEventListener('abort', onAbort);
        outcome();
      };
      const fail = (error: ScriptError) => {
        const rejected = () => reject(error);
        settle(() => void worker.terminate().then(rejected, rejected));
      };
      const onMessage = (reply: ThreadReply<A>) => {
        this.park(worker);
        settle(() =>
          'answer' in reply
            ? resolve(reply.answer)
            : reject(new ScriptError(reply.error.message, reply.error.kind, reply.error.position)),
        );
      };
      const onError = (e: Error) => fail(new ScriptError(`cannot ${this.verb} ${display}: ${e.message}`, 'runtime'));
      const onExit = () =>
        fail(new ScriptError(`cannot ${this.verb} ${display}: its ${this.verb}r thread stopped`, 'runtime'));
      const onAbort = () => fail(new ScriptError('cancelled', 'cancelled'));
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      signal.addEventListener('abort', onAbort, { once: true });
      worker.ref();
      worker.postMessage(request, transfer);
    });
  }

  /** The idle thread, or a new one. */
  private take(): Worker {
    if (this.idle) {
      const { worker, timer } = this.idle;
      clearTimeout(timer);
      this.idle = undefined;
      return worker;
    }
    const worker = new Worker(this.script);
    // An idle thread that fails or ends is forgotten; a busy one's failure goes to its call.
    const forget = () => {
      if (this.idle?.worker === worker) {
        clearTimeout(this.idle.timer);
        this.idle = undefined;
      }
    };
    worker.on('error', forget).on('exit', forget);
    return worker;
  }

  /** Keeps a thread that finished a call for the next one (one at most); it holds no process open. */
  private park(worker: Worker): void {
    if (this.idle) {
      void worker.terminate();
      return;
    }
    worker.unref();
    const timer = setTimeout(() => {
      this.idle = undefined;
      void worker.terminate();
    }, IDLE_MS);
    timer.unref();
    this.idle = { worker, timer };
  }
}

/**
 * The worker's side: answers each request in turn with `work`'s answer (moving the buffers `transfer`
 * names rather than copying them), or with the error it threw; `display` names the input in an error
 * that is not a ScriptError, `verb` what was done to it (as ThreadCall's).
 */
export function serveThreadCalls<R, A>(
  work: (request: R) => A | Promise<A>,
  display: (request: R) => string,
  transfer: (answer: A) => TransferListItem[] = () => [],
  verb: 'read' | 'write' = 'read',
): void {
  parentPort!.on('message', (request: R) => {
    Promise.resolve()
      .then(() => work(request))
      .then(
        (answer) => parentPort!.postMessage({ answer } satisfies ThreadReply<A>, transfer(answer)),
        (e: unknown) => {
          const error =
            e instanceof ScriptError
              ? e
              : new ScriptError(`cannot ${verb} ${display(request)}: ${String(e)}`, 'runtime');
          const { message, kind, position } = error;
          parentPort!.postMessage({ error: { message, kind, position } } satisfies ThreadReply<A>);
        },
      );
  });
}
