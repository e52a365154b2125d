import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import * as zmq from 'zeromq';

/**
 * The heartbeat echoes pings from its own thread: a cell computing for seconds (or the interpreter
 * loading) blocks the main event loop, and clients that judge liveness by heartbeat (jupyter
 * console --existing) would take the kernel for dead. ipykernel has a heartbeat thread for the same reason.
 */
export class Heartbeat {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(address: string, onError: (e: Error) => void) {
    this.worker = new Worker(__filename, { workerData: { heartbeat: address } });
    this.worker.on('error', onError);
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /**
   * Closes the socket inside the thread and lets the thread end by itself: terminating a thread
   * that holds a ZeroMQ socket aborts the process.
   */
  stop(): Promise<void> {
    this.worker.postMessage('stop');
    return this.exited;
  }
}

async function echo(address: string): Promise<void> {
  const socket = new zmq.Reply({ linger: 0 });
  parentPort!.once('message', () => {
    socket.close();
    parentPort!.close();
  });
  await socket.bind(address);
  try {
    for await (const frames of socket) await socket.send(frames);
  } catch (e) {
    if (!socket.closed) throw e;
  }
}

const address = isMainThread ? undefined : (workerData as { heartbeat?: string } | null)?.heartbeat;
if (address) void echo(address);
