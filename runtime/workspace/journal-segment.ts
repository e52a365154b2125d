import { randomBytes } from 'node:crypto';
import { closeSync, fdatasync, openSync, writeSync, writevSync } from 'node:fs';
import { promisify } from 'node:util';
import { SEGMENT_HEADER, segmentHeader } from './journal';

const fdatasyncAsync = promisify(fdatasync);

/** Space added ahead of the records at a time (in zeros), and how close the records may come to its end. */
const ZEROS = Buffer.alloc(1 << 20);
const ZEROS_AHEAD = 256 << 10;

const newSalt = () => randomBytes(4).readUInt32LE(0);

/**
 * A journal segment (journal.ts) whose records are written in place over zeros the file already
 * holds, rather than appended. A flush then writes only the pages the batch touched: appended, each
 * flush also wrote the file's new size and blocks, which on ext4 without a journal made it several
 * times slower (docs/webhook.md). Space is added a megabyte of zeros at a time ahead of the records;
 * the first flush after it carries it. After its checkpoint a segment is used again under a new salt,
 * so a listener's segments grow once, and what their earlier use left fails the CRC.
 */
export class JournalSegment {
  /**
   * Every file its records speak for: what its checkpoint must make durable. A list, not a set: a
   * log's path comes once (names are never reused) and a run-record file's once a batch, which the
   * fallback flush (flushEach) folds; adding each log's fresh path to a set cost the thread ~0.4 µs.
   */
  readonly files: string[] = [];
  /** Its flushes under way: a checkpoint waits for them. */
  readonly flushing = new Set<Promise<void>>();
  salt = newSalt();
  /** Where the next record goes. */
  private position = SEGMENT_HEADER;
  /** The file's length: space already allocated from `position` up to it. */
  private allocated = 0;

  private constructor(
    readonly path: string,
    readonly fd: number,
  ) {}

  /** A new segment file under `path`; its folder entry is the caller's to flush. */
  static create(path: string): JournalSegment {
    const segment = new JournalSegment(path, openSync(path, 'wx'));
    segment.writeAt(segmentHeader(segment.salt), 0);
    segment.allocated = SEGMENT_HEADER;
    return segment;
  }

  /** Record bytes it holds: a checkpoint is due past a threshold. */
  get bytes(): number {
    return this.position - SEGMENT_HEADER;
  }

  /** Where the next record written goes. */
  get end(): number {
    return this.position;
  }

  /** Writes a batch's records after the last ones, answering where the first went; `flush` makes them durable. */
  write(records: readonly Uint8Array[]): number {
    let size = 0;
    for (const r of records) size += r.length;
    while (this.position + size + ZEROS_AHEAD > this.allocated) {
      this.writeAt(ZEROS, this.allocated);
      this.allocated += ZEROS.length;
    }
    // One system call for the batch: a write per record cost the thread a call per log.
    const written = writevSync(this.fd, records, this.position);
    if (written < size) this.writeAt(Buffer.concat(records).subarray(written), this.position + written);
    const first = this.position;
    this.position += size;
    return first;
  }

  flush(): Promise<void> {
    const flushed = fdatasyncAsync(this.fd);
    this.flushing.add(flushed);
    return flushed.finally(() => this.flushing.delete(flushed));
  }

  /**
   * Starts a new use of the segment, once its checkpoint has made what its records speak for
   * durable: a new salt, flushed before any record is written under it, so no record of the
   * earlier use can ever pass for one of the new.
   */
  async restart(): Promise<void> {
    this.salt = newSalt();
    this.position = SEGMENT_HEADER;
    this.files.length = 0;
    this.writeAt(segmentHeader(this.salt), 0);
    await this.flush();
  }

  close(): void {
    closeSync(this.fd);
  }

  private writeAt(bytes: Uint8Array, position: number): void {
    for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at, position + at);
  }
}
