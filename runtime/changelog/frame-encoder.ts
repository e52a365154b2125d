import Decimal from 'decimal.js';
import { carriedScale, type DecimalParts } from '../dataset/decimal-scale';
import type { BaseType, Column, Value } from '../dataset/types';
import {
  BigIntVector,
  bitAt,
  BoolVector,
  DateVector,
  DictionaryVector,
  NumberVector,
  ValuesVector,
  type Vector,
} from '../dataset/vector';
import { ENCODING, Scratch } from './frame-format';

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
  buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

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

/**
 * Encodes frames of up to `maxRows` rows, of any columns: its buffers do not depend on the schema,
 * so one encoder serves log after log (see `withEncoder`).
 */
export class FrameEncoder {
  private readonly out: Output;
  private readonly scratch: Scratch;
  private readonly lengths: Uint32Array;
  private readonly parts: string[];
  /** Decimal digits; it grows as frames need. */
  private words = new Uint32Array(256);

  constructor(readonly maxRows: number) {
    // Sized for frames of small rows; it grows for wider ones. A webhook call encodes a frame of a
    // few rows, where a fixed 64 KB per encoder was most of what the call allocated.
    this.out = new Output(Math.min(1 << 16, 256 * Math.max(maxRows, 1)));
    this.scratch = new Scratch(maxRows);
    this.lengths = new Uint32Array(Math.max(maxRows, 1));
    this.parts = new Array<string>(maxRows);
    this.cells = new Array<Value>(maxRows);
  }

  /** Cells of a frame read out of typed storage the encoder has no reader of its own for. */
  private readonly cells: Value[];

  /**
   * Rows `start` to `end` (at most `maxRows` of them) of `data`, the storage of `columns`; the result
   * is valid until the next call.
   */
  encode(columns: readonly Column[], data: readonly Vector[], start: number, end: number): Buffer {
    this.out.pos = 0;
    for (let c = 0; c < columns.length; c++) {
      const vector = data[c];
      const column = columns[c];
      if (vector instanceof ValuesVector) this.column(vector.array, start, end, column);
      else if (!this.typedColumn(vector, start, end, column)) {
        // Decimals, packed text: the frame's cells as values (one frame's worth, not the column's).
        const cells = this.cells;
        cells.length = end - start;
        for (let r = start; r < end; r++) cells[r - start] = vector.get(r);
        this.column(cells, 0, end - start, column);
      }
    }
    return this.out.buf.subarray(0, this.out.pos);
  }

  /**
   * Writes a column from typed storage (vector.ts) as `column` writes the same cells as values,
   * without a value per cell; false, writing nothing, for storage it has no reader for. The storage
   * holds its type's representation by construction, so no cell is checked.
   */
  private typedColumn(vector: Vector, start: number, end: number, column: Column): boolean {
    const rows = end - start;
    const base = column.type.base;
    const s = this.scratch;
    let encoding: number;
    let nulls: Uint8Array | undefined;
    if (vector instanceof NumberVector && vector.data instanceof Int32Array && INTEGER_TYPES.has(base)) {
      encoding = ENCODING.I32;
      s.i32.set(vector.data.subarray(start, end));
      nulls = vector.nulls;
    } else if (vector instanceof NumberVector && vector.data instanceof Float32Array && base === 'float') {
      encoding = ENCODING.F32;
      s.f32.set(vector.data.subarray(start, end));
      nulls = vector.nulls;
    } else if (vector instanceof NumberVector && vector.data instanceof Float64Array && base === 'double') {
      encoding = ENCODING.F64;
      s.f64.set(vector.data.subarray(start, end));
      nulls = vector.nulls;
    } else if (vector instanceof DateVector && base === 'datetime') {
      encoding = ENCODING.DATE;
      s.f64.set(vector.ms.subarray(start, end));
      nulls = vector.nulls;
    } else if (vector instanceof BigIntVector && base === 'long') {
      encoding = ENCODING.I64;
      s.i64.set(vector.data.subarray(start, end));
      nulls = vector.nulls;
    } else if (vector instanceof BoolVector && base === 'bool') {
      encoding = ENCODING.BOOL;
      nulls = vector.nulls;
    } else if (vector instanceof DictionaryVector && REPRESENTATION[base] === 'string') {
      const text = this.joinCodes(vector, start, end);
      const utf16 = !isWellFormed(text);
      const out = this.out;
      out.u8(utf16 ? ENCODING.UTF16 : ENCODING.UTF8);
      const bits = nullCodes(vector.codes, start, end);
      out.u8(bits ? 1 : 0);
      if (bits) out.bytes(bits);
      this.textPayload(text, rows, utf16);
      return true;
    } else return false;
    const out = this.out;
    out.u8(encoding);
    const bits = frameNulls(nulls, start, end);
    out.u8(bits ? 1 : 0);
    if (bits) {
      out.bytes(bits);
      // A null cell's slot holds 0, as `column` writes it, whatever the storage left there.
      for (let r = 0; r < rows; r++) if (bits[r >> 3] & (1 << (r & 7))) zero(s, encoding, r);
    }
    if (vector instanceof BoolVector) out.bytes(bitsOf(vector.bits, start, end));
    else out.bytes(s.bytes(rows * (encoding === ENCODING.I32 || encoding === ENCODING.F32 ? 4 : 8)));
    return true;
  }

