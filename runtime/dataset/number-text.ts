import { parseDateTimeMs } from './parse-datetime';
import type { ColumnType, Value } from './types';
import {
  bitAt,
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
 * A cell with any other text (an empty field included) turns the column to text storage.
 */
export class NumberTextVector implements Vector {
  constructor(
    readonly typed: NumberVector | DecimalVector | DateVector,
    /** Decimal cells: the most digits any has before the point (leading zeros not counted). */
    readonly integerDigits: number,
  ) {}

  get length(): number {
    return this.typed.length;
  }

  get(r: number): Value {
    const typed = this.typed;
    if (typed.nulls && bitAt(typed.nulls, r)) return null;
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
    return new NumberTextVector(this.typed.pick(rows) as NumberTextVector['typed'], this.integerDigits);
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
  const typed = vector.typed;
  if (typed instanceof NumberVector) return type.base === 'int' ? typed : undefined;
  if (typed instanceof DateVector) return type.base === 'datetime' ? typed : undefined;
  if (type.base !== 'decimal') return undefined;
  const from = typed.scale as number;
  const scale = type.scale ?? from;
  if (scale < from) return undefined;
  if (type.precision !== undefined && vector.integerDigits > type.precision - scale) return undefined;
  if (scale === from) return typed;
  // More decimals than written: the same values with zeros appended, as `parseDecimal` reads them.
  const factor = 10 ** (scale - from);
  const unscaled = new Float64Array(typed.unscaled.length);
  for (let r = 0; r < unscaled.length; r++) {
    const v = typed.unscaled[r] * factor;
    if (!Number.isSafeInteger(v)) return undefined;
    unscaled[r] = v;
  }
  return new DecimalVector(unscaled, scale, typed.nulls);
}

type Kind = 'int' | 'decimal' | 'datetime';

/**
 * A loader's text column held as numbers while every cell is the one text of a number of one kind
 * (see NumberTextVector). `add` returns false at the first cell that is not; the cells added so far
 * are then read back as text (`text`) into text storage.
 */
export class NumberTextBuilder {
  private kind: Kind | undefined;
  private data: Int32Array | Float64Array = new Float64Array(0);
  private nulls: Uint8Array | undefined;
  /** Decimal: the column's number of decimals. */
  private scale = -1;
  private integerDigits = 0;
  private readonly parts = { unscaled: 0, scale: 0, integerDigits: 0 };

  /** `expected`: the expected number of rows, which sizes the array. */
  constructor(private readonly expected: number) {}

  add(r: number, text: string | null): boolean {
    if (r >= this.data.length && this.kind) this.grow(r);
    if (text === null) {
      this.setNull(r);
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

  /** Whether a cell other than null was added (which decides the kind). */
  get typed(): boolean {
    return this.kind !== undefined;
  }

  finish(count: number): NumberTextVector {
    // A view, not a copy, unless the row estimate was far off: the pages past `count` were never
    // written, so the system has not given them memory, while a copy would hold the column twice.
    const data = count >= this.data.length / 2 ? this.data.subarray(0, count) : this.data.slice(0, count);
    const bytes = (count + 7) >>> 3;
    const nulls = this.nulls && (this.nulls.length < bytes ? grown(this.nulls, bytes) : this.nulls.subarray(0, bytes));
    if (this.kind === 'int') return new NumberTextVector(new NumberVector(data, nulls), 0);
    if (this.kind === 'datetime') return new NumberTextVector(new DateVector(data as Float64Array, nulls), 0);
    return new NumberTextVector(new DecimalVector(data as Float64Array, this.scale, nulls), this.integerDigits);
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

  private setNull(r: number): void {
    const byte = r >>> 3;
    if (!this.nulls) this.nulls = new Uint8Array(Math.max(this.expected + 7, r + 8) >>> 3);
    else if (byte >= this.nulls.length)
      this.nulls = grown(this.nulls, Math.max(Math.ceil(this.nulls.length * 1.5), byte + 1));
    this.nulls[byte] |= 1 << (r & 7);
  }

  private grow(r: number): void {
    this.data = grown(this.data, Math.max(Math.ceil(this.data.length * 1.5), r + 1));
  }
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
