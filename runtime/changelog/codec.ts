import Decimal from 'decimal.js';
import { carriedScale, decimalFromParts, type DecimalParts } from '../dataset/decimal-scale';
import type { BaseType, Column, Value } from '../dataset/types';

/**
 * The cells of one frame, column after column (docs/changelog.md, "Frame body"): a column's values
 * lie together, so they compress well and decode in one tight loop per column, straight into the
 * dataset's column arrays. Every value comes back as it went in: decimals with their scale, longs
 * as 64-bit integers, dates to the millisecond, bytes raw, strings with any UTF-16 content (lone
 * surrogates included), null apart from empty.
 */

/** How a column's values are stored in a frame; the writer picks one per column per frame. */
const ENCODING = {
  I32: 1,
  F32: 2,
  F64: 3,
  I64: 4,
  BOOL: 5,
  /** Strings as UTF-8, lengths in UTF-16 units. */
  UTF8: 6,
  /** Strings that are not well-formed UTF-16 (lone surrogates): UTF-16LE keeps them exactly. */
  UTF16: 7,
  BYTES: 8,
  /** Milliseconds since 1970 as a float64 (NaN for an invalid date). */
  DATE: 9,
  /** decimal.js's own parts (sign, exponent, base-1e7 words) and the scale a value carries. */
  DECIMAL: 10,
} as const;

/** The JS representation each column type's cells have (runtime/dataset/types.ts). */
type Representation = 'number' | 'bigint' | 'string' | 'boolean' | 'date' | 'decimal' | 'bytes';

const REPRESENTATION: Record<BaseType, Representation> = {
  string: 'string',
  char: 'string',
  guid: 'string',
  bool: 'boolean',
  tinyint: 'number',
  short: 'number',
  int: 'number',
  long: 'bigint',
  decimal: 'decimal',
  double: 'number',
  float: 'number',
  datetime: 'date',
  bytes: 'bytes',
};

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const INTEGER_TYPES: ReadonlySet<BaseType> = new Set(['tinyint', 'short', 'int']);

/** A cell whose JS value is not its column type's representation: a bug upstream, never written. */
export class CellTypeError extends Error {}

function describe(v: Value): string {
  if (v instanceof Date) return 'a Date';
  if (v instanceof Uint8Array) return 'bytes';
  if (Decimal.isDecimal(v)) return 'a Decimal';
  return `a ${typeof v} (${String(v).slice(0, 40)})`;
}

/** A growable byte buffer, reused frame after frame. */
class Output {
  buf = Buffer.allocUnsafe(1 << 16);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  u32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(v, this.pos);
    this.pos += 4;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
}

/** Typed arrays over one buffer, as wide as a frame: values are packed here, then copied out. */
class Scratch {
  readonly raw: ArrayBuffer;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly i64: BigInt64Array;

  constructor(rows: number) {
    this.raw = new ArrayBuffer(Math.max(rows, 1) * 8);
    this.i32 = new Int32Array(this.raw);
    this.u32 = new Uint32Array(this.raw);
    this.f32 = new Float32Array(this.raw);
    this.f64 = new Float64Array(this.raw);
    this.i64 = new BigInt64Array(this.raw);
  }

  bytes(n: number): Uint8Array {
    return new Uint8Array(this.raw, 0, n);
  }
}

/** Encodes frames of up to `maxRows` rows of these columns. */
export class FrameEncoder {
  private readonly out = new Output();
  private readonly scratch: Scratch;
  private readonly lengths: Uint32Array;
  private readonly parts: string[];
  private words = new Uint32Array(1 << 16);

  constructor(
    private readonly columns: readonly Column[],
    maxRows: number,
  ) {
    this.scratch = new Scratch(maxRows);
    this.lengths = new Uint32Array(Math.max(maxRows, 1));
    this.parts = new Array<string>(maxRows);
  }

  /** Rows `start` to `end` of `data` (column arrays); the result is valid until the next call. */
  encode(data: readonly (readonly Value[])[], start: number, end: number): Buffer {
    this.out.pos = 0;
    for (let c = 0; c < this.columns.length; c++) this.column(data[c], start, end, this.columns[c]);
    return this.out.buf.subarray(0, this.out.pos);
  }

