import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { crc32 } from 'node:zlib';
import { syncFile, syncFolder, removeDeadTemps, writeFileAtomic } from './files';
import { bootId, identityAlive, pidNamespace, processIdentity } from '../util/process-alive';

/**
 * The group commit's write-ahead journal (group-commit.ts): what a batch publishes is appended to
 * one segment file and flushed once, instead of flushing every file and folder the batch touched.
 * The files themselves are in place before the answer (a process killed afterwards loses nothing:
 * the page cache outlives it); the journal is what brings them back after a power cut, when the
 * next listener on the workspace starts. A checkpoint makes the files durable in one flush of the
 * file system and drops the segment.
 *
 * Records are written before their files are put in place, and flushed meanwhile: a batch's
 * answers wait for whichever of the two ends last, not for both one after the other.
 *
 * A segment, `<workspace>/.journal/<process identity>.<writer>-<seq>.wal` (`segmentName`), is `MAGIC`, a u32 salt, then
 * records, each `u32 body length | u32 CRC-32 of body, seeded with the salt | body`, body = `u8 kind |
 * u32 mode (0: none) | u16 path length | path (UTF-8, relative to the workspace) | data`. A record
 * cut short by a crash fails its length or CRC: it and anything after it were never answered, and
 * replay stops there. A segment is written in place over zeros and used again after its checkpoint
 * under a new salt (journal-segment.ts): what is left of its previous use fails the CRC the same way.
 * Segments of the first format (`SQLCDC-JOURNAL-1`, no salt, appended) are still replayed.
 */
export const JOURNAL_FOLDER = '.journal';
const MAGIC = Buffer.from('SQLCDC-JOURNAL-2\n', 'latin1');
const MAGIC_UNSALTED = Buffer.from('SQLCDC-JOURNAL-1\n', 'latin1');
/** Magic and salt: where the first record starts. */
export const SEGMENT_HEADER = MAGIC.length + 4;
const PREFIX = 8;
const FIXED = 1 + 4 + 2;

export enum EntryKind {
  /** A whole file, replacing one under its name. */
  File = 1,
  /** A whole file that never replaces one (a change log named by its execution id). */
  NewFile = 2,
  /** Lines appended to a file (a job's run records). */
  Append = 3,
  /**
   * An earlier record of the segment was never put in place (its call was answered with an error):
   * replay must not make it. Records go in the journal before their files (the journal is written
   * ahead), so a file that then fails has a record to withdraw. Its data is the u32 position of the
   * record it withdraws: another batch may have recorded lines for the same file in between.
   */
  Withdrawn = 4,
  /**
   * A line appended to a file (a call's run record) that speaks for a file of the same batch (the
   * call's log): replayed only if that file's record is, and the file under its name is that one.
   * Its data is the u32 position of the file's record, then the line. A log whose name another
   * process took (two listeners on one workspace) thus leaves no record of it on replay, even when
   * the power went before its withdrawal was flushed.
   */
  LineOf = 5,
}

/** A record as replay reads it: where in its segment it starts, which a withdrawal names. */
export interface DecodedEntry extends JournalEntry {
  position: number;
}

/** The record withdrawing the one at `position` in the same segment, for `path`. */
export function withdrawal(root: string, path: string, position: number, salt: number): Buffer {
  const data = Buffer.allocUnsafe(4);
  data.writeUInt32LE(position, 0);
  return encodeEntry(root, { kind: EntryKind.Withdrawn, path, data }, salt);
}

/** The record of `line`, appended to `path` only if the file recorded at `position` is put in place. */
export function lineOf(root: string, path: string, position: number, line: Uint8Array, salt: number): Buffer {
  const data = Buffer.allocUnsafe(4 + line.length);
  data.writeUInt32LE(position, 0);
  data.set(line, 4);
  return encodeEntry(root, { kind: EntryKind.LineOf, path, data }, salt);
}

export interface JournalEntry {
  kind: EntryKind;
  /** Absolute. */
  path: string;
  data: Uint8Array;
  mode?: number;
}

export function journalFolder(root: string): string {
  return join(root, JOURNAL_FOLDER);
}

/** Where the group commit writes files under temp names before putting them in place. */
export function stagingFolder(root: string): string {
  return join(root, JOURNAL_FOLDER, 'staging');
}

/** The segment's first bytes, which a new use of it rewrites with a new salt. */
export function segmentHeader(salt: number): Buffer {
  const b = Buffer.allocUnsafe(SEGMENT_HEADER);
  MAGIC.copy(b);
  b.writeUInt32LE(salt, MAGIC.length);
  return b;
}

