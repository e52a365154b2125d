import Decimal from 'decimal.js';
import { parseDecimal, withScale } from './decimal-scale';
import { ScriptError } from '../errors';
import { formatValue } from './format-value';
import { parseDateTime } from './parse-datetime';
import { typeName } from './type-names';
import type { ColumnType, Value } from './types';

/**
 * Conversions between the representations of spec 2.6's types (docs/types.md). `converterTo` builds
 * one closure per column; it is then applied cell by cell with no further setup. A failure is a
 * 'runtime' ScriptError "cannot convert '<value>' to <type>[: reason]".
 */
export type Converter = (v: Value) => Value;

const INTEGER_TEXT = /^([+-]?\d+)(?:\.0*)?$/;
const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const GUID_GROUPS = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** .NET's accepted forms: 8-4-4-4-12, in {} or (), or 32 digits (N); any case. */
const GUID_TEXT = new RegExp(`^(?:${GUID_GROUPS}|\\{${GUID_GROUPS}\\}|\\(${GUID_GROUPS}\\)|[0-9a-f]{32})$`, 'i');
const CANONICAL_GUID = new RegExp(`^${GUID_GROUPS}$`);
const NOT_HEX = /[^0-9a-f]/gi;
const HEX_TEXT = /^(?:0x)?((?:[0-9a-f]{2})*)$/i;
const SPECIAL_DOUBLES: ReadonlyMap<string, number> = new Map([
  ['nan', NaN],
  ['infinity', Infinity],
  ['+infinity', Infinity],
  ['-infinity', -Infinity],
]);
const TRUE_TEXT = new Set(['true', '1', 'yes']);
const FALSE_TEXT = new Set(['false', '0', 'no']);

const INTEGER_RANGES = {
  tinyint: [0, 255],
  short: [-32768, 32767],
  int: [-2147483648, 2147483647],
} as const;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** An integer type's representation: its range, and how an integral value of each source kind becomes one. */
interface Whole<T extends number | bigint> {
  min: T;
  max: T;
  fromDigits(digits: string): T;
  fromNumber(n: number): T;
  fromBigint(n: bigint): T;
  fromDecimal(d: Decimal): T;
  fromBool(b: boolean): T;
}

function smallWhole([min, max]: readonly [number, number]): Whole<number> {
  // `+ 0` turns the -0 that "-0" or rounding -0.4 gives into 0.
  return {
    min,
    max,
    fromDigits: (digits) => Number(digits) + 0,
    fromNumber: (n) => n + 0,
    fromBigint: Number,
    fromDecimal: (d) => d.toNumber() + 0,
    fromBool: (b) => (b ? 1 : 0),
  };
}

const LONG: Whole<bigint> = {
  min: LONG_MIN,
  max: LONG_MAX,
  fromDigits: BigInt,
  fromNumber: BigInt,
  fromBigint: (n) => n,
  fromDecimal: (d) => BigInt(d.toFixed()),
  fromBool: (b) => (b ? 1n : 0n),
};

/** The converter of a column to `target`. `source` (the column's current type) refines to-text forms. */
export function converterTo(target: ColumnType, source?: ColumnType): Converter {
  switch (target.base) {
    case 'string':
    case 'char':
      return toText(target, source ?? target);
    case 'bool':
      return toBool(target);
    case 'tinyint':
    case 'short':
    case 'int':
      return toWhole(target, smallWhole(INTEGER_RANGES[target.base]));
    case 'long':
      return toWhole(target, LONG);
    case 'decimal':
      return toDecimal(target);
    case 'double':
      return toDouble(target);
    case 'float':
      return toFloat(target);
    case 'datetime':
      return toDateTime(target);
    case 'guid':
      return toGuid(target);
    case 'bytes':
      return toBytes(target);
  }
}

function fail(v: Value, target: ColumnType, reason?: string): never {
  const why = reason ? `: ${reason}` : '';
  throw new ScriptError(`cannot convert ${describe(v)} to ${typeName(target)}${why}`, 'runtime');
}

/** A short, recognisable rendering of a value for error messages. */
function describe(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}'`;
  if (v instanceof Date) return `datetime ${formatValue(v, { base: 'datetime' })}`;
  if (v instanceof Uint8Array) return `byte[${v.length}]`;
  return formatValue(v, { base: 'string' });
}

/** Text going to a non-text type: trimmed, and blank means missing (an empty CSV field is null). */
function trimmed(s: string): string | null {
  // Printable ASCII at both ends (nearly every cell) has nothing to trim: skip the call.
  if (isPrintableAscii(s.charCodeAt(0)) && isPrintableAscii(s.charCodeAt(s.length - 1))) return s;
  const t = s.trim();
  return t === '' ? null : t;
}

function isPrintableAscii(code: number): boolean {
  return code > 32 && code < 127;
}

function isDecimal(v: Value): v is Decimal {
  return Decimal.isDecimal(v);
}

function lengthOver(s: string, max: number): boolean {
  // UTF-16 length bounds the code point count from above, so most strings skip the count.
  if (s.length <= max) return false;
  let count = 0;
  for (const _ of s) if (++count > max) return true;
  return false;
}

