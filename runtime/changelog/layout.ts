import { crc32 } from 'node:zlib';
import { BufferSink, type ByteSink } from '../util/bytes';

/**
 * The byte layout of a change log (docs/changelog.md, "File layout"), shared by the writer and
 * the reader. All integers are little-endian.
 *
 *   magic (8) · header length u32 · header JSON · header CRC-32 u32
 *   frame*    · kind u8 (U|D) · rows u32 · raw length u32 · stored length u32 · CRC-32 u32 · stored bytes
 *   trailer   · kind u8 (E) · upsert rows u64 · delete rows u64 · frames u32 · CRC-32 u32
 *
 * Upsert frames come before delete frames. The trailer is what makes a file complete: a file that
 * ends anywhere before it is truncated, whatever its frames hold.
 */

/** PNG-style: a non-ASCII first byte, then a name, then CR LF, EOF and LF, which text-mode transfers mangle. */
export const MAGIC = Buffer.from([0x89, 0x45, 0x44, 0x53, 0x0d, 0x0a, 0x1a, 0x0a]);

export const KIND = { upserts: 0x55, deletes: 0x44, end: 0x45 } as const;

export const FRAME_HEADER = 17;
export const TRAILER = 25;

/**
 * Rows per frame unless the writer is told otherwise: under 1 MB of raw cells for a dozen typical
 * columns. Small enough that a reader's decompressed frame is garbage before V8 promotes it: with
 * 65,536 rows the frames outlived young-generation collections, their buffers added up to V8's
 * external memory limit and started two full collections of the heap being read into, which made a
 * million-row read ~15% dearer; files are ~4% larger than with 65,536 rows.
 */
export const DEFAULT_FRAME_ROWS = 16_384;

/** No frame of ours comes near this; a larger length is damage, refused before anything is allocated. */
export const MAX_FRAME_BYTES = 1 << 30;

export interface FrameHeader {
  kind: number;
  rows: number;
  rawLength: number;
  storedLength: number;
  crc: number;
}

const NO_BYTES: Buffer = Buffer.alloc(0);
/** One object, reused: the pieces are written one after the other, never two at once. */
const spot: { buf: Buffer; at: number } = { buf: NO_BYTES, at: 0 };

/**
 * Where `writeFrameHeader`, `writeTrailer` and `writeHeaderBlock` put their bytes: in place in a
 * BufferSink (a log built in memory, one per webhook call), else in a buffer of their own each.
 */
function roomIn(out: ByteSink, n: number): { buf: Buffer; at: number } {
  if (out instanceof BufferSink) {
    spot.at = out.room(n);
    spot.buf = out.buffer;
  } else {
    spot.at = 0;
    spot.buf = Buffer.allocUnsafe(n);
  }
  return spot;
}

function put(out: ByteSink, n: number): void {
  if (out instanceof BufferSink) out.advance(n);
  else out.write(spot.buf.subarray(0, n));
  // Not kept past its piece: a sink's buffer may hold a whole large log.
  spot.buf = NO_BYTES;
}

export function writeFrameHeader(out: ByteSink, kind: number, rows: number, raw: number, stored: Uint8Array): void {
  const { buf, at } = roomIn(out, FRAME_HEADER);
  frameHeaderAt(buf, at, kind, rows, raw, stored);
  put(out, FRAME_HEADER);
}

function frameHeaderAt(b: Buffer, at: number, kind: number, rows: number, raw: number, stored: Uint8Array): void {
  b[at] = kind;
  b.writeUInt32LE(rows, at + 1);
  b.writeUInt32LE(raw, at + 5);
  b.writeUInt32LE(stored.length, at + 9);
  b.writeUInt32LE(frameCrc(b.subarray(at, at + 13), stored), at + 13);
}

/** The fields after the kind byte, which the reader has already looked at. */
export function parseFrameHeader(b: Buffer): FrameHeader {
  return {
    kind: b[0],
    rows: b.readUInt32LE(1),
    rawLength: b.readUInt32LE(5),
    storedLength: b.readUInt32LE(9),
    crc: b.readUInt32LE(13),
  };
}

