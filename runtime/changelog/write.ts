import { basename } from 'node:path';
import type { Dataset } from '../dataset/dataset';
import type { Column } from '../dataset/types';
import { ScriptError, toScriptError } from '../errors';
import type { StoredCertificate } from '../workspace/certificates';
import { AtomicFile } from '../workspace/files';
import { BufferSink, type ByteSink } from '../util/bytes';
import { isoTime } from '../util/iso-time';
import { acquireEncoder, CellTypeError, releaseEncoder } from './frame-encoder';
import { compress, COMPRESSION, STORED } from './compress';
import { FORMAT, headerText, VERSION, type ChangeLogHeader, type CertificateRef } from './header';
import {
  DEFAULT_FRAME_ROWS,
  KIND,
  MAGIC,
  oneFrameLog,
  writeFrameHeader,
  writeHeaderBlock,
  writeTrailer,
} from './layout';
import { protect } from './secure';
import { turn } from '../util/turn';

/**
 * A log's id-numbered name was taken (by another process numbering from the same clock) while it was
 * written: the writer takes the next execution id (NAME_ATTEMPTS), as no log is ever replaced.
 */
export class ChangeLogExists extends ScriptError {
  constructor(fileName: string) {
    super(`change log ${fileName} already exists; an execution id names one run`, 'runtime');
  }
}

/** What CAPTURE knows about the log it writes. */
export interface ChangeLogMeta {
  executionId: string;
  pipeline: string;
  name: string;
  keys: string[];
  marker?: string;
  /** How the upsert stream's rows split into inserts and updates; they add up to its row count. */
  inserts: number;
  updates: number;
}

export interface WriteOptions {
  encryptFor?: StoredCertificate;
  signWith?: StoredCertificate;
  /** False for `<name>_<execution id>.eds`: an existing file is never replaced (naming.ts). */
  overwrite?: boolean;
  frameRows?: number;
  signal?: AbortSignal;
  /** The header's createdAt; now by default. */
  now?: Date;
  /**
   * Publishes the whole log in place of the atomic file (a listener writing a log per call, through
   * its group commit): the log is encoded in memory and handed over in the same turn, so the caller
   * can hand over what goes with it (its run record) in the same batch. Resolves once durable.
   */
  publish?: (bytes: Uint8Array) => Promise<void>;
  /** False: frames stored as they are (a webhook call's few hundred bytes: Brotli's set-up costs more than it saves). */
  compress?: boolean;
}

export interface WrittenChangeLog {
  path: string;
  header: ChangeLogHeader;
  bytes: number;
  frames: number;
}

const ref = (c: StoredCertificate | undefined): CertificateRef | undefined =>
  c && { thumbprint: c.thumbprint, subject: c.subject };

function sameColumns(a: readonly Column[], b: readonly Column[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (c, i) =>
        c.name === b[i].name &&
        c.type.base === b[i].type.base &&
        c.type.size === b[i].type.size &&
        c.type.precision === b[i].type.precision &&
        c.type.scale === b[i].type.scale,
    )
  );
}

function headerOf(
  upserts: Dataset,
  deletes: Dataset,
  meta: ChangeLogMeta,
  options: WriteOptions,
  frameRows: number,
): ChangeLogHeader {
  if (!/^\d+$/.test(meta.executionId))
    throw new ScriptError(`an execution id is digits (Unix milliseconds), not '${meta.executionId}'`, 'runtime');
  if (meta.inserts + meta.updates !== upserts.rowCount) {
    throw new ScriptError(
      `${meta.inserts} inserts and ${meta.updates} updates do not add up to the ${upserts.rowCount} upsert rows`,
      'runtime',
    );
  }
  // A delete stream with no columns is "no deletes"; any other must have the upserts' schema.
  if (!(deletes.columns.length === 0 && deletes.rowCount === 0) && !sameColumns(upserts.columns, deletes.columns)) {
    throw new ScriptError('the delete stream must have the columns and types of the upsert stream', 'runtime');
  }
  for (const key of meta.keys)
    if (!upserts.has(key)) throw new ScriptError(`key column '${key}' is not a column of the change log`, 'runtime');
  if (meta.marker !== undefined && !upserts.has(meta.marker))
    throw new ScriptError(`marker column '${meta.marker}' is not a column of the change log`, 'runtime');
  // Optional fields are added after, not spread in: spreading made this a tenth of a small log's encoding.
  const header: ChangeLogHeader = {
    format: FORMAT,
    version: VERSION,
    executionId: meta.executionId,
    pipeline: meta.pipeline,
    name: meta.name,
    createdAt: isoTime(options.now?.getTime() ?? Date.now()),
    keys: meta.keys,
    schema: schemaOf(upserts.columns),
    counts: { inserts: meta.inserts, updates: meta.updates, deletes: deletes.rowCount },
    frameRows,
    compression: options.compress === false ? STORED : COMPRESSION,
  };
  if (meta.marker !== undefined) header.marker = meta.marker;
  if (options.encryptFor) header.encryptedFor = ref(options.encryptFor);
  if (options.signWith) header.signedBy = ref(options.signWith);
  return header;
}

/**
 * The header's own copy of the columns, which later changes to the dataset cannot reach: the copy
 * made last time when the columns are alike, as a listener writes logs of one schema call after call
 * (headerText then reuses the schema's text too). Headers never change their schema.
 */
