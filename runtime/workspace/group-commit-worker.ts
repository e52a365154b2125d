import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  fsync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { promisify } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import { syncFolder, tempPathOf, touch } from './files';
import { decodeBatch, type ToPublish } from './group-commit-batch';
import { encodeEntry, EntryKind, journalFolder, lineOf, segmentName, stagingFolder, withdrawal } from './journal';
import { JournalSegment } from './journal-segment';
import { namelessFilesIn, type NamelessFiles } from './nameless-file';

export type ToThread = { batch: ArrayBuffer } | { close: true };

/** What the thread answers, once per batch (and at once for files it could not even write). */
export interface Published {
  done: number[];
  failed: { id: number; message: string; code?: string }[];
}

export type FromThread = Published | { closed: true };

/** Items of a batch written together: a whole file alone, or every line the batch appends to one file. */
interface Written {
  items: ToPublish[];
  path: string;
  kind: EntryKind;
  data: Uint8Array;
  error?: unknown;
  /** Where its records start in the journal segment: a withdrawal names each. */
  positions?: number[];
  /** Lines left out because the file they speak for failed (ToPublish.after), with that file's error. */
  orphans?: { item: ToPublish; error: unknown }[];
}

const execFileAsync = promisify(execFile);
const fdatasyncAsync = promisify(fdatasync);
const fsyncAsync = promisify(fsync);

export interface ThreadOptions {
  root: string;
  /** A listener quiet this long checkpoints what it holds (GroupCommitOptions). */
  idleCheckpointMs: number;
  /** How often the segments are touched (GroupCommitOptions). */
  heartbeatMs: number;
}

const { root, idleCheckpointMs, heartbeatMs } = workerData as ThreadOptions;
/** Flags as numbers: parsing 'wx' and 'a' again for each of thousands of files is work for nothing. */
const NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
/** Read as well: the last byte of a file another process appended to is checked (appendFile). */
const APPEND = constants.O_RDWR | constants.O_CREAT | constants.O_APPEND;

/**
 * A segment holding this many bytes of records is checkpointed: its files are made durable, and it
 * is kept to be used again, so replay after a crash reads little and the journal does not grow with
 * the listener's life. A checkpoint flushes every file written since the last one at once, which
 * holds up the flushes of the batches meanwhile: rarer is better, within what a replay may read.
 */
const CHECKPOINT_BYTES = 32 << 20;
/** Flushes in flight at once when flushing file by file (the fallback of a failed journal). */
const FLUSHES_IN_FLIGHT = 48;
/**
 * Batches whose journal flush may be under way at once. A flush takes milliseconds of disk time and
 * little CPU: while one waits, the next batch's files are written and its own flush starts, so a
 * call waits for about one flush, not for the flushes of the batches before it.
 */
const BATCHES_IN_FLIGHT = 3;
/**
 * Items a batch takes at most. Calls arriving together (a hundred clients answered together send
 * again together) would otherwise make one batch whose files are all written before its one flush
 * starts; in smaller batches the first flush starts early and runs while the next are written, and
 * their calls are answered sooner, so clients stop moving in lock-step.
 */
const BATCH_ITEMS = 128;

/** The segment batches write to; a spare is one checkpointed and restarted, ready for when it fills. */
let segment: JournalSegment | undefined;
let spare: JournalSegment | undefined;
let sequence = 0;
const writer = randomBytes(4).toString('hex');
const pending: ToPublish[] = [];
const committing = new Set<Promise<void>>();
let checkpointing: Promise<void> | undefined;
let idleTimer: NodeJS.Timeout | undefined;

/**
 * A listener of another PID namespace or machine on the workspace cannot look this process up: it
 * takes a segment untouched for STALE_MS for a dead listener's and replays and removes it
 * (journal.ts). A quiet listener's segments are touched so that they stay its own.
 */
setInterval(() => {
  for (const s of [segment, spare]) if (s) touch(s.path);
}, heartbeatMs).unref();

/** The batch as the files it writes: a whole file alone, the lines appended to one file together. */
function plan(batch: readonly ToPublish[]): Written[] {
  const written: Written[] = [];
  const appends = new Map<string, ToPublish[]>();
  for (const item of batch) {
    if (item.kind !== EntryKind.Append) {
      written.push({ items: [item], path: item.path, kind: item.kind, data: item.data });
      continue;
    }
    const lines = appends.get(item.path);
    if (lines) lines.push(item);
    else appends.set(item.path, [item]);
  }
  for (const [path, items] of appends) {
    const data = items.length === 1 ? items[0].data : Buffer.concat(items.map((i) => i.data));
    written.push({ items, path, kind: EntryKind.Append, data });
  }
  return written;
}