function toText(target: ColumnType, source: ColumnType): Converter {
  const max = target.size === 'max' ? undefined : (target.size ?? (target.base === 'char' ? 1 : undefined));
  const reason = `longer than ${max} character${max === 1 ? '' : 's'}`;
  return (v) => {
    if (v === null) return null;
    const s = typeof v === 'string' ? v : formatValue(v, source);
    if (max !== undefined && lengthOver(s, max)) fail(v, target, reason);
    return s;
  };
}

function toBool(target: ColumnType): Converter {
  return (v) => {
    if (v === null || typeof v === 'boolean') return v;
    if (typeof v === 'string') {
      // The canonical spellings skip trimming and case folding.
      if (TRUE_TEXT.has(v)) return true;
      if (FALSE_TEXT.has(v)) return false;
      const t = trimmed(v);
      if (t === null) return null;
      const lower = t.toLowerCase();
      if (TRUE_TEXT.has(lower)) return true;
      if (FALSE_TEXT.has(lower)) return false;
    } else if (typeof v === 'number') {
      if (!Number.isNaN(v)) return v !== 0;
    } else if (typeof v === 'bigint') {
      return v !== 0n;
    } else if (isDecimal(v)) {
      return !v.isZero();
    }
    return fail(v, target);
  };
}

/**
 * Half to even, as .NET's Convert.ToInt32/ToInt64 round a fractional double or decimal (CONVERT in
 * expressions and column conversions alike): 2.5 → 2, 3.5 → 4, -2.5 → -2.
 */
function roundHalfEven(n: number): number {
  const r = Math.round(n);
  return Math.abs(n % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Beyond 15 digits a double may not hold the integer exactly. */
const EXACT_DIGITS = 15;

/**
 * The value of `[+-]digits` text of at most 15 digits, read by a scan (the common case, without the
 * regex's captures and substrings); NaN for any other text, which the regex then decides.
 */
function plainInteger(s: string): number {
  const n = s.length;
  const first = s.charCodeAt(0);
  let i = first === 45 || first === 43 ? 1 : 0;
  if (i === n || n - i > EXACT_DIGITS) return NaN;
  let value = 0;
  for (; i < n; i++) {
    const digit = s.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    value = value * 10 + digit;
  }
  return first === 45 ? -value : value;
}

function toWhole<T extends number | bigint>(target: ColumnType, whole: Whole<T>): Converter {
  const range = `out of range ${whole.min}..${whole.max}`;
  const inRange = (v: Value, n: T): T => (n < whole.min || n > whole.max ? fail(v, target, range) : n);
  return (v) => {
    if (v === null) return null;
    switch (typeof v) {
      case 'string': {
        const n = plainInteger(v);
        if (!Number.isNaN(n)) return inRange(v, whole.fromNumber(n));
        const t = trimmed(v);
        if (t === null) return null;
        const m = INTEGER_TEXT.exec(t);
        return m ? inRange(v, whole.fromDigits(m[1])) : fail(v, target);
      }
      case 'number':
        return Number.isFinite(v) ? inRange(v, whole.fromNumber(roundHalfEven(v))) : fail(v, target);
      case 'bigint':
        return inRange(v, whole.fromBigint(v));
      case 'boolean':
        return whole.fromBool(v);
    }
    if (isDecimal(v) && v.isFinite())
      return inRange(v, whole.fromDecimal(v.toDecimalPlaces(0, Decimal.ROUND_HALF_EVEN)));
    return fail(v, target);
  };
}

function toDecimal(target: ColumnType): Converter {
  const { precision, scale } = target;
  const integerDigits = precision === undefined ? undefined : precision - (scale ?? 0);
  const constrain = (v: Value, d: Decimal): Decimal => {
    if (scale === undefined) return d;
    // Rounding allocates; most values already fit the scale.
    const r = d.decimalPlaces() > scale ? d.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP) : d;
    // `e` is the exponent of the leading digit: |r| >= 10^k exactly when r.e >= k.
    if (integerDigits !== undefined && !r.isZero() && r.e >= integerDigits) {
      fail(v, target, `more than ${precision} digits of precision`);
    }
    return withScale(r, scale);
  };
  return (v) => {
    if (v === null) return null;
    switch (typeof v) {
      case 'string': {
        const t = trimmed(v);
        if (t === null) return null;
        return NUMBER_TEXT.test(t) ? constrain(v, parseDecimal(t, scale)) : fail(v, target);
      }
      case 'number':
        return Number.isFinite(v) ? constrain(v, new Decimal(v)) : fail(v, target);
      case 'bigint':
        return constrain(v, new Decimal(v.toString()));
      case 'boolean':
        return constrain(v, new Decimal(v ? 1 : 0));
    }
    if (isDecimal(v) && v.isFinite()) return constrain(v, v);
    return fail(v, target);
  };
}

/** A double; NaN and ±Infinity are read from their names, a finite value beyond ±1.8e308 is an error. */
function readDouble(v: Exclude<Value, null>, target: ColumnType): number {
  let n: number;
  switch (typeof v) {
    case 'number':
      return v;
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      const t = v.trim();
      if (!NUMBER_TEXT.test(t)) return SPECIAL_DOUBLES.get(t.toLowerCase()) ?? fail(v, target);
      n = Number(t);
      break;
    }
    case 'bigint':
      n = Number(v);
      break;
    default:
      if (!isDecimal(v)) return fail(v, target);
      n = v.toNumber();
  }
  return Number.isFinite(n) ? n : fail(v, target, 'out of range');
}