  private column(values: readonly Value[], start: number, end: number, column: Column): void {
    const rows = end - start;
    const expected = REPRESENTATION[column.type.base];
    // One pass: check representations, find nulls, and see whether numbers fit a narrower encoding.
    let nulls = 0;
    let allInt32 = true;
    let allFloat32 = true;
    for (let r = start; r < end; r++) {
      const v = values[r];
      if (v === null) {
        nulls++;
        continue;
      }
      if (!represents(v, expected)) {
        throw new CellTypeError(`column '${column.name}' (${column.type.base}) row ${r + 1} holds ${describe(v)}`);
      }
      if (expected === 'number') {
        const n = v as number;
        if (allInt32 && ((n | 0) !== n || (n === 0 && 1 / n < 0))) allInt32 = false;
        if (allFloat32 && Math.fround(n) !== n && n === n) allFloat32 = false;
      } else if (expected === 'bigint' && ((v as bigint) < LONG_MIN || (v as bigint) > LONG_MAX)) {
        throw new CellTypeError(`column '${column.name}' (long) row ${r + 1} holds ${String(v)}, beyond 64 bits`);
      }
    }
    const text = expected === 'string' ? this.joinText(values, start, end) : undefined;
    const encoding = this.encodingOf(expected, column.type.base, allInt32, allFloat32, text);
    const out = this.out;
    out.u8(encoding);
    out.u8(nulls === 0 ? 0 : 1);
    if (nulls > 0) out.bytes(bitmap(values, start, end, true));
    const s = this.scratch;
    switch (encoding) {
      case ENCODING.I32:
        for (let r = 0; r < rows; r++) s.i32[r] = (values[start + r] as number | null) ?? 0;
        return out.bytes(s.bytes(rows * 4));
      case ENCODING.F32:
        for (let r = 0; r < rows; r++) s.f32[r] = (values[start + r] as number | null) ?? 0;
        return out.bytes(s.bytes(rows * 4));
      case ENCODING.F64:
        for (let r = 0; r < rows; r++) s.f64[r] = (values[start + r] as number | null) ?? 0;
        return out.bytes(s.bytes(rows * 8));
      case ENCODING.DATE:
        for (let r = 0; r < rows; r++) s.f64[r] = (values[start + r] as Date | null)?.getTime() ?? 0;
        return out.bytes(s.bytes(rows * 8));
      case ENCODING.I64:
        for (let r = 0; r < rows; r++) s.i64[r] = (values[start + r] as bigint | null) ?? 0n;
        return out.bytes(s.bytes(rows * 8));
      case ENCODING.BOOL:
        return out.bytes(bitmap(values, start, end, false));
      case ENCODING.BYTES:
        return this.bytesColumn(values, start, end);
      case ENCODING.DECIMAL:
        return this.decimalColumn(values, start, end, column.name);
      default:
        return this.textPayload(text!, rows, encoding === ENCODING.UTF16);
    }
  }

  private encodingOf(expected: Representation, base: BaseType, allInt32: boolean, allFloat32: boolean, text: string | undefined): number {
    switch (expected) {
      case 'number':
        if (INTEGER_TYPES.has(base) && allInt32) return ENCODING.I32;
        return base === 'float' && allFloat32 ? ENCODING.F32 : ENCODING.F64;
      case 'bigint':
        return ENCODING.I64;
      case 'boolean':
        return ENCODING.BOOL;
      case 'date':
        return ENCODING.DATE;
      case 'bytes':
        return ENCODING.BYTES;
      case 'decimal':
        return ENCODING.DECIMAL;
      case 'string':
        return isWellFormed(text!) ? ENCODING.UTF8 : ENCODING.UTF16;
    }
  }

  /**
   * Strings of a frame joined into one string, their UTF-16 lengths kept aside:
   * the text is then encoded in one call, and decoded in one call and cut by the lengths. A UTF-8
   * round trip of the joined text keeps every piece exactly, even a lone surrogate that the join
   * pairs with its neighbour, since the lengths cut it back where it was joined.
   */
  private joinText(values: readonly Value[], start: number, end: number): string {
    const rows = end - start;
    const parts = this.parts;
    const lengths = this.lengths;
    for (let r = 0; r < rows; r++) {
      const v = values[start + r];
      const text = v === null ? '' : (v as string);
      parts[r] = text;
      lengths[r] = text.length;
    }
    parts.length = rows;
    return parts.join('');
  }

  /** The lengths `joinText` kept, the byte count, then the bytes. */
  private textPayload(joined: string, rows: number, utf16: boolean): void {
    const out = this.out;
    out.bytes(new Uint8Array(this.lengths.buffer, 0, rows * 4));
    out.ensure(4 + joined.length * 3);
    const at = out.pos;
    const written = out.buf.write(joined, at + 4, utf16 ? 'utf16le' : 'utf8');
    out.buf.writeUInt32LE(written, at);
    out.pos = at + 4 + written;
  }

