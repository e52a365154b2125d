import Decimal from 'decimal.js';
import { decimalFromUnscaled, decimalText, parseDecimal } from './decimal-scale';
import { parseDateTimeMs } from './parse-datetime';
import { formatDateTime } from './format-value';
import type { ColumnType, Value } from './types';

/**
 * How a column's cells are held in memory (docs/sources.md, "Typed columns"). A cell read through
 * `get` is the `Value` the column's type promises (types.ts), whatever the storage:
 * - int, short, tinyint: an Int32Array; double a Float64Array; float a Float32Array (floats are
 *   rounded to float32 on store, so they fit exactly); long a BigInt64Array;
 * - datetime: milliseconds since the epoch in a Float64Array (a Date holds milliseconds);
 * - decimal: unscaled integers in a Float64Array with their scale (one for the column, or one byte a
 *   cell) when every value has at most 15 significant digits, else the Decimal objects;
 * - bool: a bitmap;
 * - string, char, guid: a dictionary (codes into a table of the distinct strings) when they repeat;
 *   a CSV load's text is a dictionary or packed text (text-vector.ts);
 * - nulls: a bitmap beside the typed array.
 * Anything else, or a column whose values do not fit its storage, is a plain array (`ValuesVector`).
 * Vectors are immutable once built; `pick` gathers rows into a new vector of the same storage.
 */
export interface Vector {
  readonly length: number;
  /** The cell at row `r`. */
  get(r: number): Value;
  /** A new array of the cells (the plain array itself for a `ValuesVector`: arrays are never modified). */
  values(): Value[];
  /** The rows at `rows`, in that order. */
  pick(rows: ArrayLike<number>): Vector;
}

/** A bitmap of `length` bits, all clear. */
function bitmap(length: number): Uint8Array {
  return new Uint8Array((length + 7) >>> 3);
}

export function bitAt(bits: Uint8Array, r: number): boolean {
  return (bits[r >>> 3] & (1 << (r & 7))) !== 0;
}

function setBit(bits: Uint8Array, r: number): void {
  bits[r >>> 3] |= 1 << (r & 7);
}

/** The bits at `rows`, in that order; undefined when none is set. */
export function pickBits(bits: Uint8Array | undefined, rows: ArrayLike<number>): Uint8Array | undefined {
  if (!bits) return undefined;
  const out = bitmap(rows.length);
  let any = false;
  for (let k = 0; k < rows.length; k++) {
    if (bitAt(bits, rows[k])) {
      setBit(out, k);
      any = true;
    }
  }
  return any ? out : undefined;
}

type Typed = Int32Array | Float64Array | Float32Array | BigInt64Array | Uint8Array | Uint16Array | Uint32Array;

function pickTyped<T extends Typed>(from: T, rows: ArrayLike<number>): T {
  const out = new (from.constructor as new (n: number) => T)(rows.length);
  for (let k = 0; k < rows.length; k++) out[k] = from[rows[k]];
  return out;
}

abstract class BaseVector implements Vector {
  abstract readonly length: number;
  abstract get(r: number): Value;
  abstract pick(rows: ArrayLike<number>): Vector;

  values(): Value[] {
    const out = new Array<Value>(this.length);
    for (let r = 0; r < out.length; r++) out[r] = this.get(r);
    return out;
  }
}

/** Cells as they are: the fallback storage, and what code that builds a column array hands over. */
export class ValuesVector extends BaseVector {
  constructor(readonly array: Value[]) {
    super();
  }

  get length(): number {
    return this.array.length;
  }

  get(r: number): Value {
    return this.array[r];
  }

  override values(): Value[] {
    return this.array;
  }

  pick(rows: ArrayLike<number>): Vector {
    const out = new Array<Value>(rows.length);
    for (let k = 0; k < rows.length; k++) out[k] = this.array[rows[k]];
    return new ValuesVector(out);
  }
}

/** Numbers of int, short, tinyint, double and float columns; `nulls` marks the null cells. */
export class NumberVector extends BaseVector {
  constructor(
    readonly data: Int32Array | Float64Array | Float32Array,
    readonly nulls: Uint8Array | undefined,
  ) {
    super();
  }

  get length(): number {
    return this.data.length;
  }

  get(r: number): Value {
    return this.nulls && bitAt(this.nulls, r) ? null : this.data[r];
  }

  pick(rows: ArrayLike<number>): Vector {
    return new NumberVector(pickTyped(this.data, rows), pickBits(this.nulls, rows));
  }
}

