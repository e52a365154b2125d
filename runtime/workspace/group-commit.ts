import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { encodeBatch, type Outgoing } from './group-commit-batch';
import type { FromThread, Published, ThreadOptions, ToThread } from './group-commit-worker';
import { EntryKind, replayJournal } from './journal';
import { HEARTBEAT_MS } from '../util/process-alive';

/**
 * Items handed over at once rather than at the end of the turn. A hundred clients answered together
 * send again together, and the event loop may read all hundred calls in one turn: handed over by
 * sixteen calls, their files are written on the other core while the event loop reads the rest, and
 * their answers go out sooner. Measured with the bench's hundred clients: ~8% more calls/s than
 * handing over once a turn (16 to 64 items were alike).
 */
const EARLY_ITEMS = 32;

interface Waiter {
  /** Items not yet durable. */
  left: number;
  done: () => void;
  /** The first failure of its items; later ones change nothing. */
  fail: (e: Error) => void;
}

function appendItem(path: string, text: string, withPrevious = false): Omit<Outgoing, 'id'> {
  return { kind: EntryKind.Append, path, parts: [text], withPrevious };
}

/**
 * A listener quiet this long checkpoints what its journal holds. Not sooner: a checkpoint flushes all
 * of the file system's dirty data at once (`sync -f`), other processes' too, and calls arriving
 * meanwhile wait behind it (a bench round that met one, after a second between rounds, ran at a
 * quarter of its speed); after half a minute the kernel has written most of it back by itself
 * (`dirty_expire_centisecs`), and the checkpoint costs little. Until then the journal holds it.
 */
const IDLE_CHECKPOINT_MS = 35_000;

export interface GroupCommitOptions {
  /** How long the listener must be quiet before a checkpoint (IDLE_CHECKPOINT_MS when not given). */
  idleCheckpointMs?: number;
  /** How often its journal segments are touched (HEARTBEAT_MS when not given; group-commit-worker.ts). */
  heartbeatMs?: number;
}

export interface PublishOptions {
  mode?: number;
  /** False: publish with a hard link, which fails with EEXIST rather than replace an existing file. */
  overwrite?: boolean;
  /**
   * A line appended to another file in the same batch (a call's run record beside its log), only if
   * the file is put in place: a log refused (its name taken) leaves no record of it.
   */
  line?: { path: string; text: string };
}

/**
 * Publishes many small files durably with few flushes (a group commit), for a listener that writes a
 * file per call and may answer a call only once its file is on disk. The files handed over in one
 * turn of the event loop (32 at a time when more come) go to a thread of their own
 * (group-commit-worker.ts) together: the batch is recorded in a write-ahead journal (journal.ts),
 * whose one flush starts at once; meanwhile each file is written, nameless where the system allows
 * (nameless-file.ts), else under a dot-named temp name in the journal's staging folder, and put in
 * place under its name; only once both are done does any `publish` of the batch resolve. A killed
 * process leaves each file absent or whole; after a power cut, the next GroupCommit on the same
 * folder replays the journal before anything else, so every file answered for is whole again. No
 * name is ever visible half-written.
 *
 * The thread does the file system's work so that the event loop only hands bytes over and hears
 * back once per batch; one journal flush per batch replaces a flush per file and per folder, which
 * on ext4 cost each a journal commit of the file system.
 */
export class GroupCommit {
  private worker?: Worker;
  private outgoing: Outgoing[] = [];
  /** By item id: what to tell once the item is durable; items handed over together share one waiter. */
  private readonly waiting = new Map<number, Waiter>();
  private nextId = 0;
  /** Called once no file waits any more (close waits for it). */
  private drained?: () => void;
  private closed?: () => void;

  /**
   * `root`: the folder the journal is kept in (`<root>/.journal`) and whose files it speaks for.
   * What a previous process's journal holds there is replayed now, before any new file.
   */
  constructor(
    readonly root: string,
    private readonly options: GroupCommitOptions = {},
  ) {
    replayJournal(root);
  }

  /**
   * Resolves once `path` holds `parts` durably, and `options.line` is appended too when given;
   * rejects (and leaves no temp file) if either could not be.
   */
  publish(path: string, parts: readonly Uint8Array[], options: PublishOptions = {}): Promise<void> {
    const kind = options.overwrite === false ? EntryKind.NewFile : EntryKind.File;
    const file = { kind, path, parts, mode: options.mode };
    return options.line ? this.hand(file, appendItem(options.line.path, options.line.text, true)) : this.hand(file);
  }

  /** Resolves once `text` is appended to `path` durably (a line of a JSON-lines file). */
  append(path: string, text: string): Promise<void> {
    return this.hand(appendItem(path, text));
  }

  /** Stops the thread once the files handed over are published (or failed) and made durable without the journal. */
  async close(): Promise<void> {
    if (this.waiting.size > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    const worker = this.worker;
    if (!worker) return;
    // The thread's last checkpoint must run to its end: held, it keeps the process alive until then.
    worker.ref();
    await new Promise<void>((resolve) => {
      this.closed = resolve;
      worker.postMessage({ close: true } satisfies ToThread);
    });
    this.worker = undefined;
    await worker.terminate();
  }

  private hand(...items: Omit<Outgoing, 'id'>[]): Promise<void> {
    return new Promise((done, fail) => {
      const waiter: Waiter = { left: items.length, done, fail };
      for (const item of items) {
        const id = this.nextId;
        // Ids travel as 32-bit numbers; they wrap long after the calls that used them are answered.
        this.nextId = (this.nextId + 1) >>> 0;
        this.waiting.set(id, waiter);
        this.outgoing.push({
          id,
          kind: item.kind,
          path: item.path,
          parts: item.parts,
          mode: item.mode,
          withPrevious: item.withPrevious,
        });
      }
      if (this.outgoing.length === items.length) setImmediate(() => this.send());
      else if (this.outgoing.length >= EARLY_ITEMS) this.send();
      // While files wait, the thread keeps the process alive; an idle one does not.
      if (this.waiting.size === items.length) this.thread().ref();
    });
  }

  /** Hands the batch over as one buffer that is moved, not copied, to the thread (group-commit-batch.ts). */
  private send(): void {
    if (this.outgoing.length === 0) return;
    const batch = encodeBatch(this.outgoing.splice(0));
    this.thread().postMessage({ batch } satisfies ToThread, [batch]);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const workerData: ThreadOptions = {
      root: this.root,
      idleCheckpointMs: this.options.idleCheckpointMs ?? IDLE_CHECKPOINT_MS,
      heartbeatMs: this.options.heartbeatMs ?? HEARTBEAT_MS,
    };
    const worker = new Worker(join(__dirname, 'group-commit-worker.js'), { workerData });
    worker.on('message', (message: FromThread) => {
      if ('closed' in message) this.closed?.();
      else this.settle(message);
    });
    // The thread dies only with a bug or out of memory: what it held is not known to be on disk.
    const lost = (e: Error) => {
      if (this.worker === worker) this.worker = undefined;
      this.outgoing = [];
      for (const [id, w] of this.waiting) {
        this.waiting.delete(id);
        w.fail(e);
      }
      this.idle();
      this.closed?.();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the group commit thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(published: Published): void {
    for (const id of published.done) {
      const waiter = this.waiting.get(id);
      this.waiting.delete(id);
      if (waiter && --waiter.left === 0) waiter.done();
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
