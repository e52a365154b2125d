import Decimal from 'decimal.js';
import { decimalFromParts } from '../dataset/decimal-scale';
import type { Column, Value } from '../dataset/types';
import { TextColumnBuilder } from '../dataset/text-vector';
import { DecimalColumn, TypedColumn, type ColumnTarget } from './column-targets';
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
      if (Array.isArray(target)) this.column(input, rows, target, at, this.columns[c]);
      else this.typedColumn(input, rows, target, at, this.columns[c]);
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
        this.decimalColumn(input, rows, values, undefined, at);
        break;
      default:
        throw new FrameError(`column '${column.name}': unknown encoding ${encoding}`);
    }
    // Nulls last: the loops above stay free of a per-row branch for them.
    if (nulls) for (let r = 0; r < rows; r++) if (nulls[r >> 3] & (1 << (r & 7))) values[at + r] = null;
  }

  /**
   * The frame's cells into typed storage: datetimes and longs copied as they are stored (the encoder
   * writes a null's slot as 0), decimals and text as `column` would decode them.
   */
  private typedColumn(
    input: Input,
    rows: number,
    target: Exclude<ColumnTarget, Value[]>,
    at: number,
    column: Column,
  ): void {
    const encoding = input.u8();
    const hasNulls = input.u8();
    if (hasNulls > 1) throw new FrameError(`column '${column.name}': a null flag of ${hasNulls}`);
    const expected =
      target instanceof TypedColumn
        ? encoding === target.encoding
        : target instanceof DecimalColumn
          ? encoding === ENCODING.DECIMAL
          : encoding === ENCODING.UTF8 || encoding === ENCODING.UTF16;
    if (!expected) throw new FrameError(`column '${column.name}' (${column.type.base}): encoding ${encoding}`);
    const nulls = hasNulls ? input.take((rows + 7) >> 3) : undefined;
    if (target instanceof TextColumnBuilder) {
      const text = this.frameText(input, rows, encoding);
      target.addJoined(text, this.lengths, rows, nulls);
      return;
    }
    if (target instanceof DecimalColumn) this.decimalColumn(input, rows, undefined, target, at);
    else new Uint8Array(target.data.buffer, at * 8, rows * 8).set(input.take(rows * 8));
    if (nulls) for (let r = 0; r < rows; r++) if (nulls[r >> 3] & (1 << (r & 7))) target.setNull(at + r);
  }

  private readLengths(input: Input, rows: number): Uint32Array {
    new Uint8Array(this.lengths.buffer, 0, rows * 4).set(input.take(rows * 4));
    return this.lengths;
  }

  private textColumn(input: Input, rows: number, values: Value[], at: number, encoding: number): void {
    const text = this.frameText(input, rows, encoding);
    const lengths = this.lengths;
    let pos = 0;
    for (let r = 0; r < rows; r++) {
      const end = pos + lengths[r];
      values[at + r] = text.slice(pos, end);
      pos = end;
    }
  }

  /** A frame's text column: its cells joined, their lengths left in `this.lengths` (checked to add up). */
  private frameText(input: Input, rows: number, encoding: number): string {
    const lengths = this.readLengths(input, rows);
    const bytes = input.take(input.u32());
    const text = bytes.toString(encoding === ENCODING.UTF16 ? 'utf16le' : 'utf8');
    let total = 0;
    for (let r = 0; r < rows; r++) total += lengths[r];
    if (total !== text.length)
      throw new FrameError(`text lengths add up to ${total}, the text has ${text.length} characters`);
    return text;
  }

  /**
   * Into `values`, or into `typed` while its storage holds every value (then into the array it
   * spills to).
   */
  private decimalColumn(
    input: Input,
    rows: number,
    into: Value[] | undefined,
    typed: DecimalColumn | undefined,
    at: number,
  ): void {
    const s = this.scratch;
    s.bytes(rows * 8).set(input.take(rows * 8));
    const meta = new Uint32Array(s.raw, 0, rows);
    const exponents = new Int32Array(s.raw, rows * 4, rows);
    const total = input.u32();
    const stored = input.take(total * 4);
    const words = this.wordsFor(total);
    new Uint8Array(words.buffer, 0, total * 4).set(stored);
    let values = into ?? typed!.values;
    let pos = 0;
    for (let r = 0; r < rows; r++) {
      const m = meta[r];
      const count = m >>> 16;
      if (count === 0 && !(m & 2)) {
        // A null's place (every finite decimal has a word): the bitmap says so too.
        if (values) values[at + r] = null;
        else typed!.setNull(at + r);
        continue;
      }
      if (pos + count > total) throw new FrameError(`decimal words run past the ${total} of the column`);
      const carried = ((m >>> 8) & 0xff) - 1;
      if (!values) {
        if (!(m & 2) && typed!.put(at + r, (m & 1) === 1, exponents[r], words, pos, count, carried)) {
          pos += count;
          continue;
        }
        values = typed!.spill(at + r);
      }
      if (m & 2) {
        values[at + r] = new Decimal(m & 4 ? NaN : m & 1 ? -Infinity : Infinity);
      } else {
        const digits = new Array<number>(count);
        for (let k = 0; k < count; k++) digits[k] = words[pos + k];
        pos += count;
        values[at + r] = decimalFromParts(m & 1 ? -1 : 1, exponents[r], digits, carried);
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