/** One record, as a segment under `salt` holds it. */
export function encodeEntry(root: string, entry: JournalEntry, salt: number): Buffer {
  // Relative to the root when inside it (the usual case, told without path.relative's work).
  const inside = entry.path.length > root.length && entry.path.startsWith(root) && entry.path[root.length] === sep;
  const path = inside ? entry.path.slice(root.length + 1) : entry.path;
  const pathBytes = Buffer.byteLength(path, 'utf8');
  const record = Buffer.allocUnsafe(PREFIX + FIXED + pathBytes + entry.data.length);
  const body = record.subarray(PREFIX);
  body.writeUInt8(entry.kind, 0);
  body.writeUInt32LE(entry.mode ?? 0, 1);
  body.writeUInt16LE(pathBytes, 5);
  // Written in place rather than through a buffer of its own: one allocation and one copy less per log.
  body.write(path, FIXED, 'utf8');
  body.set(entry.data, FIXED + pathBytes);
  record.writeUInt32LE(body.length, 0);
  record.writeUInt32LE(crc32(body, salt), 4);
  return record;
}

/** The complete records of a segment, up to the first torn, damaged or stale one. */
export function decodeSegment(root: string, bytes: Buffer): DecodedEntry[] {
  let salt: number;
  let at: number;
  if (startsWith(bytes, MAGIC) && bytes.length >= SEGMENT_HEADER) {
    salt = bytes.readUInt32LE(MAGIC.length);
    at = SEGMENT_HEADER;
  } else if (startsWith(bytes, MAGIC_UNSALTED)) {
    // A CRC seeded with 0 is the plain CRC the first format used.
    salt = 0;
    at = MAGIC_UNSALTED.length;
  } else return [];
  const entries: DecodedEntry[] = [];
  while (at + PREFIX <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    const body = bytes.subarray(at + PREFIX, at + PREFIX + length);
    if (length < FIXED || body.length < length || crc32(body, salt) !== bytes.readUInt32LE(at + 4)) break;
    const kind = body.readUInt8(0) as EntryKind;
    const mode = body.readUInt32LE(1);
    const pathLength = body.readUInt16LE(5);
    const path = body.subarray(FIXED, FIXED + pathLength).toString('utf8');
    entries.push({
      kind,
      path: resolve(root, path),
      data: body.subarray(FIXED + pathLength),
      ...(mode ? { mode } : {}),
      position: at,
    });
    at += PREFIX + length;
  }
  return entries;
}

function startsWith(bytes: Buffer, magic: Buffer): boolean {
  return bytes.length >= magic.length && bytes.subarray(0, magic.length).equals(magic);
}

// ----------------------------------------------------------------------------- owners

/**
 * `<writer's process identity>.<writer>-<seq>.wal`: the identity (boot, PID namespace, process id,
 * start time: `processIdentity`, as a lock's holder is named) tells whether the segment's listener
 * is gone, even after a reboot hands its process id to another process, or when a listener of
 * another PID namespace (a container sharing the workspace) has the same id; `writer` tells apart
 * the group commits of one process (listeners started one after another in a kernel, or side by
 * side).
 */
export function segmentName(writer: string, seq: number): string {
  return `${processIdentity()}.${writer}-${seq}.wal`;
}

const SEGMENT = /^([0-9a-f]*\.\d*\.\d+\.\d*)\.[0-9a-f]+-\d+\.wal$/;
/** A segment of an older sqlcdc, `<boot>-<pid>-<start>.<writer>-<seq>.wal`, without the PID namespace. */
const SEGMENT_WITHOUT_NAMESPACE = /^([0-9a-f]*)-(\d+)-(\d*)\.[0-9a-f]+-\d+\.wal$/;

/**
 * Whether the listener that writes the segment `name` is gone (`identityAlive`), or undefined for
 * another file. One of another PID namespace or boot cannot be looked up: alive while the segment was
 * touched within STALE_MS, which a listener does every HEARTBEAT_MS even while quiet
 * (group-commit-worker.ts). An older sqlcdc's segment is judged as it was then: of this PID
 * namespace, and gone when of another boot.
 */
function writerGone(name: string, segment: string): boolean | undefined {
  const m = SEGMENT.exec(name);
  const old = m ? undefined : SEGMENT_WITHOUT_NAMESPACE.exec(name);
  if (old && old[1] !== bootId()) return true;
  const writer = m ? m[1] : old && `${old[1]}.${pidNamespace()}.${old[2]}.${old[3]}`;
  if (!writer) return undefined;
  return !identityAlive(writer, () => statSync(segment, { throwIfNoEntry: false })?.mtimeMs);
}

// ----------------------------------------------------------------------------- replay