/** Covers the frame's fields and its stored bytes: a damaged length is caught as surely as a damaged cell. */
export function frameCrc(header: Buffer, stored: Uint8Array): number {
  return crc32(stored, smallCrc(header, 0, 13));
}

/** zlib's CRC-32 (reflected, polynomial 0xEDB88320), a byte at a time. */
const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/**
 * zlib's `crc32` of bytes `start` to `end` of `b`, for the few bytes of a frame's fields and of a
 * trailer: zlib's is a call into C++ and a view per call, which `perf` of a listener under load put
 * at ~0.4 µs a call each; these ~20 bytes take some 20 ns here. test/changelog/layout-crc.test.ts compares both.
 */
export function smallCrc(b: Uint8Array, start: number, end: number): number {
  let c = -1;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

export interface Trailer {
  upserts: number;
  deletes: number;
  frames: number;
}

export function writeTrailer(out: ByteSink, t: Trailer): void {
  const { buf, at } = roomIn(out, TRAILER);
  trailerAt(buf, at, t);
  put(out, TRAILER);
}

function trailerAt(b: Buffer, at: number, t: Trailer): void {
  b[at] = KIND.end;
  u64(b, t.upserts, at + 1);
  u64(b, t.deletes, at + 9);
  b.writeUInt32LE(t.frames, at + 17);
  b.writeUInt32LE(smallCrc(b, at, at + 21), at + 21);
}

/** A count (a safe integer) as u64: the bytes writeBigUInt64LE writes, without making a BigInt of it. */
function u64(b: Buffer, n: number, at: number): void {
  b.writeUInt32LE(n % 0x1_0000_0000, at);
  b.writeUInt32LE(Math.floor(n / 0x1_0000_0000), at + 4);
}

/** The trailer's counts, or undefined when its checksum fails. */
export function parseTrailer(b: Buffer): Trailer | undefined {
  if (smallCrc(b, 0, 21) !== b.readUInt32LE(21)) return undefined;
  return { upserts: Number(b.readBigUInt64LE(1)), deletes: Number(b.readBigUInt64LE(9)), frames: b.readUInt32LE(17) };
}

export function writeHeaderBlock(out: ByteSink, json: string): void {
  const length = Buffer.byteLength(json, 'utf8');
  const { buf, at } = roomIn(out, 4 + length + 4);
  headerBlockAt(buf, at, json, length);
  put(out, 4 + length + 4);
}

function headerBlockAt(b: Buffer, at: number, json: string, length: number): void {
  b.writeUInt32LE(length, at);
  b.write(json, at + 4, 'utf8');
  b.writeUInt32LE(crc32(b.subarray(at + 4, at + 4 + length)), at + 4 + length);
}

/**
 * A whole log of upserts in at most one frame, stored as it is, laid out in one buffer of its exact
 * size: the bytes MAGIC, writeHeaderBlock, writeFrameHeader and writeTrailer write through a sink
 * (test/changelog/one-frame.test.ts compares them). A listener writes such a log per call, and the
 * sink's growing buffer, its pieces and its checks were most of a small log's encoding beyond the frame.
 * `frame` is undefined for a log of no rows, which has no frame.
 */
export function oneFrameLog(json: string, rows: number, frame: Uint8Array | undefined): Buffer {
  const length = Buffer.byteLength(json, 'utf8');
  const frameAt = MAGIC.length + 4 + length + 4;
  const end = frame ? frameAt + FRAME_HEADER + frame.length : frameAt;
  const b = Buffer.allocUnsafe(end + TRAILER);
  b.set(MAGIC, 0);
  headerBlockAt(b, MAGIC.length, json, length);
  if (frame) {
    frameHeaderAt(b, frameAt, KIND.upserts, rows, frame.length, frame);
    b.set(frame, frameAt + FRAME_HEADER);
  }
  trailerAt(b, end, { upserts: rows, deletes: 0, frames: frame ? 1 : 0 });
  return b;
}
