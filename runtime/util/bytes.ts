import { readSync } from 'node:fs';

/**
 * Byte streams in layers, pulled and pushed synchronously: a change log is a file, possibly inside a
 * CMS envelope, possibly inside CMS signed data, and each layer reads from (or writes to) the one
 * below in bounded pieces. Synchronous because every layer is a plain transform (a cipher, a hash,
 * a length prefix); callers yield to the event loop between the frames they read.
 */

/** Thrown when a source ends before the bytes asked for: the data was cut short. */
export class EndOfData extends Error {
  constructor(wanted: number, had: number) {
    super(`the data ends after ${had} of the ${wanted} byte${wanted === 1 ? '' : 's'} expected next`);
  }
}

/** A source of bytes; subclasses give the next piece, this class buffers and cuts them. */
export abstract class ByteSource {
  private pieces: Buffer[] = [];
  /** Bytes of pieces[0] already consumed. */
  private head = 0;
  private buffered = 0;
  private ended = false;
  /** Bytes handed out so far: where in the stream the next byte is. */
  position = 0;

  /** The next piece, or null at the end (after which `next` is not called again). */
  protected abstract next(): Buffer | null;

  /** Exactly `n` bytes: a view when they lie in one piece, a copy otherwise. EndOfData when fewer are left. */
  read(n: number): Buffer {
    if (!this.fill(n)) throw new EndOfData(n, this.buffered);
    const first = this.pieces[0];
    let out: Buffer;
    if (first.length - this.head >= n) {
      out = first.subarray(this.head, this.head + n);
      this.consume(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let at = 0;
      while (at < n) {
        const piece = this.pieces[0];
        const take = Math.min(piece.length - this.head, n - at);
        piece.copy(out, at, this.head, this.head + take);
        at += take;
        this.consume(take);
      }
    }
    return out;
  }

  /** At most `max` bytes, as they come (at least one), or null at the end: for copying a stream through. */
  readSome(max: number): Buffer | null {
    if (!this.fill(1)) return null;
    const first = this.pieces[0];
    const n = Math.min(max, first.length - this.head);
    const out = first.subarray(this.head, this.head + n);
    this.consume(n);
    return out;
  }

  /** The next byte without consuming it, or -1 at the end. */
  peek(): number {
    return this.fill(1) ? this.pieces[0][this.head] : -1;
  }

  atEnd(): boolean {
    return !this.fill(1);
  }

  /** Everything left (whole-buffer callers only: a change log is never read this way). */
  readAll(): Buffer {
    while (this.fill(this.buffered + 1));
    return this.read(this.buffered);
  }

  private fill(n: number): boolean {
    while (this.buffered < n && !this.ended) {
      const piece = this.next();
      if (piece === null) this.ended = true;
      else if (piece.length > 0) {
        this.pieces.push(piece);
        this.buffered += piece.length;
      }
    }
    return this.buffered >= n;
  }

  private consume(n: number): void {
    this.head += n;
    this.buffered -= n;
    this.position += n;
    if (this.head === this.pieces[0].length) {
      this.pieces.shift();
      this.head = 0;
    }
  }
}

/** Bytes already in memory. */
export class BufferSource extends ByteSource {
  constructor(private data: Buffer | null) {
    super();
  }

  protected next(): Buffer | null {
    const data = this.data;
    this.data = null;
    return data;
  }
}

/** An open file read from its start in pieces of `pieceSize` bytes; the caller owns the descriptor. */
export class FileSource extends ByteSource {
  constructor(
    private readonly fd: number,
    private readonly pieceSize = 1 << 20,
  ) {
    super();
  }

  protected next(): Buffer | null {
    // A new buffer per piece: views handed out by read() must stay valid after the next read.
    const piece = Buffer.allocUnsafe(this.pieceSize);
    const n = readSync(this.fd, piece, 0, piece.length, null);
    return n === 0 ? null : piece.subarray(0, n);
  }
}

/** Where bytes go; `end` once, after the last write. */
export interface ByteSink {
  write(bytes: Uint8Array): void;
  end(): void;
}

/** Collects what is written, for whole-buffer callers: copied once, into one buffer that grows. */
export class BufferSink implements ByteSink {
  private buf: Buffer;
  private size = 0;

  constructor(expected = 1024) {
    this.buf = Buffer.allocUnsafe(expected);
  }

  write(bytes: Uint8Array): void {
    // Copied at once: writers may reuse their buffers.
    const at = this.room(bytes.length);
    this.buf.set(bytes, at);
    this.size += bytes.length;
  }

  /**
   * Room for up to `n` more bytes in `buffer`, at the offset returned, for a writer that puts its
   * bytes in place rather than in a buffer of its own; `advance` then by what it put there.
   */
  room(n: number): number {
    if (this.size + n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.size + n));
      this.buf.copy(bigger, 0, 0, this.size);
      this.buf = bigger;
    }
    return this.size;
  }

  get buffer(): Buffer {
    return this.buf;
  }

  advance(n: number): void {
    this.size += n;
  }

  end(): void {}

  /** What was written; a view, valid as long as nothing more is written. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.size);
  }
}