export interface Replayed {
  segments: number;
  /** Files written again (a power cut lost them) and appends made again. */
  restored: string[];
}

/**
 * Replays the segments of writers that are gone (a listener killed, or a machine that lost power),
 * so every file they answered for is whole and durable, then removes the segments. Runs before a
 * listener takes its first call: a log restored later could collide with a new call's execution id.
 * Replaying twice is harmless: a file already holding its bytes, and a line already in its file,
 * are left as they are.
 */
export function replayJournal(root: string): Replayed {
  const folder = journalFolder(root);
  const replayed: Replayed = { segments: 0, restored: [] };
  if (!existsSync(folder)) return replayed;
  const folders = new Set<string>();
  const appended = new Map<string, string>();
  for (const name of readdirSync(folder).sort()) {
    const segment = join(folder, name);
    if (!writerGone(name, segment)) continue;
    // Positions of the records whose file is under its name, the lines speaking for it may follow.
    const placed = new Set<number>();
    for (const entry of withoutWithdrawn(decodeSegment(root, readFileSync(segment)))) {
      if (replayEntry(entry, placed, appended)) {
        replayed.restored.push(entry.path);
        folders.add(dirname(entry.path));
      }
    }
    for (const f of folders) syncFolder(f);
    folders.clear();
    unlinkSync(segment);
    replayed.segments++;
  }
  if (replayed.segments > 0) syncFolder(folder);
  // Temp files a killed writer left in the staging folder: never published, so never answered for.
  removeDeadTemps(stagingFolder(root));
  return replayed;
}

/** The entries to replay: withdrawals and the records they withdraw left out. */
function withoutWithdrawn(entries: DecodedEntry[]): DecodedEntry[] {
  const withdrawn = new Set<string>();
  for (const e of entries)
    if (e.kind === EntryKind.Withdrawn && e.data.length === 4)
      withdrawn.add(`${Buffer.from(e.data).readUInt32LE(0)}\u0000${e.path}`);
  return entries.filter((e) => e.kind !== EntryKind.Withdrawn && !withdrawn.has(`${e.position}\u0000${e.path}`));
}

/** Replays one record; whether it wrote anything. */
function replayEntry(entry: DecodedEntry, placed: Set<number>, appended: Map<string, string>): boolean {
  switch (entry.kind) {
    case EntryKind.Append:
      return restoreLines(entry, appended);
    case EntryKind.LineOf: {
      if (entry.data.length < 4 || !placed.has(Buffer.from(entry.data).readUInt32LE(0))) return false;
      return restoreLines({ ...entry, data: entry.data.subarray(4) }, appended);
    }
    case EntryKind.File:
    case EntryKind.NewFile: {
      const restored = restoreFile(entry);
      if (restored !== 'another') placed.add(entry.position);
      return restored === 'written';
    }
    default:
      return false;
  }
}

/** Makes the file whole under its name: `whole` already, `written` now, or `another` file holds a change log's name. */
function restoreFile(entry: JournalEntry): 'whole' | 'written' | 'another' {
  let existing: Buffer | undefined;
  try {
    existing = readFileSync(entry.path);
  } catch {
    // missing: written below
  }
  if (existing?.equals(entry.data)) return 'whole';
  // A change log's name holding other bytes than a start of its own (what a power cut leaves) is
  // another file, not this one's to replace.
  if (existing && entry.kind === EntryKind.NewFile && !isStartOf(existing, entry.data)) return 'another';
  mkdirSync(dirname(entry.path), { recursive: true });
  writeFileAtomic(entry.path, entry.data, entry.mode);
  return 'written';
}

function isStartOf(part: Buffer, whole: Uint8Array): boolean {
  return part.length < whole.length && part.equals(whole.subarray(0, part.length));
}

/** Appends those of the entry's lines the file does not hold already (each line names its run). */
function restoreLines(entry: JournalEntry, contents: Map<string, string>): boolean {
  let text = contents.get(entry.path) ?? (existsSync(entry.path) ? readFileSync(entry.path, 'utf8') : '');
  const missing = Buffer.from(entry.data)
    .toString('utf8')
    .split('\n')
    .filter((line) => line && !text.includes(`${line}\n`));
  if (missing.length === 0) {
    contents.set(entry.path, text);
    return false;
  }
  // A line torn by the crash must not swallow the first line appended after it.
  const add = `${text.length > 0 && !text.endsWith('\n') ? '\n' : ''}${missing.join('\n')}\n`;
  mkdirSync(dirname(entry.path), { recursive: true });
  appendFileSync(entry.path, add);
  syncFile(entry.path);
  text += add;
  contents.set(entry.path, text);
  return true;
}
