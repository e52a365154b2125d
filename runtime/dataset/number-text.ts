import { parseDateTimeMs } from './parse-datetime';
import type { ColumnType, Value } from './types';
import {
  bitAt,
  pickBits,
  DateVector,
  DecimalVector,
  isoText,
  MAX_STORED_SCALE,
  NumberVector,
  unscaledText,
  type Vector,
} from './vector';

/**
 * Text cells that are each the one text of a number (docs/sources.md, "Text of numbers"): a loaded
 * column of ids, amounts or timestamps held as the numbers, 4 or 8 bytes a cell against the text's
 * characters and offset, and read back as that exact text. APPLY SCHEMA to the type the numbers
 * already are takes the numbers as they are (`typedFromText`), so typing such a column copies nothing.
 * - int: `-?(0|[1-9][0-9]*)` within 32 bits, in an Int32Array;
 * - decimal: `-?(0|[1-9][0-9]*)\.[0-9]+`, every cell with the same number of decimals, at most 15
 *   significant digits and not a negative zero, as unscaled integers;
 * - datetime: `yyyy-MM-ddTHH:mm:ss` or `yyyy-MM-ddTHH:mm:ss.fff` (not .000), a valid date from year 1,
 *   as epoch milliseconds: what the datetime writers write.
 * An empty cell (a blank CSV field) is marked in a bitmap of its own: it reads back as '' and types
 * as null, as the converter turns blank text into null. A cell with any other text turns the column
 * to text storage.
 */
export class NumberTextVector implements Vector {
  constructor(
    readonly typed: NumberVector | DecimalVector | DateVector,
    /** Decimal cells: the most digits any has before the point (leading zeros not counted). */
    readonly integerDigits: number,
    /** The empty cells (0 in `typed`). */
    readonly blanks: Uint8Array | undefined,
  ) {}

  get length(): number {
    return this.typed.length;
  }

  get(r: number): Value {
    const typed = this.typed;
    if (typed.nulls && bitAt(typed.nulls, r)) return null;
    if (this.blanks && bitAt(this.blanks, r)) return '';
    if (typed instanceof NumberVector) return String(typed.data[r]);
    if (typed instanceof DateVector) return isoText(typed.ms[r]);
    const scale = typed.scale as number;
    return unscaledText(typed.unscaled[r], scale, scale);
  }

  values(): Value[] {
    const out = new Array<Value>(this.length);
    for (let r = 0; r < out.length; r++) out[r] = this.get(r);
    return out;
  }

  pick(rows: ArrayLike<number>): Vector {
    return new NumberTextVector(
      this.typed.pick(rows) as NumberTextVector['typed'],
      this.integerDigits,
      pickBits(this.blanks, rows),
    );
  }
}

/**
 * The column of `type` that converting the text column `vector` gives, when the column holds the
 * numbers of that type already: int text to int, decimal text to a decimal whose scale is at least the
 * text's and whose precision holds its digits, datetime text to datetime. Undefined otherwise (the
 * cells are then converted one by one).
 */
export function typedFromText(vector: Vector, type: ColumnType): Vector | undefined {
  if (!(vector instanceof NumberTextVector)) return undefined;
  const { typed, blanks } = vector;
  // Blank cells convert to null: the same numbers, the blanks added to the nulls.
  const nulls = blanks ? union(typed.nulls, blanks) : typed.nulls;
  if (typed instanceof NumberVector) {
    if (type.base !== 'int') return undefined;
    return blanks ? new NumberVector(typed.data, nulls) : typed;
  }
  if (typed instanceof DateVector) {
    if (type.base !== 'datetime') return undefined;
    return blanks ? new DateVector(typed.ms, nulls) : typed;
  }
  if (type.base !== 'decimal') return undefined;
  const from = typed.scale as number;
  const scale = type.scale ?? from;
  if (scale < from) return undefined;
  if (type.precision !== undefined && vector.integerDigits > type.precision - scale) return undefined;
  if (scale === from) return blanks ? new DecimalVector(typed.unscaled, from, nulls) : typed;
  // More decimals than written: the same values with zeros appended, as `parseDecimal` reads them.
  const factor = 10 ** (scale - from);
  const unscaled = new Float64Array(typed.unscaled.length);
  for (let r = 0; r < unscaled.length; r++) {
    const v = typed.unscaled[r] * factor;
    if (!Number.isSafeInteger(v)) return undefined;
    unscaled[r] = v;
  }
  return new DecimalVector(unscaled, scale, nulls);
}