/**
 * Puts each file of the plan in place, synchronously, as this thread exists to; what failed keeps its
 * error. Whole files go first (plan lists them first), so a line whose file failed is left out.
 */
function place(planned: readonly Written[]): void {
  const failed = new Map<number, unknown>();
  for (const w of planned) {
    if (w.kind !== EntryKind.Append) {
      w.error = writeFile(w.items[0]);
      if (w.error !== undefined) failed.set(w.items[0].id, w.error);
      continue;
    }
    if (failed.size > 0) leaveOrphansOut(w, failed);
    if (w.items.length > 0) w.error = appendFile(w.path, w.data);
  }
}

/** Takes out of `w` the lines whose file failed (a log whose name was taken leaves no run record). */
function leaveOrphansOut(w: Written, failed: ReadonlyMap<number, unknown>): void {
  const orphaned = (i: ToPublish) => i.after !== undefined && failed.has(i.after);
  if (!w.items.some(orphaned)) return;
  w.orphans = w.items.filter(orphaned).map((item) => ({ item, error: failed.get(item.after!) }));
  w.items = w.items.filter((i) => !orphaned(i));
  w.data = Buffer.concat(w.items.map((i) => i.data));
}

/**
 * Where each file this thread appends to ended after its last append. A file that ends elsewhere was
 * written by another process (a `job run`, or one killed mid-line): its last byte is read, and the
 * batch starts on a line of its own when that byte does not end a line, so a torn line does not
 * swallow the batch's first record. One `fstat` a batch, a read only after another writer.
 */
const appendedTo = new Map<string, number>();
const NEWLINE = new Uint8Array([0x0a]);

function appendFile(path: string, data: Uint8Array): unknown {
  try {
    const fd = openWith(path, APPEND);
    try {
      const { size } = fstatSync(fd);
      const torn = size > 0 && appendedTo.get(path) !== size && !endsLine(fd, size);
      // One write, as O_APPEND places it whole: two could let another process's line in between.
      writeAll(fd, [torn ? Buffer.concat([NEWLINE, data]) : data]);
      appendedTo.set(path, size + (torn ? 1 : 0) + data.length);
    } finally {
      closeSync(fd);
    }
    return undefined;
  } catch (e) {
    return e;
  }
}

function endsLine(fd: number, size: number): boolean {
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a;
}

const staging = stagingFolder(root);
/** New files are made nameless where the system can (nameless-file.ts), else under temp names. */
const nameless = namelessFilesIn(staging, { make: true });
/** What the paths of files inside the root start with. */
const inRoot = root + sep;

/**
 * A whole file put in place; the error, if it could not be. A new file is made nameless and named
 * once written, where the system allows; else, and for a file that replaces another (a rename
 * does), it is written under a temp name and put in place. The temp name is
 * in the journal's staging folder, which holds only the files being written: creating and removing
 * them there, rather than beside thousands of logs, spares two lookups in a large folder per file.
 * A file outside the root (another file system, maybe) has its temp name beside it.
 */