export class BigIntVector extends BaseVector {
  constructor(
    readonly data: BigInt64Array,
    readonly nulls: Uint8Array | undefined,
  ) {
    super();
  }

  get length(): number {
    return this.data.length;
  }

  get(r: number): Value {
    return this.nulls && bitAt(this.nulls, r) ? null : this.data[r];
  }

  pick(rows: ArrayLike<number>): Vector {
    return new BigIntVector(pickTyped(this.data, rows), pickBits(this.nulls, rows));
  }
}

/** Datetimes as epoch milliseconds; each read is a new Date, so no cell is shared between readers. */
export class DateVector extends BaseVector {
  constructor(
    readonly ms: Float64Array,
    readonly nulls: Uint8Array | undefined,
  ) {
    super();
  }

  get length(): number {
    return this.ms.length;
  }

  get(r: number): Value {
    return this.nulls && bitAt(this.nulls, r) ? null : new Date(this.ms[r]);
  }

  pick(rows: ArrayLike<number>): Vector {
    return new DateVector(pickTyped(this.ms, rows), pickBits(this.nulls, rows));
  }
}

/** The largest unscaled value kept as a double: every integer up to it is exact. */
const MAX_UNSCALED = Number.MAX_SAFE_INTEGER;
/** The largest power of ten a double holds exactly. */
const MAX_EXACT_POWER = 22;
/** System.Decimal's largest scale (decimal-scale.ts), which a byte holds. */
export const MAX_STORED_SCALE = 28;

/**
 * Decimals as `unscaled / 10^scale`: exact integers below 2^53, with the scale each value prints with
 * (`scale` when the column's values share one, else one byte a cell).
 */
export class DecimalVector extends BaseVector {
  constructor(
    readonly unscaled: Float64Array,
    readonly scale: number | Uint8Array,
    readonly nulls: Uint8Array | undefined,
  ) {
    super();
  }

  get length(): number {
    return this.unscaled.length;
  }

  get(r: number): Value {
    if (this.nulls && bitAt(this.nulls, r)) return null;
    return decimalOf(this.unscaled[r], typeof this.scale === 'number' ? this.scale : this.scale[r]);
  }

  pick(rows: ArrayLike<number>): Vector {
    const scale = typeof this.scale === 'number' ? this.scale : pickTyped(this.scale, rows);
    return new DecimalVector(pickTyped(this.unscaled, rows), scale, pickBits(this.nulls, rows));
  }
}

/** The decimal `unscaled / 10^scale`, printing with `scale` decimals, as `parseDecimal` reads its text. */
function decimalOf(unscaled: number, scale: number): Decimal {
  if (scale <= MAX_EXACT_POWER) return decimalFromUnscaled(unscaled, scale);
  const negative = unscaled < 0;
  const digits = String(negative ? -unscaled : unscaled);
  let text: string;
  if (scale === 0) text = digits;
  else if (digits.length > scale) text = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  else text = `0.${digits.padStart(scale, '0')}`;
  return parseDecimal(negative ? `-${text}` : text);
}

/** Booleans as a bitmap (bit set: true). */
export class BoolVector extends BaseVector {
  constructor(
    readonly bits: Uint8Array,
    readonly length: number,
    readonly nulls: Uint8Array | undefined,
  ) {
    super();
  }

  get(r: number): Value {
    return this.nulls && bitAt(this.nulls, r) ? null : bitAt(this.bits, r);
  }

  pick(rows: ArrayLike<number>): Vector {
    const bits = bitmap(rows.length);
    for (let k = 0; k < rows.length; k++) if (bitAt(this.bits, rows[k])) setBit(bits, k);
    return new BoolVector(bits, rows.length, pickBits(this.nulls, rows));
  }
}

/** Strings that repeat: one code per cell into `table`, whose entry 0 is null. */
export class DictionaryVector extends BaseVector {
  constructor(
    readonly codes: Uint8Array | Uint16Array | Uint32Array,
    readonly table: readonly (string | null)[],
  ) {
    super();
  }

  get length(): number {
    return this.codes.length;
  }

  get(r: number): Value {
    return this.table[this.codes[r]];
  }

  pick(rows: ArrayLike<number>): Vector {
    return new DictionaryVector(pickTyped(this.codes, rows), this.table);
  }
}

/** How many of the first cells are looked at to decide whether a text column repeats. */
const DICTIONARY_SAMPLE = 4096;