/** The bits set in either bitmap. */
function union(a: Uint8Array | undefined, b: Uint8Array): Uint8Array {
  const out = b.slice();
  if (a) for (let i = 0; i < out.length; i++) out[i] |= a[i];
  return out;
}

type Kind = 'int' | 'decimal' | 'datetime';

/**
 * A loader's text column held as numbers while every cell is the one text of a number of one kind
 * (see NumberTextVector). `add` returns false at the first cell that is not; the cells added so far
 * are then read back as text (`finish(count).get`, or `untypedAt` before any number) into text storage.
 */
export class NumberTextBuilder {
  private kind: Kind | undefined;
  private data: Int32Array | Float64Array = new Float64Array(0);
  private nulls: Uint8Array | undefined;
  private blanks: Uint8Array | undefined;
  /** Decimal: the column's number of decimals. */
  private scale = -1;
  private integerDigits = 0;
  private readonly parts = { unscaled: 0, scale: 0, integerDigits: 0 };

  /** `expected`: the expected number of rows, which sizes the array. */
  constructor(private readonly expected: number) {}

  add(r: number, text: string | null): boolean {
    if (r >= this.data.length && this.kind) this.grow(r);
    if (text === null || text === '') {
      if (text === null) this.nulls = setBit(this.nulls, r, this.expected);
      else this.blanks = setBit(this.blanks, r, this.expected);
      return true;
    }
    switch (this.kind) {
      case 'int': {
        const v = canonicalInt(text);
        if (v === undefined) return false;
        this.data[r] = v;
        return true;
      }
      case 'decimal':
        if (!canonicalDecimal(text, this.parts) || this.parts.scale !== this.scale) return false;
        this.data[r] = this.parts.unscaled;
        if (this.parts.integerDigits > this.integerDigits) this.integerDigits = this.parts.integerDigits;
        return true;
      case 'datetime': {
        const ms = canonicalDateTime(text);
        if (ms === undefined) return false;
        this.data[r] = ms;
        return true;
      }
      default:
        return this.first(r, text);
    }
  }

  /** Whether a cell other than null or blank was added (which decides the kind). */
  get typed(): boolean {
    return this.kind !== undefined;
  }

  /** Cell `r` of a column without a kind (`typed` false): null or blank. */
  untypedAt(r: number): string | null {
    return this.blanks && bitAt(this.blanks, r) ? '' : null;
  }

  finish(count: number): NumberTextVector {
    // A view, not a copy, unless the row estimate was far off: the pages past `count` were never
    // written, so the system has not given them memory, while a copy would hold the column twice.
    const data = count >= this.data.length / 2 ? this.data.subarray(0, count) : this.data.slice(0, count);
    const nulls = fit(this.nulls, count);
    const blanks = fit(this.blanks, count);
    if (this.kind === 'int') return new NumberTextVector(new NumberVector(data, nulls), 0, blanks);
    if (this.kind === 'datetime') return new NumberTextVector(new DateVector(data as Float64Array, nulls), 0, blanks);
    return new NumberTextVector(new DecimalVector(data as Float64Array, this.scale, nulls), this.integerDigits, blanks);
  }

