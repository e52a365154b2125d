import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ScriptError, type ErrorKind } from '../errors';
import type { Decoded } from './decode';

export interface DecodeRequest {
  full: string;
  display: string;
}

export type DecodeReply = { decoded: Decoded } | { error: { message: string; kind: ErrorKind } };

/**
 * How long a decoder thread waits for the next file before it ends: a glob of many files reuses one
 * thread (starting one costs about 85 ms), and an idle kernel does not keep one with its memory.
 */
const IDLE_MS = 10_000;

let idle: { worker: Worker; timer: NodeJS.Timeout } | undefined;

/**
 * Decodes a Parquet file in a worker thread (docs/drives.md, "Reading Parquet"). hyparquet decodes
 * synchronously, so on the main thread a huge or corrupt file (one of its endless loops) would leave
 * Ctrl-C, the kernel's interrupt and heartbeat no turn; here `signal` ends the thread itself.
 */
export function decodeOffThread(request: DecodeRequest, signal: AbortSignal): Promise<Decoded> {
  if (signal.aborted) return Promise.reject(new ScriptError('cancelled', 'cancelled'));
  const worker = take();
  return new Promise<Decoded>((resolve, reject) => {
    const settle = (outcome: () => void) => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const fail = (error: ScriptError) => {
      void worker.terminate();
      settle(() => reject(error));
    };
    const onMessage = (reply: DecodeReply) => {
      park(worker);
      settle(() =>
        'decoded' in reply ? resolve(reply.decoded) : reject(new ScriptError(reply.error.message, reply.error.kind)),
      );
    };
    const onError = (e: Error) => fail(new ScriptError(`cannot read ${request.display}: ${e.message}`, 'runtime'));
    const onExit = () => fail(new ScriptError(`cannot read ${request.display}: its decoder stopped`, 'runtime'));
    const onAbort = () => fail(new ScriptError('cancelled', 'cancelled'));
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    signal.addEventListener('abort', onAbort, { once: true });
    worker.ref();
    worker.postMessage(request);
  });
}

/** The idle thread, or a new one. */
function take(): Worker {
  if (idle) {
    const { worker, timer } = idle;
    clearTimeout(timer);
    idle = undefined;
    return worker;
  }
  const worker = new Worker(join(__dirname, 'decode-worker.js'));
  // An idle thread that fails or ends is forgotten; a busy one's failure goes to its read.
  const forget = () => {
    if (idle?.worker === worker) {
      clearTimeout(idle.timer);
      idle = undefined;
    }
  };
  worker.on('error', forget).on('exit', forget);
  return worker;
}

/** Keeps a thread that finished a file for the next one (one at most); it holds no process open. */
function park(worker: Worker): void {
  if (idle) {
    void worker.terminate();
    return;
  }
  worker.unref();
  const timer = setTimeout(() => {
    idle = undefined;
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  idle = { worker, timer };
}