function toDouble(target: ColumnType): Converter {
  return (v) => {
    if (v === null || typeof v === 'number') return v;
    if (typeof v === 'string' && v.trim() === '') return null;
    return readDouble(v, target);
  };
}

function toFloat(target: ColumnType): Converter {
  return (v) => {
    if (v === null) return null;
    if (typeof v === 'string' && v.trim() === '') return null;
    const n = readDouble(v, target);
    const f = Math.fround(n);
    return Number.isFinite(n) && !Number.isFinite(f) ? fail(v, target, 'out of range') : f;
  };
}

function toDateTime(target: ColumnType): Converter {
  return (v) => {
    if (v === null) return null;
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? fail(v, target) : v;
    if (typeof v !== 'string') return fail(v, target);
    const t = trimmed(v);
    if (t === null) return null;
    return parseDateTime(t) ?? fail(v, target);
  };
}

function toGuid(target: ColumnType): Converter {
  return (v) => {
    if (v === null) return null;
    if (typeof v !== 'string') return fail(v, target);
    if (CANONICAL_GUID.test(v)) return v;
    const t = trimmed(v);
    if (t === null) return null;
    if (!GUID_TEXT.test(t)) return fail(v, target);
    const hex = t.replace(NOT_HEX, '').toLowerCase();
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

function toBytes(target: ColumnType): Converter {
  const max = typeof target.size === 'number' ? target.size : undefined;
  const check = (v: Value, b: Uint8Array): Uint8Array =>
    max !== undefined && b.length > max ? fail(v, target, `longer than ${max} bytes`) : b;
  return (v) => {
    if (v === null) return null;
    if (v instanceof Uint8Array) return check(v, v);
    if (typeof v !== 'string') return fail(v, target);
    const t = trimmed(v);
    if (t === null) return null;
    const m = HEX_TEXT.exec(t);
    return m ? check(v, Uint8Array.from(Buffer.from(m[1], 'hex'))) : fail(v, target, 'expected hexadecimal digits');
  };
}

/**
 * The type a column of loaded values gets (reference: "numbers get the best numeric type"): all
 * booleans → bool; all integers → int, else long within 64 bits, else decimal for exact (bigint or
 * Decimal) values and double for JS numbers; any fraction → decimal if a value is a Decimal, else
 * double; dates → datetime; bytes → byte[]; anything else, mixtures and all-null → string.
 */
export function inferType(values: Iterable<Value>): ColumnType {
  let kind: 'bool' | 'number' | 'datetime' | 'bytes' | undefined;
  let widest: 'int' | 'long' | 'wide' = 'int';
  let fraction = false;
  let exact = false;
  for (const v of values) {
    if (v === null) continue;
    const k = kindOf(v);
    if (k === 'string' || (kind !== undefined && kind !== k)) return { base: 'string' };
    kind = k;
    if (k !== 'number') continue;
    const n = v as number | bigint | Decimal;
    const width = integerWidth(n);
    if (width === undefined) fraction = true;
    else if (width === 'wide' || (width === 'long' && widest === 'int')) widest = width;
    if (isDecimal(n) || (typeof n === 'bigint' && width === 'wide')) exact = true;
  }
  if (kind === undefined) return { base: 'string' };
  if (kind !== 'number') return { base: kind };
  if (fraction || widest === 'wide') return { base: exact ? 'decimal' : 'double' };
  return { base: widest };
}

function kindOf(v: Exclude<Value, null>): 'bool' | 'number' | 'datetime' | 'bytes' | 'string' {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint' || isDecimal(v)) return 'number';
  if (v instanceof Date) return 'datetime';
  return v instanceof Uint8Array ? 'bytes' : 'string';
}

/** The narrowest integer type holding `v`, 'wide' beyond 64 bits, undefined for fractions and non-finite. */
function integerWidth(v: number | bigint | Decimal): 'int' | 'long' | 'wide' | undefined {
  let n: bigint;
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return undefined;
    if (v >= INTEGER_RANGES.int[0] && v <= INTEGER_RANGES.int[1]) return 'int';
    if (!Number.isSafeInteger(v)) return Math.abs(v) < 2 ** 63 ? 'long' : 'wide';
    n = BigInt(v);
  } else if (typeof v === 'bigint') {
    n = v;
  } else {
    if (!v.isFinite() || !v.isInteger()) return undefined;
    n = BigInt(v.toFixed());
  }
  if (n >= BigInt(INTEGER_RANGES.int[0]) && n <= BigInt(INTEGER_RANGES.int[1])) return 'int';
  return n >= LONG_MIN && n <= LONG_MAX ? 'long' : 'wide';
}
