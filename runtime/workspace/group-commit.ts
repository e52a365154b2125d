import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { tempPathOf } from './files';
import type { Published, ToPublish } from './group-commit-worker';

export interface PublishOptions {
  mode?: number;
  /** False: publish with a hard link, which fails with EEXIST rather than replace an existing file. */
  overwrite?: boolean;
}

/**
 * Publishes many small files durably with few flushes (a group commit), for a listener that writes a
 * file per call and may answer a call only once its file is on disk. The files handed over in one
 * turn of the event loop go to a thread of their own (group-commit-worker.ts), which writes each at
 * once under a dot-named temp name in its folder; the files written while the previous batch was
 * being flushed then go through one batch together: every temp file flushed (all at once, on the
 * thread pool, so the disk folds their flushes), then each put in place under its name, then one
 * flush of each folder involved, which makes those renames durable. Only then does any `publish` of
 * the batch resolve. A crash at any moment leaves each file either absent (at most its temp file
 * remains) or whole and durable; no name is ever visible half-written.
 *
 * The thread does the file system's work so that the event loop only hands bytes over and hears
 * back once per batch: creating, linking and unlinking names in one folder take the folder's lock
 * in turn whatever the number of threads asking, and each operation sent to the thread pool costs
 * the event loop a hand-off both ways.
 */
export class GroupCommit {
  private worker?: Worker;
  private outgoing: ToPublish[] = [];
  private readonly waiting = new Map<number, { done: () => void; fail: (e: Error) => void }>();
  private nextId = 0;
  /** Called once no file waits any more (close waits for it). */
  private drained?: () => void;

  /** Resolves once `path` holds `parts` durably; rejects (and leaves no temp file) if it could not. */
  publish(path: string, parts: readonly Uint8Array[], options: PublishOptions = {}): Promise<void> {
    return new Promise((done, fail) => {
      const id = this.nextId++;
      this.waiting.set(id, { done, fail });
      const file = { id, path, tempPath: tempPathOf(path), parts, overwrite: options.overwrite ?? true };
      this.outgoing.push(options.mode === undefined ? file : { ...file, mode: options.mode });
      if (this.outgoing.length === 1) setImmediate(() => this.send());
      // While files wait, the thread keeps the process alive; an idle one does not.
      if (this.waiting.size === 1) this.thread().ref();
    });
  }

  /** Stops the thread once the files handed over are published (or failed). */
  async close(): Promise<void> {
    if (this.waiting.size > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private send(): void {
    this.thread().postMessage(this.outgoing.splice(0));
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(join(__dirname, 'group-commit-worker.js'));
    worker.on('message', (published: Published) => this.settle(published));
    // The thread dies only with a bug or out of memory: what it held is not known to be on disk.
    const lost = (e: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, w] of this.waiting) {
        this.waiting.delete(id);
        w.fail(e);
      }
      this.idle();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the group commit thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(published: Published): void {
    for (const id of published.done) {
      this.waiting.get(id)?.done();
      this.waiting.delete(id);
    }
    for (const f of published.failed) {
      this.waiting.get(f.id)?.fail(Object.assign(new Error(f.message), f.code ? { code: f.code } : {}));
      this.waiting.delete(f.id);
    }
    if (this.waiting.size === 0) this.idle();
  }

  private idle(): void {
    this.worker?.unref();
    this.drained?.();
    this.drained = undefined;
  }
}