  /**
   * Decimals as decimal.js holds them, so neither side prints or parses digits: per row a meta word
   * (bit 0 negative, bit 1 not finite, bit 2 NaN, bits 8-15 the carried scale + 1, bits 16-31 the
   * word count) and the exponent, then all rows' base-1e7 words.
   */
  private decimalColumn(values: readonly Value[], start: number, end: number, name: string): void {
    const rows = end - start;
    const meta = new Uint32Array(this.scratch.raw, 0, rows);
    const exponents = new Int32Array(this.scratch.raw, rows * 4, rows);
    let total = 0;
    for (let r = 0; r < rows; r++) {
      const v = values[start + r];
      if (v === null) {
        meta[r] = 0;
        exponents[r] = 0;
        continue;
      }
      const parts = v as unknown as DecimalParts;
      const words = parts.d;
      const scale = carriedScale(v as Decimal) + 1;
      const count = words === null ? 0 : words.length;
      if (scale > 0xff || count > 0xffff) throw new CellTypeError(`column '${name}' row ${start + r + 1} holds a decimal too long to store (${count * 7} digits, scale ${scale - 1})`);
      meta[r] = (parts.s < 0 ? 1 : 0) | (words === null ? 2 : 0) | (parts.s !== parts.s ? 4 : 0) | (scale << 8) | (count << 16);
      exponents[r] = words === null ? 0 : parts.e;
      if (words === null) continue;
      this.growWords(total + count);
      for (let k = 0; k < count; k++) this.words[total + k] = words[k];
      total += count;
    }
    const out = this.out;
    out.bytes(this.scratch.bytes(rows * 8));
    out.u32(total);
    out.bytes(new Uint8Array(this.words.buffer, 0, total * 4));
  }

  private growWords(n: number): void {
    if (n <= this.words.length) return;
    const bigger = new Uint32Array(Math.max(n, this.words.length * 2));
    bigger.set(this.words);
    this.words = bigger;
  }

  private bytesColumn(values: readonly Value[], start: number, end: number): void {
    const rows = end - start;
    const lengths = this.lengths;
    let total = 0;
    for (let r = 0; r < rows; r++) {
      const v = values[start + r] as Uint8Array | null;
      lengths[r] = v === null ? 0 : v.length;
      total += lengths[r];
    }
    const out = this.out;
    out.bytes(new Uint8Array(lengths.buffer, 0, rows * 4));
    out.u32(total);
    out.ensure(total);
    for (let r = 0; r < rows; r++) {
      const v = values[start + r] as Uint8Array | null;
      if (v !== null) out.bytes(v);
    }
  }
}

/** ES2024's String.prototype.isWellFormed (Node 20 has it; the ES2022 lib typings do not). */
function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

function represents(v: Value, expected: Representation): boolean {
  switch (expected) {
    case 'number':
    case 'bigint':
    case 'string':
    case 'boolean':
      return typeof v === expected;
    case 'date':
      return v instanceof Date;
    case 'bytes':
      return v instanceof Uint8Array;
    case 'decimal':
      return Decimal.isDecimal(v);
  }
}

/** One bit per row, least significant first: set for null (`nulls`) or for true. */
function bitmap(values: readonly Value[], start: number, end: number, nulls: boolean): Uint8Array {
  const bits = new Uint8Array((end - start + 7) >> 3);
  const marked = nulls ? null : true;
  for (let r = start; r < end; r++) if (values[r] === marked) bits[(r - start) >> 3] |= 1 << ((r - start) & 7);
  return bits;
}

/** A frame body that does not decode: its bytes contradict its own lengths or encodings. */
export class FrameError extends Error {}

/** Reads a frame body with bounds checked: a damaged length fails here, never reads garbage. */
class Input {
  pos = 0;

  constructor(readonly buf: Buffer) {}

  take(n: number): Buffer {
    if (n < 0 || this.pos + n > this.buf.length) throw new FrameError(`a column runs past the end of its frame (${this.buf.length} bytes)`);
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

  constructor(
    private readonly columns: readonly Column[],
    maxRows: number,
  ) {
    this.scratch = new Scratch(maxRows);
    this.lengths = new Uint32Array(Math.max(maxRows, 1));
  }

  /** Decodes `rows` rows from `raw` into `into[c][at…]`. */
  decode(raw: Buffer, rows: number, into: Value[][], at: number): void {
    const input = new Input(raw);
    for (let c = 0; c < this.columns.length; c++) this.column(input, rows, into[c], at, this.columns[c]);
    if (input.pos !== raw.length) throw new FrameError(`${raw.length - input.pos} bytes left over after the last column`);
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
    if (pos !== text.length) throw new FrameError(`text lengths add up to ${pos}, the text has ${text.length} characters`);
  }

  private decimalColumn(input: Input, rows: number, values: Value[], at: number): void {
    const fixed = new Uint8Array(rows * 8);
    fixed.set(input.take(rows * 8));
    const meta = new Uint32Array(fixed.buffer, 0, rows);
    const exponents = new Int32Array(fixed.buffer, rows * 4, rows);
    const total = input.u32();
    const words = new Uint32Array(total);
    new Uint8Array(words.buffer).set(input.take(total * 4));
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
    if (pos !== bytes.length) throw new FrameError(`byte lengths add up to ${pos}, the column has ${bytes.length} bytes`);
  }
}