/**
 * Typed storage filled cell by cell: `put` stores a cell of the column's type and returns false when
 * the storage cannot hold it (the column then falls back to an array of values).
 */
interface Store {
  put(r: number, v: Value): boolean;
  /**
   * Stores the cell text `text` converts to (convert.ts), when the store reads that form of text
   * itself; false for any other text, which the converter then reads.
   */
  putText?(r: number, text: string): boolean;
  /** The vector of the first `length` cells. */
  vector(length: number): Vector;
}

/** A store for a column of `type` and `length` cells; undefined when the type has no typed storage. */
function storeFor(type: ColumnType, length: number): Store | undefined {
  switch (type.base) {
    case 'int':
    case 'short':
    case 'tinyint':
      return new NumberStore(new Int32Array(length), (v) => (v | 0) === v && !Object.is(v, -0));
    case 'double':
      return new NumberStore(new Float64Array(length), () => true);
    case 'float':
      return new NumberStore(new Float32Array(length), (v) => Math.fround(v) === v || Number.isNaN(v));
    case 'long':
      return new BigIntStore(length);
    case 'datetime':
      return new DateStore(length);
    case 'decimal':
      return new DecimalStore(length, type);
    case 'bool':
      return new BoolStore(length);
    default:
      return undefined;
  }
}

/** The null bitmap of a store, made at the first null. */
class Nulls {
  bits: Uint8Array | undefined;

  constructor(private readonly length: number) {}

  set(r: number): void {
    setBit((this.bits ??= bitmap(this.length)), r);
  }

  /** The bitmap cut to `length` cells. */
  cut(length: number): Uint8Array | undefined {
    return this.bits && length < this.length ? this.bits.slice(0, (length + 7) >>> 3) : this.bits;
  }
}

class NumberStore implements Store {
  private readonly nulls: Nulls;

  constructor(
    private readonly data: Int32Array | Float64Array | Float32Array,
    private readonly fits: (v: number) => boolean,
  ) {
    this.nulls = new Nulls(data.length);
  }

  put(r: number, v: Value): boolean {
    if (typeof v === 'number' && this.fits(v)) this.data[r] = v;
    else if (v === null) this.nulls.set(r);
    else return false;
    return true;
  }

  vector(length: number): Vector {
    return new NumberVector(cut(this.data, length), this.nulls.cut(length));
  }
}

class BigIntStore implements Store {
  private readonly data: BigInt64Array;
  private readonly nulls: Nulls;

  constructor(length: number) {
    this.data = new BigInt64Array(length);
    this.nulls = new Nulls(length);
  }

  put(r: number, v: Value): boolean {
    if (typeof v === 'bigint' && BigInt.asIntN(64, v) === v) this.data[r] = v;
    else if (v === null) this.nulls.set(r);
    else return false;
    return true;
  }

  vector(length: number): Vector {
    return new BigIntVector(cut(this.data, length), this.nulls.cut(length));
  }
}

class DateStore implements Store {
  private readonly ms: Float64Array;
  private readonly nulls: Nulls;

  constructor(length: number) {
    this.ms = new Float64Array(length);
    this.nulls = new Nulls(length);
  }

  put(r: number, v: Value): boolean {
    if (v instanceof Date && !Number.isNaN(v.getTime())) this.ms[r] = v.getTime();
    else if (v === null) this.nulls.set(r);
    else return false;
    return true;
  }

  /** Datetime text with nothing to trim, read as the converter reads it (parse-datetime.ts), without a Date. */
  putText(r: number, text: string): boolean {
    if (!isPrintable(text.charCodeAt(0)) || !isPrintable(text.charCodeAt(text.length - 1))) return false;
    const ms = parseDateTimeMs(text);
    if (ms === undefined) return false;
    this.ms[r] = ms;
    return true;
  }

  vector(length: number): Vector {
    return new DateVector(cut(this.ms, length), this.nulls.cut(length));
  }
}

class BoolStore implements Store {
  private readonly bits: Uint8Array;
  private readonly nulls: Nulls;

  constructor(length: number) {
    this.bits = bitmap(length);
    this.nulls = new Nulls(length);
  }

  put(r: number, v: Value): boolean {
    if (v === true) setBit(this.bits, r);
    else if (v === null) this.nulls.set(r);
    else if (v !== false) return false;
    return true;
  }

  vector(length: number): Vector {
    return new BoolVector(this.bits.slice(0, (length + 7) >>> 3), length, this.nulls.cut(length));
  }
}

