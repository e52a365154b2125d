import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { SyncRequest } from './sync-worker';

let worker: { worker: Worker; port: MessagePort } | undefined;

function start(): { worker: Worker; port: MessagePort } {
  const { port1, port2 } = new MessageChannel();
  const w = new Worker(join(__dirname, 'sync-worker.js'), { workerData: { port: port2 }, transferList: [port2] });
  // Idle, it must not keep the process alive.
  w.unref();
  port1.unref();
  w.on('error', () => (worker = undefined));
  w.on('exit', () => (worker = undefined));
  return { worker: w, port: port1 };
}

/**
 * Runs an async task in the helper worker and waits for it: template functions are synchronous
 * (evaluated inside per-row closures), and the few that need promises (PDF, HTTP) are rare calls.
 */
export function runSync(request: Omit<SyncRequest, 'sab'>, timeoutMs = 60000): Uint8Array {
  worker ??= start();
  const sab = new SharedArrayBuffer(4);
  worker.worker.postMessage({ ...request, sab });
  const outcome = Atomics.wait(new Int32Array(sab), 0, 0, timeoutMs);
  const msg = receiveMessageOnPort(worker.port);
  if (outcome === 'timed-out' || !msg) {
    void worker.worker.terminate();
    worker = undefined;
    throw new Error(`timed out after ${timeoutMs / 1000} s`);
  }
  const reply = msg.message as { ok: Uint8Array } | { error: string };
  if ('error' in reply) throw new Error(reply.error);
  return reply.ok;
}
