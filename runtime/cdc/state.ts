import { open, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { parseTypeName, typeName } from '../dataset/type-names';
import type { ColumnType } from '../dataset/types';
import { ScriptError } from '../errors';
import { writeFileDurably } from './durable-file';
import type { KeyStore } from './keys';

/**
 * The CDC state of one CAPTURE: what the source held after the last run, as each record's key and
 * the hash of its observed values (no other values: the state stays small, and a delete carries
 * the key alone, docs/changelog.md). It is replaced only after the run's change log is safely written.
 */
export interface CdcState {
  keys: StateColumn[];
  /** The observed columns, in the order their values are hashed. */
  observed: StateColumn[];
  /** The key of each entry (keys.ts). */
  entries: KeyStore;
  /** Each entry's row hash: its two lanes at 2e and 2e + 1 (hash.ts). */
  hashes: Int32Array;
  /**
   * How `hashes` were computed: 2 by `rowHashes`, 1 by `hashRowsFormat1` (a state file of
   * format 1, read until its next run replaces it).
   */
  format: StateFormat;
  /** The hash table of the entries' keys (key-table.ts). */
  table: Int32Array;
}

export interface StateColumn {
  name: string;
  type: ColumnType;
  /**
   * Observed columns: every value the state's hashes saw was null, so today's values are compared
   * with null whatever their type (conform.ts). Absent in states written before it was recorded.
   */
  onlyNulls?: boolean;
}

export function stateSize(state: CdcState): number {
  return state.hashes.length / 2;
}

/**
 * `<workspace>/cdc/<pipeline>/<change log name>.state`: one state per pipeline and change log name,
 * the name as written in CAPTURE (a timestamped log's runs share it). Characters that cannot be in a
 * file name, and leading dots, are %-escaped so a name never leaves its folder.
 */
export function stateFile(workspace: string, pipeline: string, changeLog: string): string {
  return pipelineFile(workspace, pipeline, changeLog, '.state');
}

/** A file the workspace keeps per pipeline and change log name (CDC state, LOAD's watermark). */
export function pipelineFile(workspace: string, pipeline: string, changeLog: string, extension: string): string {
  return join(workspace, 'cdc', fileName(pipeline), `${fileName(changeLog)}${extension}`);
}

function fileName(name: string): string {
  return encodeURIComponent(name).replace(/^\.+/, (dots) => '%2E'.repeat(dots.length)) || '%00';
}

/*
 * File layout (little-endian):
 *   "SQLCDCST" | u32 FORMAT | u32 header length | header JSON (UTF-8), zero-padded to a multiple of 8
 *   u32 key offsets[count + 1] | i32 row hashes[2 * count] | i32 table[2 * slots] | key bytes
 *   | u32 CRC-32 of all before it
 * The header gives count, keyBytes, slots, and the key and observed columns with their types. FORMAT
 * covers the key encoding and the row hash: a new one would make every record look changed, so it
 * changes only with a new format number, and the formats before stay readable. Format 1 and 2
 * differ only in the row hash (hash.ts): a run against a format 1 state compares the rows with
 * format 1 hashes and commits format 2 ones.
 */
const MAGIC = Buffer.from('SQLCDCST', 'latin1');
export type StateFormat = 1 | 2;
const FORMATS: readonly number[] = [1, 2];
const NEWEST = 2;
const PREFIX = 16;

interface Header {
  count: number;
  keyBytes: number;
  slots: number;
  keys: { name: string; type: string }[];
  observed: { name: string; type: string; nulls?: true }[];
  written: string;
}

function requireLittleEndian(): void {
  if (endianness() !== 'LE')
    throw new ScriptError('CDC state files are little-endian; this machine is big-endian', 'unsupported');
}

/** Writes `state` to `file` durably (temp file, fsync, rename, folder fsync). */
export async function writeState(file: string, state: CdcState): Promise<void> {
  requireLittleEndian();
  const count = stateSize(state);
  const header: Header = {
    count,
    keyBytes: state.entries.bytes.length,
    slots: state.table.length / 2,
    keys: state.keys.map((c) => ({ name: c.name, type: typeName(c.type) })),
    observed: state.observed.map((c) => ({
      name: c.name,
      type: typeName(c.type),
      ...(c.onlyNulls && { nulls: true }),
    })),
    written: new Date().toISOString(),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(align8(PREFIX + json.length));
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(state.format, 8);
  prefix.writeUInt32LE(json.length, 12);
  json.copy(prefix, PREFIX);
  // Empty sections are left out: zlib.crc32 of a view on a zero-length ArrayBuffer returns 0 (Node 20), whatever the running value.
  const sections = [
    prefix,
    bytesOf(state.entries.offsets),
    bytesOf(state.hashes),
    bytesOf(state.table),
    state.entries.bytes,
  ];
  const parts = sections.filter((part) => part.length > 0);
  let crc = 0;
  for (const part of parts) crc = crc32(part, crc);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32LE(crc, 0);
  await writeFileDurably(file, [...parts, trailer]);
}

/** The state in `file`, or undefined when there is none yet. */
export async function readState(file: string): Promise<CdcState | undefined> {
  requireLittleEndian();
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    // Into shared memory, where the typed arrays of the state view it (shared-memory.ts).
    const buffer = Buffer.from(new SharedArrayBuffer((await handle.stat()).size));
    for (let done = 0; done < buffer.length;) {
      const { bytesRead } = await handle.read(buffer, done, buffer.length - done, done);
      if (bytesRead === 0) return parseState(buffer.subarray(0, done), file);
      done += bytesRead;
    }
    return parseState(buffer, file);
  } finally {
    await handle.close();
  }
}

function parseState(buffer: Buffer, file: string): CdcState {
  const damaged = (reason: string) =>
    new ScriptError(
      `the CDC state file '${file}' is damaged (${reason}); delete it to capture every record again`,
      'runtime',
    );
  if (buffer.length < PREFIX + 4 || !buffer.subarray(0, 8).equals(MAGIC)) throw damaged('not a CDC state file');
  const format = buffer.readUInt32LE(8);
  if (!FORMATS.includes(format)) {
    throw new ScriptError(
      `the CDC state file '${file}' has format ${format}; this version reads formats ${FORMATS.join(' and ')} (writes ${NEWEST})`,
      'runtime',
    );
  }
  const end = buffer.length - 4;
  if (crc32(buffer.subarray(0, end)) !== buffer.readUInt32LE(end)) throw damaged('checksum mismatch');
  // Typed arrays view the file's bytes in place: `buffer` starts its own memory, so they are aligned.
  const headerLength = buffer.readUInt32LE(12);
  let header: Header;
  try {
    header = JSON.parse(buffer.toString('utf8', PREFIX, PREFIX + headerLength)) as Header;
  } catch {
    throw damaged('unreadable header');
  }
  const { count, keyBytes, slots } = header;
  if (!Number.isInteger(slots) || slots < 1024 || (slots & (slots - 1)) !== 0 || count > slots * 0.6)
    throw damaged('bad key table size');
  const offsetsAt = align8(PREFIX + headerLength);
  const hashesAt = offsetsAt + 4 * (count + 1);
  const tableAt = hashesAt + 8 * count;
  const keysAt = tableAt + 8 * slots;
  if (keysAt + keyBytes !== end) throw damaged('sizes do not add up');
  const base = buffer.byteOffset;
  const offsets = new Uint32Array(buffer.buffer, base + offsetsAt, count + 1);
  if (offsets[0] !== 0 || offsets[count] !== keyBytes) throw damaged('key offsets out of range');
  return {
    keys: header.keys.map(column),
    observed: header.observed.map(column),
    entries: { bytes: new Uint8Array(buffer.buffer, base + keysAt, keyBytes), offsets },
    hashes: new Int32Array(buffer.buffer, base + hashesAt, 2 * count),
    table: new Int32Array(buffer.buffer, base + tableAt, 2 * slots),
    format: format as StateFormat,
  };
}

function column(c: { name: string; type: string; nulls?: true }): StateColumn {
  return { name: c.name, type: parseTypeName(c.type), ...(c.nulls && { onlyNulls: true }) };
}

function bytesOf(a: Uint32Array | Int32Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
