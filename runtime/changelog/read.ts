import { closeSync, openSync } from 'node:fs';
import { basename } from 'node:path';
import { crc32 } from 'node:zlib';
import { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { EndOfData, FileSource, type ByteSource } from '../util/bytes';
import type { Signer } from '../workspace/cms-signed';
import { isMalformed } from '../workspace/cms';
import { storedColumn, targetFor, type ColumnTarget } from './column-targets';
import { FrameDecoder, FrameError } from './frame-decoder';
import { decompress } from './compress';
import { parseHeader, type ChangeLogHeader } from './header';
import {
  FRAME_HEADER,
  frameCrc,
  KIND,
  MAX_FRAME_BYTES,
  parseFrameHeader,
  parseTrailer,
  TRAILER,
  type Trailer,
} from './layout';
import { requireSignature, unwrap, verifySigners, type Layers } from './secure';

export interface ReadOptions {
  /** The workspace whose certificates decrypt the log and vouch for its signer. */
  workspace?: string;
  /** LOAD … WITH CHECK_SIGNATURE: the log must be signed by a certificate of the workspace store, and unchanged. */
  checkSignature?: boolean;
}

export type StreamName = 'upserts' | 'deletes';

export interface ChangeLogPage {
  stream: StreamName;
  /** Up to the header's frameRows rows of the stream, in order. */
  data: Dataset;
}

/** What is damaged in a file, as opposed to a problem with keys or trust (ScriptError) or the disk. */
class Damage extends Error {}

/** A frame read from the file, its body being decompressed. */
interface PendingFrame {
  stream: StreamName;
  rows: number;
  body: Promise<Buffer>;
}

/**
 * An open change log: its header at once, its rows frame by frame. A file is only known good
 * when the last page has been read: the trailer (rows and frames written) and, with
 * CHECK_SIGNATURE, the signature are checked after the last frame, so a consumer commits nothing
 * before `pages()` has finished (readChangeLog does exactly that).
 */
export class ChangeLogReader {
  readonly header: ChangeLogHeader;
  readonly encrypted: boolean;
  readonly signed: boolean;
  /** The signers, once the pages were read with checkSignature. */
  signers: Signer[] = [];
  private fd: number | undefined;
  private readonly layers: Layers;

  private constructor(
    readonly path: string,
    private readonly options: ReadOptions,
  ) {
    this.fd = openSync(path, 'r');
    try {
      this.layers = this.guard(() => unwrap(new FileSource(this.fd!), options)!);
      if (options.checkSignature) this.guard(() => requireSignature(this.layers));
      this.header = this.guard(() => readHeader(this.layers.content));
    } catch (e) {
      this.close();
      throw e;
    }
    this.encrypted = this.layers.encrypted;
    this.signed = this.layers.signed.length > 0;
  }

  static open(path: string, options: ReadOptions = {}): ChangeLogReader {
    return new ChangeLogReader(path, options);
  }

  /**
   * The rows, a frame at a time: upsert pages, then delete pages. Decodes into new arrays per page;
   * `into` (readChangeLog) gives whole columns to fill instead (arrays, or typed storage:
   * column-targets.ts), at each stream's running row offset, and yields no page.
   * While a frame is decoded, the next one is already being decompressed in the thread pool.
   */
  async *pages(into?: Record<StreamName, readonly ColumnTarget[]>): AsyncGenerator<ChangeLogPage> {
    const src = this.layers.content;
    const { schema, counts } = this.header;
    const decoder = new FrameDecoder(schema, this.header.frameRows);
    const expected = { upserts: counts.inserts + counts.updates, deletes: counts.deletes };
    const claimed = { upserts: 0, deletes: 0 };
    const decoded = { upserts: 0, deletes: 0 };
    let frames = 0;
    try {
      let next = this.guard(() => this.startFrame(src, 1, claimed, expected));
      while (next) {
        const frame = next;
        const body = await this.guardAsync(frame.body);
        frames++;
        next = this.guard(() => this.startFrame(src, frames + 1, claimed, expected));
        const { stream, rows } = frame;
        if (into) {
          this.guard(() => decoder.decode(body, rows, into[stream], decoded[stream]));
          decoded[stream] += rows;
          continue;
        }
        const target = schema.map(() => new Array<Value>(rows));
        this.guard(() => decoder.decode(body, rows, target, 0));
        decoded[stream] += rows;
        yield {
          stream,
          data: new Dataset(
            schema.map((c) => ({ ...c, type: { ...c.type } })),
            target,
            rows,
          ),
        };
      }
      this.guard(() => this.finish(src, decoded, frames, expected));
    } finally {
      this.close();
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * Reads frame `n` (its fields are checked against the header and its bytes against their
   * checksum) and starts decompressing it; undefined at the trailer.
   */
  private startFrame(
    src: ByteSource,
    n: number,
    claimed: Record<StreamName, number>,
    expected: Record<StreamName, number>,
  ): PendingFrame | undefined {
    const kind = src.peek();
    if (kind === KIND.end) return undefined;
    if (kind === -1) throw new EndOfData(1, 0);
    const stream: StreamName | undefined =
      kind === KIND.upserts ? 'upserts' : kind === KIND.deletes ? 'deletes' : undefined;
    if (!stream) throw new Damage(`frame ${n} has kind 0x${kind.toString(16)}`);
    if (stream === 'upserts' && claimed.deletes > 0) throw new Damage(`frame ${n}: upserts after deletes`);
    const header = Buffer.from(src.read(FRAME_HEADER));
    const h = parseFrameHeader(header);
    if (h.storedLength > MAX_FRAME_BYTES || h.rawLength > MAX_FRAME_BYTES)
      throw new Damage(`frame ${n} claims ${Math.max(h.storedLength, h.rawLength)} bytes`);
    const stored = src.read(h.storedLength);
    if (frameCrc(header, stored) !== h.crc) throw new Damage(`frame ${n} fails its checksum`);
    if (h.rows === 0 || h.rows > this.header.frameRows || claimed[stream] + h.rows > expected[stream]) {
      throw new Damage(`frame ${n} holds ${h.rows} rows, more than the header announces`);
    }
    claimed[stream] += h.rows;
    const body = decompress(this.header.compression, stored, h.rawLength).then(
      (b) => {
        if (b.length !== h.rawLength)
          throw new Damage(`frame ${n} decompresses to ${b.length} bytes, not ${h.rawLength}`);
        return b;
      },
      (e: Error) => {
        throw new Damage(`frame ${n} does not decompress (${e.message})`);
      },
    );
    // Awaited only after the previous frame is decoded: a failure meanwhile must not count as unhandled.
    body.catch(() => undefined);
    return { stream, rows: h.rows, body };
  }

  private finish(
    src: ByteSource,
    seen: Record<StreamName, number>,
    frames: number,
    expected: Record<StreamName, number>,
  ): void {
    const t: Trailer | undefined = parseTrailer(src.read(TRAILER));
    if (!t) throw new Damage('the trailer fails its checksum');
    if (t.frames !== frames || t.upserts !== seen.upserts || t.deletes !== seen.deletes) {
      throw new Damage(
        `the trailer counts ${t.frames} frames, ${t.upserts} upserts and ${t.deletes} deletes; the file has ${frames}, ${seen.upserts} and ${seen.deletes}`,
      );
    }
    if (seen.upserts !== expected.upserts || seen.deletes !== expected.deletes) {
      throw new Damage(
        `the header counts ${expected.upserts} upserts and ${expected.deletes} deletes; the file has ${seen.upserts} and ${seen.deletes}`,
      );
    }
    // Every layer must end where its content does: bytes after the trailer are damage too.
    for (const layer of [...this.layers.sources].reverse())
      if (!layer.atEnd()) throw new Damage('bytes follow the end of the change log');
    if (this.options.checkSignature) this.signers = verifySigners(this.layers, this.options.workspace);
  }

  private guard<T>(read: () => T): T {
    return guarded(this.path, read);
  }

  private async guardAsync<T>(pending: Promise<T>): Promise<T> {
    try {
      return await pending;
    } catch (e) {
      return guarded(this.path, () => {
        throw e;
      });
    }
  }
}

/** Runs `read`, turning what goes wrong into a ScriptError that names the file and says truncated, damaged, or why. */
function guarded<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    const name = basename(path);
    if (e instanceof EndOfData) throw new ScriptError(`change log ${name} is truncated: ${e.message}`, 'runtime');
    if (e instanceof Damage || e instanceof FrameError || isMalformed(e))
      throw new ScriptError(`change log ${name} is damaged: ${e.message}`, 'runtime');
    if (e instanceof ScriptError) throw new ScriptError(`change log ${name}: ${e.message}`, 'runtime');
    throw e;
  }
}

function readHeader(src: ByteSource): ChangeLogHeader {
  const length = src.read(4).readUInt32LE(0);
  if (length > MAX_FRAME_BYTES) throw new Damage(`a header of ${length} bytes`);
  const body = src.read(length);
  const crc = src.read(4).readUInt32LE(0);
  if (crc32(body) !== crc) throw new Damage('the header fails its checksum');
  const header = parseHeader(body.toString('utf8'));
  if (typeof header === 'string') throw new Damage(header);
  return header;
}

export interface ChangeLog {
  header: ChangeLogHeader;
  upserts: Dataset;
  deletes: Dataset;
  encrypted: boolean;
  signed: boolean;
  /** Set when read with checkSignature. */
  signers: Signer[];
}

/**
 * A whole change log in memory, its two streams as datasets. Cells are decoded straight into
 * columns sized from the header, typed storage where the type has one (column-targets.ts), so no
 * page is copied; it returns only after the trailer and, with checkSignature, the signature have
 * been checked.
 */
export async function readChangeLog(path: string, options: ReadOptions = {}): Promise<ChangeLog> {
  const reader = ChangeLogReader.open(path, options);
  const { schema, counts } = reader.header;
  const columns = () => schema.map((c) => ({ ...c, type: { ...c.type } }));
  const upserts = schema.map((c) => targetFor(c, counts.inserts + counts.updates));
  const deletes = schema.map((c) => targetFor(c, counts.deletes));
  const pages = reader.pages({ upserts, deletes });
  while (!(await pages.next()).done);
  const stored = (targets: ColumnTarget[]) => targets.map(storedColumn);
  return {
    header: reader.header,
    upserts: new Dataset(columns(), stored(upserts), counts.inserts + counts.updates),
    deletes: new Dataset(columns(), stored(deletes), counts.deletes),
    encrypted: reader.encrypted,
    signed: reader.signed,
    signers: reader.signers,
  };
}

export interface ChangeLogSummary {
  /** Absent when the log is encrypted: nothing of it is readable without the key. */
  header?: ChangeLogHeader;
  encrypted: boolean;
  signed: boolean;
}

/** A log's header without decrypting or reading its rows (listing a folder). */
export function peekChangeLog(path: string): ChangeLogSummary {
  const fd = openSync(path, 'r');
  try {
    return guarded(path, () => {
      const layers = unwrap(new FileSource(fd, 1 << 16), { decrypt: false });
      if (!layers) return { encrypted: true, signed: false };
      return { header: readHeader(layers.content), encrypted: false, signed: layers.signed.length > 0 };
    });
  } finally {
    closeSync(fd);
  }
}