/** Decimals as `DecimalVector` storage, cell by cell (a change log's decoder stores unscaled values itself). */
export class DecimalStore implements Store {
  private readonly unscaled: Float64Array;
  private readonly scales: Uint8Array;
  private readonly nulls: Nulls;
  /** The scale every value so far has, -1 before the first, -2 once they differ. */
  private common = -1;
  private readonly parts = { unscaled: 0, scale: 0 };

  /** decimal(p, s)'s digits before the point, when p is given. */
  private readonly integerDigits: number | undefined;

  constructor(
    length: number,
    private readonly type: ColumnType,
  ) {
    this.unscaled = new Float64Array(length);
    this.scales = new Uint8Array(length);
    this.nulls = new Nulls(length);
    this.integerDigits = type.precision === undefined ? undefined : type.precision - (type.scale ?? 0);
  }

  put(r: number, v: Value): boolean {
    if (v === null) {
      this.nulls.set(r);
      return true;
    }
    if (!Decimal.isDecimal(v) || !splitDecimal(v, this.parts)) return false;
    this.putUnscaled(r, this.parts.unscaled, this.parts.scale);
    return true;
  }

  /**
   * `[+-]digits[.digits]` with at most 15 significant digits, no more decimals than the column's
   * scale and no more integer digits than its precision allows: the digits are the unscaled value,
   * with the column's scale (or the decimals written, without one), as `parseDecimal` reads them.
   */
  putText(r: number, text: string): boolean {
    const n = text.length;
    const first = text.charCodeAt(0);
    let i = first === 45 || first === 43 ? 1 : 0;
    let unscaled = 0;
    let digits = 0;
    let integer = 0;
    let decimals = -1;
    for (; i < n; i++) {
      const code = text.charCodeAt(i);
      if (code === 46 && decimals < 0) {
        decimals = 0;
        continue;
      }
      const digit = code - 48;
      if (digit < 0 || digit > 9) return false;
      if (decimals >= 0) decimals++;
      if (unscaled === 0 && digit === 0) continue;
      unscaled = unscaled * 10 + digit;
      digits++;
      if (decimals < 0) integer++;
    }
    if (decimals < 0) decimals = 0;
    const written = n - (first === 45 || first === 43 ? 1 : 0) - (text.includes('.') ? 1 : 0);
    if (written === 0 || digits > 15 || decimals > MAX_STORED_SCALE) return false;
    if (first === 45 && unscaled === 0) return false;
    const scale = this.type.scale ?? decimals;
    if (decimals > scale || (this.integerDigits !== undefined && integer > this.integerDigits)) return false;
    for (let k = decimals; k < scale; k++) unscaled *= 10;
    if (unscaled > MAX_UNSCALED) return false;
    this.putUnscaled(r, first === 45 ? -unscaled : unscaled, scale);
    return true;
  }

  /** The decimal `unscaled / 10^scale` printing with `scale` decimals (`unscaled` an exact integer, `scale` ≤ MAX_STORED_SCALE). */
  putUnscaled(r: number, unscaled: number, scale: number): void {
    this.unscaled[r] = unscaled;
    this.scales[r] = scale;
    if (this.common === -1) this.common = scale;
    else if (this.common !== scale) this.common = -2;
  }

  vector(length: number): Vector {
    const scale = this.common === -2 ? cut(this.scales, length) : Math.max(this.common, 0);
    return new DecimalVector(cut(this.unscaled, length), scale, this.nulls.cut(length));
  }
}

/** A printable ASCII character other than the space (NaN, past the end, is not). */
function isPrintable(code: number): boolean {
  return code > 32 && code < 127;
}

function cut<T extends Typed>(data: T, length: number): T {
  return length < data.length ? (data.slice(0, length) as T) : data;
}

/**
 * Fills a column of `type`, `length` cells long, cell by cell in row order (a conversion): typed
 * storage until a cell does not fit it, then an array of values.
 */
export class VectorBuilder {
  private store: Store | undefined;
  private values: Value[] | undefined;

  constructor(
    private readonly type: ColumnType,
    private readonly length: number,
  ) {
    this.store = storeFor(type, length);
    if (!this.store) this.values = new Array<Value>(length);
  }

  set(r: number, v: Value): void {
    if (this.store?.put(r, v)) return;
    if (!this.values) {
      const stored = this.store!.vector(this.length);
      this.values = new Array<Value>(this.length);
      for (let k = 0; k < r; k++) this.values[k] = stored.get(k);
      this.store = undefined;
    }
    this.values[r] = v;
  }