  /** `joinText` for dictionary codes (code 0 is null). */
  private joinCodes({ codes, table }: DictionaryVector, start: number, end: number): string {
    const rows = end - start;
    const parts = this.parts;
    const lengths = this.lengths;
    for (let r = 0; r < rows; r++) {
      const text = table[codes[start + r]] ?? '';
      parts[r] = text;
      lengths[r] = text.length;
    }
    parts.length = rows;
    return parts.join('');
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

  private encodingOf(
    expected: Representation,
    base: BaseType,
    allInt32: boolean,
    allFloat32: boolean,
    text: string | undefined,
  ): number {
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
      if (scale > 0xff || count > 0xffff)
        throw new CellTypeError(
          `column '${name}' row ${start + r + 1} holds a decimal too long to store (${count * 7} digits, scale ${scale - 1})`,
        );
      meta[r] =
        (parts.s < 0 ? 1 : 0) | (words === null ? 2 : 0) | (parts.s !== parts.s ? 4 : 0) | (scale << 8) | (count << 16);
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
/**
 * Encoders of small frames not in use, by capacity. A listener writes a log of a few rows per call;
 * reusing an encoder spares each call the allocation of its buffers and typed arrays. Large frames
 * are few and their buffers big, so they are not kept.
 */
const idleEncoders = new Map<number, FrameEncoder[]>();
const POOLED_ROWS = 1024;
const IDLE_PER_CAPACITY = 4;

/** An encoder for frames of up to `rows` rows; give it back with `releaseEncoder` once its last frame is used. */
export function acquireEncoder(rows: number): FrameEncoder {
  if (rows > POOLED_ROWS) return new FrameEncoder(rows);
  const capacity = 2 ** Math.ceil(Math.log2(Math.max(rows, 1)));
  return idleEncoders.get(capacity)?.pop() ?? new FrameEncoder(capacity);
}

export function releaseEncoder(encoder: FrameEncoder): void {
  if (encoder.maxRows > POOLED_ROWS) return;
  const idle = idleEncoders.get(encoder.maxRows);
  if (!idle) idleEncoders.set(encoder.maxRows, [encoder]);
  else if (idle.length < IDLE_PER_CAPACITY) idle.push(encoder);
}

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

/** Bits `start` … `end` - 1 of a bitmap, from bit 0 (a frame's rows). */
function bitsOf(bits: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array((end - start + 7) >> 3);
  if ((start & 7) === 0) {
    out.set(bits.subarray(start >> 3, (end + 7) >> 3));
    // The last byte's bits past `end` belong to the next frame.
    if ((end - start) & 7) out[out.length - 1] &= (1 << ((end - start) & 7)) - 1;
    return out;
  }
  for (let r = start; r < end; r++) if (bitAt(bits, r)) out[(r - start) >> 3] |= 1 << ((r - start) & 7);
  return out;
}

/** A frame's null bitmap from a column's, undefined when no row of the frame is null. */
function frameNulls(nulls: Uint8Array | undefined, start: number, end: number): Uint8Array | undefined {
  if (!nulls) return undefined;
  const bits = bitsOf(nulls, start, end);
  return bits.some((b) => b !== 0) ? bits : undefined;
}

/** The null bitmap of a frame of dictionary codes (code 0 is null), undefined when none is null. */
function nullCodes(codes: Uint8Array | Uint16Array | Uint32Array, start: number, end: number): Uint8Array | undefined {
  let out: Uint8Array | undefined;
  for (let r = start; r < end; r++)
    if (codes[r] === 0) (out ??= new Uint8Array((end - start + 7) >> 3))[(r - start) >> 3] |= 1 << ((r - start) & 7);
  return out;
}

function zero(s: Scratch, encoding: number, r: number): void {
  if (encoding === ENCODING.I32) s.i32[r] = 0;
  else if (encoding === ENCODING.F32) s.f32[r] = 0;
  else if (encoding === ENCODING.I64) s.i64[r] = 0n;
  else if (encoding !== ENCODING.BOOL) s.f64[r] = 0;
}
