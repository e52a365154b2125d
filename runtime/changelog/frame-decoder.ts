import Decimal from 'decimal.js';
import { decimalFromParts } from '../dataset/decimal-scale';
import type { Column, Value } from '../dataset/types';
import { BigIntVector, DateVector, type Vector } from '../dataset/vector';
import { ENCODING, Scratch } from './frame-format';

/** A frame body that does not decode: its bytes contradict its own lengths or encodings. */
export class FrameError extends Error {}

/** Reads a frame body with bounds checked: a damaged length fails here, never reads garbage. */
class Input {
  pos = 0;

  constructor(readonly buf: Buffer) {}

  take(n: number): Buffer {
    if (n < 0 || this.pos + n > this.buf.length)
      throw new FrameError(`a column runs past the end of its frame (${this.buf.length} bytes)`);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  u8(): number {
    return this.take(1)[0];
  }

  u32(): number {
    return this.take(4).readUInt32LE(0);
  }
}

/**
 * A whole datetime or long column of a stream decoded into typed storage (readChangeLog): frames
 * copy their epoch milliseconds or int64s into it, with no Date or bigint per cell.
 */
export class TypedColumn {
  readonly data: Float64Array | BigInt64Array;
  private nulls: Uint8Array | undefined;

  constructor(
    readonly encoding: typeof ENCODING.DATE | typeof ENCODING.I64,
    private readonly length: number,
  ) {
    this.data = encoding === ENCODING.DATE ? new Float64Array(length) : new BigInt64Array(length);
  }

  setNull(r: number): void {
    (this.nulls ??= new Uint8Array((this.length + 7) >> 3))[r >> 3] |= 1 << (r & 7);
  }

  vector(): Vector {
    return this.data instanceof Float64Array
      ? new DateVector(this.data, this.nulls)
      : new BigIntVector(this.data, this.nulls);
  }
}

/** Where a column's cells are decoded to: an array of values, or typed storage. */
export type ColumnTarget = Value[] | TypedColumn;

/** The target of a column of `length` cells when a whole stream is read: typed storage for datetimes and longs. */
export function targetFor(column: Column, length: number): ColumnTarget {
  if (column.type.base === 'datetime') return new TypedColumn(ENCODING.DATE, length);
  if (column.type.base === 'long') return new TypedColumn(ENCODING.I64, length);
  return new Array<Value>(length);
}

/** Decodes frames of up to `maxRows` rows of these columns into column arrays. */
export class FrameDecoder {
  private readonly scratch: Scratch;
  private readonly lengths: Uint32Array;
  private words = new Uint32Array(0);

  constructor(
    private readonly columns: readonly Column[],
    maxRows: number,
  ) {
    this.scratch = new Scratch(maxRows);
    this.lengths = new Uint32Array(Math.max(maxRows, 1));
  }

  /** Decodes `rows` rows from `raw` into `into[c]` from row `at`. */
  decode(raw: Buffer, rows: number, into: readonly ColumnTarget[], at: number): void {
    const input = new Input(raw);
    for (let c = 0; c < this.columns.length; c++) {
      const target = into[c];
      if (target instanceof TypedColumn) this.typedColumn(input, rows, target, at, this.columns[c]);
      else this.column(input, rows, target, at, this.columns[c]);
    }
    if (input.pos !== raw.length)
      throw new FrameError(`${raw.length - input.pos} bytes left over after the last column`);
  }

  private column(input: Input, rows: number, values: Value[], at: number, column: Column): void {
    const encoding = input.u8();
    const hasNulls = input.u8();
    if (hasNulls > 1) throw new FrameError(`column '${column.name}': a null flag of ${hasNulls}`);
    const nulls = hasNulls ? input.take((rows + 7) >> 3) : undefined;
    const s = this.scratch;
    const fill = (width: number) => new Uint8Array(s.raw, 0, rows * width).set(input.take(rows * width));
    switch (encoding) {
      case ENCODING.I32:
        fill(4);
        for (let r = 0; r < rows; r++) values[at + r] = s.i32[r];
        break;
      case ENCODING.F32:
        fill(4);
        for (let r = 0; r < rows; r++) values[at + r] = s.f32[r];
        break;
      case ENCODING.F64:
        fill(8);
        for (let r = 0; r < rows; r++) values[at + r] = s.f64[r];
        break;
      case ENCODING.DATE:
        fill(8);
        for (let r = 0; r < rows; r++) values[at + r] = new Date(s.f64[r]);
        break;
      case ENCODING.I64:
        fill(8);
        for (let r = 0; r < rows; r++) values[at + r] = s.i64[r];
        break;
      case ENCODING.BOOL: {
        const bits = input.take((rows + 7) >> 3);
        for (let r = 0; r < rows; r++) values[at + r] = (bits[r >> 3] & (1 << (r & 7))) !== 0;
        break;
      }
      case ENCODING.BYTES:
        this.bytesColumn(input, rows, values, at);
        break;
      case ENCODING.UTF8:
      case ENCODING.UTF16:
        this.textColumn(input, rows, values, at, encoding);
        break;
      case ENCODING.DECIMAL:
        this.decimalColumn(input, rows, values, at);
        break;
      default:
        throw new FrameError(`column '${column.name}': unknown encoding ${encoding}`);
    }
    // Nulls last: the loops above stay free of a per-row branch for them.
    if (nulls) for (let r = 0; r < rows; r++) if (nulls[r >> 3] & (1 << (r & 7))) values[at + r] = null;
  }