  /** The first cell that is not null decides the kind. */
  private first(r: number, text: string): boolean {
    const length = Math.max(this.expected, r + 1);
    const int = canonicalInt(text);
    if (int !== undefined) {
      this.kind = 'int';
      this.data = new Int32Array(length);
      this.data[r] = int;
      return true;
    }
    if (canonicalDecimal(text, this.parts)) {
      this.kind = 'decimal';
      this.scale = this.parts.scale;
      this.integerDigits = this.parts.integerDigits;
      this.data = new Float64Array(length);
      this.data[r] = this.parts.unscaled;
      return true;
    }
    const ms = canonicalDateTime(text);
    if (ms === undefined) return false;
    this.kind = 'datetime';
    this.data = new Float64Array(length);
    this.data[r] = ms;
    return true;
  }

  private grow(r: number): void {
    this.data = grown(this.data, Math.max(Math.ceil(this.data.length * 1.5), r + 1));
  }
}

/** `bits` (made or grown as needed, for `expected` rows at first) with bit `r` set. */
function setBit(bits: Uint8Array | undefined, r: number, expected: number): Uint8Array {
  const byte = r >>> 3;
  if (!bits) bits = new Uint8Array(Math.max(expected + 7, r + 8) >>> 3);
  else if (byte >= bits.length) bits = grown(bits, Math.max(Math.ceil(bits.length * 1.5), byte + 1));
  bits[byte] |= 1 << (r & 7);
  return bits;
}

/** A bitmap of exactly `count` rows. */
function fit(bits: Uint8Array | undefined, count: number): Uint8Array | undefined {
  const bytes = (count + 7) >>> 3;
  return bits && (bits.length < bytes ? grown(bits, bytes) : bits.subarray(0, bytes));
}

function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T, length: number): T {
  const out = new (a.constructor as new (n: number) => T)(length);
  out.set(a);
  return out;
}

/** `-?(0|[1-9][0-9]*)` within 32 bits, not -0: the text `String` gives back. */
function canonicalInt(text: string): number | undefined {
  const n = text.length;
  const negative = text.charCodeAt(0) === 45;
  const start = negative ? 1 : 0;
  if (n === start || n - start > 10 || (text.charCodeAt(start) === 48 && n > start + 1)) return undefined;
  let v = 0;
  for (let i = start; i < n; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    v = v * 10 + digit;
  }
  if (negative) {
    if (v === 0) return undefined;
    v = -v;
  }
  return (v | 0) === v ? v : undefined;
}

/** The most significant digits a double holds every integer of. */
const MAX_DIGITS = 15;

/**
 * `-?(0|[1-9][0-9]*)\.[0-9]+` with at most 15 significant digits and not a negative zero: the
 * unscaled value, the decimals and the digits before the point go into `out`.
 */
function canonicalDecimal(text: string, out: { unscaled: number; scale: number; integerDigits: number }): boolean {
  const n = text.length;
  const negative = text.charCodeAt(0) === 45;
  const start = negative ? 1 : 0;
  const point = text.indexOf('.', start);
  if (point <= start || point === n - 1 || n - point - 1 > MAX_STORED_SCALE) return false;
  if (text.charCodeAt(start) === 48 && point > start + 1) return false;
  let v = 0;
  let significant = 0;
  for (let i = start; i < n; i++) {
    if (i === point) continue;
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return false;
    v = v * 10 + digit;
    if (v > 0) significant++;
  }
  if (significant > MAX_DIGITS || (negative && v === 0)) return false;
  out.unscaled = negative ? -v : v;
  out.scale = n - point - 1;
  out.integerDigits = text.charCodeAt(start) === 48 ? 0 : point - start;
  return true;
}

/** `yyyy-MM-ddTHH:mm:ss` or `…ss.fff` (not .000), a valid instant from year 1: what `isoText` writes. */
function canonicalDateTime(text: string): number | undefined {
  const n = text.length;
  if (n !== 19 && n !== 23) return undefined;
  if (text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  if (n === 23 && (text.charCodeAt(19) !== 46 || text.endsWith('000'))) return undefined;
  // The rest (digits, dashes, ranges) is checked by the parser the converter uses.
  return parseDateTimeMs(text);
}