  /** Stores what `text` converts to when the storage reads such text itself; false when it does not. */
  setText(r: number, text: string): boolean {
    return this.store?.putText?.(r, text) ?? false;
  }

  finish(): Vector {
    return this.store ? this.store.vector(this.length) : vectorOf(this.type, this.values!);
  }
}

/**
 * The vector of a column of `type` holding `values` (cells of that type's representation): the typed
 * storage of the type when every value fits it, a dictionary for repeated text, else the array itself.
 */
export function vectorOf(type: ColumnType, values: Value[]): Vector {
  const store = storeFor(type, values.length);
  if (!store) return type.base === 'bytes' ? new ValuesVector(values) : texts(values);
  for (let r = 0; r < values.length; r++) if (!store.put(r, values[r])) return new ValuesVector(values);
  return store.vector(values.length);
}

/**
 * A decimal's exact `unscaled` digits and `scale` (what it prints with), written into `out`; false when
 * it has more than 15 significant digits, or is a negative zero (which a double's digits would lose).
 */
function splitDecimal(d: Decimal, out: { unscaled: number; scale: number }): boolean {
  const text = decimalText(d);
  const point = text.indexOf('.');
  const digits = point < 0 ? text : text.slice(0, point) + text.slice(point + 1);
  const unscaled = Number(digits);
  if (!Number.isSafeInteger(unscaled) || Math.abs(unscaled) > MAX_UNSCALED) return false;
  if (unscaled === 0 && d.isNeg()) return false;
  out.unscaled = unscaled + 0;
  out.scale = point < 0 ? 0 : text.length - point - 1;
  return true;
}

/** A dictionary when the first cells repeat (at most one distinct value in four), else the array. */
function texts(values: Value[]): Vector {
  const n = values.length;
  const sample = Math.min(n, DICTIONARY_SAMPLE);
  const seen = new Set<Value>();
  for (let r = 0; r < sample; r++) seen.add(values[r]);
  if (seen.size * 4 > sample || sample === 0) return new ValuesVector(values);
  const index = new Map<string, number>();
  const table: (string | null)[] = [null];
  const codes = new Uint32Array(n);
  for (let r = 0; r < n; r++) {
    const v = values[r];
    if (v === null) continue;
    if (typeof v !== 'string') return new ValuesVector(values);
    let code = index.get(v);
    if (code === undefined) {
      code = table.length;
      table.push(v);
      index.set(v, code);
      // The rest of the column did not repeat as its start did: a dictionary would cost more than it saves.
      if (table.length * 2 > n) return new ValuesVector(values);
    }
    codes[r] = code;
  }
  return new DictionaryVector(narrowCodes(codes, table.length), table);
}

/** Codes in the narrowest array holding `count` distinct codes. */
export function narrowCodes(codes: Uint32Array, count: number): Uint8Array | Uint16Array | Uint32Array {
  if (count > 65536) return codes;
  return count <= 256 ? Uint8Array.from(codes) : Uint16Array.from(codes);
}

/**
 * The cells of a datetime or decimal vector as the text `formatValue(cell, type)` gives, read from the
 * stored numbers without making a Date or a Decimal per cell: what the CSV, JSON and XML writers write
 * (writers/dataset-text.ts). Undefined for other storage, which writers read as values.
 */
export function textView(vector: Vector, type: ColumnType): Vector | undefined {
  if (vector instanceof DateVector && type.base === 'datetime') {
    const { ms, nulls } = vector;
    return new TextView(vector, type, (r) => (nulls && bitAt(nulls, r) ? null : isoText(ms[r])));
  }
  if (vector instanceof DecimalVector && type.base === 'decimal') {
    const { unscaled, scale, nulls } = vector;
    const fixed = type.scale;
    return new TextView(vector, type, (r) => {
      if (nulls && bitAt(nulls, r)) return null;
      const s = typeof scale === 'number' ? scale : scale[r];
      // A column scale below the value's rounds (toFixed): rare enough to go through the Decimal.
      if (fixed !== undefined && fixed < s) return (vector.get(r) as Decimal).toFixed(fixed);
      return unscaledText(unscaled[r], s, fixed ?? s);
    });
  }
  return undefined;
}

class TextView extends BaseVector {
  constructor(
    private readonly source: Vector,
    private readonly type: ColumnType,
    readonly get: (r: number) => string | null,
  ) {
    super();
  }