  /** The frame's cells copied into typed storage as they are stored (the encoder writes a null's slot as 0). */
  private typedColumn(input: Input, rows: number, target: TypedColumn, at: number, column: Column): void {
    const encoding = input.u8();
    const hasNulls = input.u8();
    if (hasNulls > 1) throw new FrameError(`column '${column.name}': a null flag of ${hasNulls}`);
    if (encoding !== target.encoding)
      throw new FrameError(
        `column '${column.name}' (${column.type.base}): encoding ${encoding}, not ${target.encoding}`,
      );
    const nulls = hasNulls ? input.take((rows + 7) >> 3) : undefined;
    new Uint8Array(target.data.buffer, at * 8, rows * 8).set(input.take(rows * 8));
    if (nulls) for (let r = 0; r < rows; r++) if (nulls[r >> 3] & (1 << (r & 7))) target.setNull(at + r);
  }

  private readLengths(input: Input, rows: number): Uint32Array {
    new Uint8Array(this.lengths.buffer, 0, rows * 4).set(input.take(rows * 4));
    return this.lengths;
  }

  private textColumn(input: Input, rows: number, values: Value[], at: number, encoding: number): void {
    const lengths = this.readLengths(input, rows);
    const bytes = input.take(input.u32());
    const text = bytes.toString(encoding === ENCODING.UTF16 ? 'utf16le' : 'utf8');
    let pos = 0;
    for (let r = 0; r < rows; r++) {
      const end = pos + lengths[r];
      values[at + r] = text.slice(pos, end);
      pos = end;
    }
    if (pos !== text.length)
      throw new FrameError(`text lengths add up to ${pos}, the text has ${text.length} characters`);
  }

  private decimalColumn(input: Input, rows: number, values: Value[], at: number): void {
    const s = this.scratch;
    s.bytes(rows * 8).set(input.take(rows * 8));
    const meta = new Uint32Array(s.raw, 0, rows);
    const exponents = new Int32Array(s.raw, rows * 4, rows);
    const total = input.u32();
    const stored = input.take(total * 4);
    const words = this.wordsFor(total);
    new Uint8Array(words.buffer, 0, total * 4).set(stored);
    let pos = 0;
    for (let r = 0; r < rows; r++) {
      const m = meta[r];
      const count = m >>> 16;
      if (m & 2) {
        values[at + r] = new Decimal(m & 4 ? NaN : m & 1 ? -Infinity : Infinity);
      } else if (count === 0) {
        values[at + r] = null; // a null's place (every finite decimal has a word): the bitmap says so too
      } else {
        if (pos + count > total) throw new FrameError(`decimal words run past the ${total} of the column`);
        const digits = new Array<number>(count);
        for (let k = 0; k < count; k++) digits[k] = words[pos + k];
        pos += count;
        values[at + r] = decimalFromParts(m & 1 ? -1 : 1, exponents[r], digits, ((m >>> 8) & 0xff) - 1);
      }
    }
    if (pos !== total) throw new FrameError(`decimal word counts add up to ${pos}, the column has ${total}`);
  }

  /**
   * A buffer of at least `n` words, kept from frame to frame like the scratch: buffers made per
   * frame would add up to what starts V8's full collections early (external memory pressure).
   */
  private wordsFor(n: number): Uint32Array {
    if (this.words.length < n) this.words = new Uint32Array(Math.max(n, 2 * this.words.length));
    return this.words;
  }

  private bytesColumn(input: Input, rows: number, values: Value[], at: number): void {
    const lengths = this.readLengths(input, rows);
    const bytes = input.take(input.u32());
    let pos = 0;
    for (let r = 0; r < rows; r++) {
      const end = pos + lengths[r];
      if (end > bytes.length) throw new FrameError(`byte lengths run past the ${bytes.length} bytes of the column`);
      // A copy: a value must not keep the whole frame alive.
      values[at + r] = new Uint8Array(bytes.buffer, bytes.byteOffset + pos, end - pos).slice();
      pos = end;
    }
    if (pos !== bytes.length)
      throw new FrameError(`byte lengths add up to ${pos}, the column has ${bytes.length} bytes`);
  }
}