function schemaOf(columns: readonly Column[]): Column[] {
  if (sameColumns(columns, lastSchema) && columns.every((c, i) => c.description === lastSchema[i].description))
    return lastSchema;
  // Frozen: headers share it, so none may change it under another.
  lastSchema = Object.freeze(columns.map((c) => Object.freeze(copyColumn(c)))) as Column[];
  return lastSchema;
}
let lastSchema: Column[] = [];

function copyColumn(c: Column): Column {
  const copy: Column = { name: c.name, type: Object.freeze({ ...c.type }) };
  if (c.description !== undefined) copy.description = c.description;
  return copy;
}

/**
 * Writes a change log (docs/changelog.md) to `path`, atomically: under a temp name, flushed,
 * then renamed, so the file is either absent or whole, never visible half-written, and durable
 * once this returns. Rows go out a frame at a time (encoded, compressed, written), so memory
 * beyond the datasets themselves stays at about one frame (with a group commit, the whole log);
 * the event loop gets a turn between frames, and `signal` stops the write there, leaving nothing
 * behind.
 */
export async function writeChangeLog(
  path: string,
  upserts: Dataset,
  deletes: Dataset,
  meta: ChangeLogMeta,
  options: WriteOptions = {},
): Promise<WrittenChangeLog> {
  const frameRows = options.frameRows ?? DEFAULT_FRAME_ROWS;
  const header = headerOf(upserts, deletes, meta, options, frameRows);
  if (options.publish && inOneStoredFrame(upserts, deletes, header, options)) {
    try {
      const bytes = oneFrameLogOf(upserts, header);
      await options.publish(bytes);
      return { path, header, bytes: bytes.length, frames: upserts.rowCount > 0 ? 1 : 0 };
    } catch (e) {
      throw failure(e, path);
    }
  }
  const fileOptions = { overwrite: options.overwrite ?? true };
  const sink = options.publish ? new BufferSink() : new AtomicFile(path, fileOptions);
  let frames = 0;
  const encoder = acquireEncoder(frameRows);
  try {
    const out: ByteSink = protect(sink, options);
    out.write(MAGIC);
    writeHeaderBlock(out, headerText(header));
    // The two streams in turn, without a list of pairs: a webhook call writes a log, and its empty delete stream nothing.
    for (let stream = 0; stream < 2; stream++) {
      const ds = stream === 0 ? upserts : deletes;
      if (ds.rowCount === 0) continue;
      const kind = stream === 0 ? KIND.upserts : KIND.deletes;
      const data = ds.columns.map((_, c) => ds.vector(c));
      for (let start = 0; start < ds.rowCount; start += frameRows) {
        // Between frames, not after the last: a log of one frame (a webhook call's) needs no extra turn.
        if (frames > 0) {
          await turn();
          options.signal?.throwIfAborted();
        }
        const end = Math.min(start + frameRows, ds.rowCount);
        const raw = encoder.encode(header.schema, data, start, end);
        const stored = compress(header.compression, raw);
        writeFrameHeader(out, kind, end - start, raw.length, stored);
        out.write(stored);
        frames++;
      }
    }
    writeTrailer(out, { upserts: upserts.rowCount, deletes: deletes.rowCount, frames });
    out.end();
    releaseEncoder(encoder);
    if (sink instanceof AtomicFile) {
      sink.commit();
      return { path, header, bytes: sink.size, frames };
    }
    const bytes = sink.bytes();
    await options.publish!(bytes);
    return { path, header, bytes: bytes.length, frames };
  } catch (e) {
    if (sink instanceof AtomicFile) sink.abort();
    throw failure(e, path);
  }
}

/** What a failed write throws: the log's name in a bad cell's message, ChangeLogExists for a name taken. */
function failure(e: unknown, path: string): Error {
  if (e instanceof CellTypeError)
    return new ScriptError(`cannot write change log ${basename(path)}: ${e.message}`, 'runtime');
  if ((e as NodeJS.ErrnoException).code === 'EEXIST') return new ChangeLogExists(basename(path));
  return toScriptError(e);
}

/**
 * A log that a publisher takes whole and that is one frame of upserts, stored, neither encrypted nor
 * signed: a webhook call's. Its bytes are laid out in one pass (oneFrameLogOf), the same bytes as
 * through a sink piece by piece.
 */
function inOneStoredFrame(upserts: Dataset, deletes: Dataset, header: ChangeLogHeader, options: WriteOptions): boolean {
  return (
    deletes.rowCount === 0 &&
    upserts.rowCount <= header.frameRows &&
    header.compression === STORED &&
    !options.encryptFor &&
    !options.signWith
  );
}

function oneFrameLogOf(upserts: Dataset, header: ChangeLogHeader): Buffer {
  const rows = upserts.rowCount;
  if (rows === 0) return oneFrameLog(headerText(header), 0, undefined);
  const encoder = acquireEncoder(header.frameRows);
  const data = upserts.columns.map((_, c) => upserts.vector(c));
  // The frame is the encoder's buffer until its next frame: the encoder goes back once the frame is copied.
  const bytes = oneFrameLog(headerText(header), rows, encoder.encode(header.schema, data, 0, rows));
  releaseEncoder(encoder);
  return bytes;
}