  get length(): number {
    return this.source.length;
  }

  pick(rows: ArrayLike<number>): Vector {
    return textView(this.source.pick(rows), this.type)!;
  }
}

/** `0` to `9`, `00` to `99`, `000` to `999`: datetime fields and short decimal fractions without a number turned to text. */
const ONE_DIGIT = Array.from({ length: 10 }, (_, n) => String(n));
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
const FRACTIONS = [undefined, ONE_DIGIT, TWO_DIGITS, THREE_DIGITS];

/** `unscaled / 10^scale` with `places` (≥ scale) decimals: the digits of the integer with the point placed. */
export function unscaledText(unscaled: number, scale: number, places: number): string {
  const negative = unscaled < 0;
  const fractions = places === scale ? FRACTIONS[scale] : undefined;
  if (fractions) {
    // The common scales (money): integer part and fraction by exact arithmetic (% of integers below
    // 2^53 is exact, and so is dividing the multiple of the power it leaves).
    const magnitude = negative ? -unscaled : unscaled;
    const power = fractions.length;
    const fraction = magnitude % power;
    return `${negative ? '-' : ''}${(magnitude - fraction) / power}.${fractions[fraction]}`;
  }
  let digits = String(negative ? -unscaled : unscaled);
  let text: string;
  if (scale === 0) text = digits;
  else {
    if (digits.length <= scale) digits = digits.padStart(scale + 1, '0');
    text = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  if (places > scale) text += (scale === 0 ? '.' : '') + '0'.repeat(places - scale);
  return negative ? `-${text}` : text;
}

const DAY_MS = 86_400_000;
/** The instants of years 0000 to 9999, which `toISOString` writes with four digits and no sign. */
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;

/**
 * `yyyy-MM-ddT` by day number: a column's datetimes share their days (a year of instants has 365),
 * so each day's text is computed once. Emptied when full, which only a column spread over more
 * than that many days reaches.
 */
const dayTexts = new Map<number, string>();
const DAY_TEXTS_LIMIT = 50_000;
/** `HH:mm:` of each minute of a day and `.fff` of each millisecond: a datetime's text in few pieces. */
const MINUTE_TEXTS = Array.from({ length: 1440 }, (_, m) => `${TWO_DIGITS[Math.floor(m / 60)]}:${TWO_DIGITS[m % 60]}:`);
const MILLI_TEXTS = THREE_DIGITS.map((t) => `.${t}`);

/**
 * `yyyy-MM-ddTHH:mm:ss[.fff]` (format-value.ts `formatDateTime`) from epoch milliseconds, the date
 * by the civil-from-days algorithm (H. Hinnant): no Date object and no ISO string to cut.
 */
export function isoText(ms: number): string {
  if (ms < FIRST_MS || ms > LAST_MS) return formatDateTime(new Date(ms));
  const days = Math.floor(ms / DAY_MS);
  const inDay = ms - days * DAY_MS;
  const seconds = Math.floor(inDay / 1000);
  const millis = inDay - seconds * 1000;
  const text = dayText(days) + MINUTE_TEXTS[Math.floor(seconds / 60)] + TWO_DIGITS[seconds % 60];
  return millis === 0 ? text : text + MILLI_TEXTS[millis];
}

function dayText(days: number): string {
  let text = dayTexts.get(days);
  if (text !== undefined) return text;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  text = `${pad4(year)}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T`;
  if (dayTexts.size >= DAY_TEXTS_LIMIT) dayTexts.clear();
  dayTexts.set(days, text);
  return text;
}

function pad4(n: number): string {
  return n >= 1000 ? String(n) : String(n).padStart(4, '0');
}

/**
 * A column's cells as numbers that order as its values do, with its null bitmap: typed numbers,
 * datetimes (epoch ms) and decimals of one scale (unscaled), read as stored; undefined for other
 * storage. What ORDER BY and Min/Max compare without a Date or Decimal per row.
 */
export function orderedNumbers(
  v: Vector,
): { numbers: Int32Array | Float64Array | Float32Array; nulls: Uint8Array | undefined } | undefined {
  const numbers =
    v instanceof NumberVector
      ? v.data
      : v instanceof DateVector
        ? v.ms
        : v instanceof DecimalVector && typeof v.scale === 'number'
          ? v.unscaled
          : undefined;
  return numbers && { numbers, nulls: (v as NumberVector | DateVector | DecimalVector).nulls };
}