function writeFile(item: ToPublish): unknown {
  if (item.kind === EntryKind.NewFile && nameless) {
    const error = writeNameless(nameless, item);
    if (error !== FALL_BACK) return error;
  }
  try {
    const temp = tempPathOf(item.path, item.path.startsWith(inRoot) ? staging : dirname(item.path));
    const fd = openWith(temp, NEW, item.mode);
    try {
      writeAll(fd, [item.data]);
    } catch (e) {
      closeSync(fd);
      unlinkSync(temp);
      throw e;
    }
    closeSync(fd);
    try {
      putInPlace(temp, item);
    } catch (e) {
      unlinkSync(temp);
      throw e;
    }
    if (item.kind === EntryKind.NewFile) {
      try {
        unlinkSync(temp);
      } catch {
        // Published: a temp name left behind is only litter, not a reason to fail the call.
      }
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

/** Returned by writeNameless when the file system of the item's folder has no nameless files. */
const FALL_BACK = Symbol('fall back to a temp name');

/**
 * A new file made nameless in its folder and named once whole (nameless-file.ts); the error, if it
 * could not be; FALL_BACK if the folder's file system cannot make nameless files.
 */
function writeNameless(files: NamelessFiles, item: ToPublish): unknown {
  const folder = dirname(item.path);
  let fd: number;
  try {
    fd = files.open(folder, item.mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return FALL_BACK;
    try {
      mkdirSync(folder, { recursive: true });
      fd = files.open(folder, item.mode);
    } catch (again) {
      return again;
    }
  }
  try {
    writeAll(fd, [item.data]);
    files.name(fd, item.path);
    return undefined;
  } catch (e) {
    return e;
  } finally {
    closeSync(fd);
  }
}

/** Puts the temp file under the item's name, making its folder when it is missing. */
function putInPlace(temp: string, item: ToPublish): void {
  // A hard link fails with EEXIST rather than replace a file under the new one's name.
  const put = item.kind === EntryKind.File ? renameSync : linkSync;
  try {
    put(temp, item.path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(dirname(item.path), { recursive: true });
    put(temp, item.path);
  }
}

/** Opens, making the folder when it is missing rather than checking before each of thousands of files. */
function openWith(path: string, flags: number, mode?: number): number {
  try {
    return openSync(path, flags, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(dirname(path), { recursive: true });
    return openSync(path, flags, mode);
  }
}

function writeAll(fd: number, parts: readonly Uint8Array[]): void {
  for (const part of parts) for (let at = 0; at < part.length;) at += writeSync(fd, part, at);
}

/** The segment to write to: the spare, or a new one (its name made durable). */
function openSegment(): JournalSegment {
  if (segment) return segment;
  if (spare) {
    segment = spare;
    spare = undefined;
    return segment;
  }
  const folder = journalFolder(root);
  mkdirSync(folder, { recursive: true });
  segment = JournalSegment.create(join(folder, segmentName(writer, sequence++)));
  syncFolder(folder);
  return segment;
}

/** Flushes each file and the folders holding them: the way to durability when the journal cannot be written. */
async function flushEach(paths: Iterable<string>): Promise<void> {
  const files = [...new Set(paths)];
  const folders = [...new Set(files.map((f) => dirname(f)))];
  for (const group of [files, folders]) {
    let next = 0;
    const lane = async () => {
      while (next < group.length) {
        const fd = openSync(group[next++], 'r');
        try {
          await (group === files ? fdatasyncAsync(fd) : fsyncAsync(fd));
        } finally {
          closeSync(fd);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(FLUSHES_IN_FLIGHT, group.length) }, lane));
  }
}

/**
 * One batch: a record of each file in the journal, whose flush starts at once; meanwhile every file
 * is put in place (or lines appended); once both are done they are answered. A file that could not
 * be put in place has its record withdrawn (flushed too before the answer), so that a replay does not
 * make a file whose call was told it failed. Should the journal fail, each file and folder is flushed
 * instead, so an answer still means durable. Everything up to the first await is synchronous, so
 * batches reach the journal in the order they started.
 */
async function commit(batch: ToPublish[]): Promise<void> {
  const planned = plan(batch);
  let journal: JournalSegment | undefined;
  let flushed: Promise<void> | undefined;
  try {
    journal = openSegment();
    journal.write(recordsOf(planned, journal));
    for (const w of planned) journal.files.push(w.path);
    flushed = journal.flush();
  } catch {
    journal = undefined;
  }
  place(planned);
  // A group of lines all left out (leaveOrphansOut) wrote nothing to flush.
  const ok = planned.filter((w) => w.error === undefined && w.items.length > 0);
  try {
    if (!journal || !flushed) throw new Error('no journal');
    await flushed;
    // The lines left out with their file need nothing more: their records name its record (LineOf).
    const failed = planned.filter((w) => w.error !== undefined);
    if (failed.length > 0) {
      const { salt } = journal;
      journal.write(failed.flatMap((w) => w.positions!.map((p) => withdrawal(root, w.path, p, salt))));
      await journal.flush();
    }
  } catch {
    try {
      await flushEach(ok.map((w) => w.path));
    } catch (e) {
      for (const w of ok) w.error = e;
    }
  }
  answer(planned);
  if (segment && segment.bytes >= CHECKPOINT_BYTES) void checkpoint();
}

/**
 * The batch's journal records, each Written given the positions of its own. A line that speaks for a
 * file of the batch (a call's run record beside its log) has a record of its own naming that file's
 * record (EntryKind.LineOf): replay appends it only if the file is the one under its name. Were it
 * recorded with the other lines, a log whose name another process took would need the lines
 * recorded again without it, and a power cut before that flush would bring its record back. The
 * other lines to one file share one record.
 */
function recordsOf(planned: readonly Written[], journal: JournalSegment): Buffer[] {
  const { salt } = journal;
  let position = journal.end;
  const records: Buffer[] = [];
  const fileRecords = new Map<number, number>();
  const add = (w: Written, record: Buffer) => {
    (w.positions ??= []).push(position);
    records.push(record);
    position += record.length;
  };
  for (const w of planned) {
    if (w.kind !== EntryKind.Append) {
      fileRecords.set(w.items[0].id, position);
      add(w, encodeEntry(root, { kind: w.kind, path: w.path, data: w.data, mode: w.items[0].mode }, salt));
      continue;
    }
    const ofFile = (i: ToPublish) => i.after !== undefined && fileRecords.has(i.after);
    if (!w.items.some(ofFile)) {
      add(w, encodeEntry(root, { kind: w.kind, path: w.path, data: w.data }, salt));
      continue;
    }
    const free = w.items.filter((i) => !ofFile(i));
    if (free.length > 0)
      add(w, encodeEntry(root, { kind: w.kind, path: w.path, data: Buffer.concat(free.map((i) => i.data)) }, salt));
    for (const i of w.items) if (ofFile(i)) add(w, lineOf(root, w.path, fileRecords.get(i.after!)!, i.data, salt));
  }
  return records;
}

/**
 * Makes the files of the current segment durable with one flush of the file system (`sync -f`;
 * each file and folder in turn where that is missing), then restarts the segment as the spare (or,
 * closing, drops it). Batches meanwhile go to the spare or a new segment. A checkpoint cut short
 * leaves the segment, which the next start replays.
 */
function checkpoint(closing = false): Promise<void> {
  if (checkpointing || !segment || (segment.bytes === 0 && !closing)) return checkpointing ?? Promise.resolve();
  const done = segment;
  segment = undefined;
  checkpointing = (async () => {
    await Promise.allSettled(done.flushing);
    try {
      try {
        await execFileAsync('sync', ['-f', root]);
      } catch {
        await flushEach(done.files);
      }
    } catch {
      // The segment stays for the next start to replay.
      done.close();
      return;
    }
    try {
      if (!closing && !spare) {
        await done.restart();
        spare = done;
        return;
      }
    } catch {
      // Its files are durable: the segment is only dropped.
    }
    done.close();
    try {
      unlinkSync(done.path);
    } catch {
      // Left behind, it is replayed at the next start, which finds its files whole.
    }
  })().finally(() => {
    checkpointing = undefined;
  });
  return checkpointing;
}

/** Tells the event loop how each item ended; a failed file leaves nothing under its name. */
function answer(written: Written[]): void {
  const published: Published = { done: [], failed: [] };
  const fail = (id: number, error: unknown) => {
    const e = error as NodeJS.ErrnoException;
    published.failed.push({ id, message: e.message ?? String(e), ...(e.code ? { code: e.code } : {}) });
  };
  for (const w of written) {
    for (const o of w.orphans ?? []) fail(o.item.id, o.error);
    for (const item of w.items) {
      if (w.error === undefined) {
        published.done.push(item.id);
        continue;
      }
      fail(item.id, w.error);
    }
  }
  parentPort!.postMessage(published satisfies FromThread);
}

/** Starts a batch of what has arrived, unless as many as may are under way; each that ends starts the next. */
function next(): void {
  while (committing.size < BATCHES_IN_FLIGHT && pending.length > 0) {
    // A line is never parted from the file it speaks for (ToPublish.after), which comes just before it.
    const batch = pending.splice(0, pending[BATCH_ITEMS]?.after === undefined ? BATCH_ITEMS : BATCH_ITEMS + 1);
    clearTimeout(idleTimer);
    // commit() writes the batch before its first await: the loop goes on to the next batch while
    // this one's flush is under way.
    const done: Promise<void> = commit(batch)
      .catch((e: unknown) => {
        // Only a bug gets here: none of the batch is known to be on disk, so none may be answered done.
        answer([{ items: batch, path: '', kind: EntryKind.File, data: new Uint8Array(), error: e }]);
      })
      .finally(() => {
        committing.delete(done);
        if (pending.length > 0) next();
        else if (committing.size === 0) idleTimer = setTimeout(() => void checkpoint(), idleCheckpointMs);
      });
    committing.add(done);
  }
}

parentPort!.on('message', (message: ToThread) => {
  if ('batch' in message) {
    pending.push(...decodeBatch(message.batch));
    next();
    return;
  }
  void (async () => {
    while (committing.size > 0 || pending.length > 0) await Promise.allSettled(committing);
    clearTimeout(idleTimer);
    while (checkpointing) await checkpointing;
    await checkpoint(true);
    if (spare) {
      spare.close();
      unlinkSync(spare.path);
      spare = undefined;
    }
    parentPort!.postMessage({ closed: true } satisfies FromThread);
  })();
});
