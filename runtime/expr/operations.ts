import Decimal from 'decimal.js';
import { converterTo, type Converter } from '../dataset/convert';
import { MAX_DOTNET_SCALE, scaleOf, withScale } from '../dataset/decimal-scale';
import type { Value } from '../dataset/types';
import { ScriptError } from '../errors';
import type { BinaryOp } from './ast';
import { isJsNumber, type Kind } from './kinds';

/**
 * The typed operations behind the operators: conversions between kinds, comparison and arithmetic.
 * Each is chosen once per operand-type pair (at bind time when the types are static), then applied
 * per row with no further dispatch.
 */

/**
 * Strings compare as a DataTable does by default: case-insensitive, trailing blanks ignored. The
 * normalised form (lower case, trailing spaces cut) is what equality, ordering, IN and LIKE use;
 * ordering is then ordinal on it (documented in docs/expressions.md).
 */
export function normText(s: string): string {
  let n = s.length;
  if (n > 0) {
    let c = s.charCodeAt(n - 1);
    if (c === 32 || c === 0x3000) {
      do c = s.charCodeAt(--n - 1);
      while (n > 0 && (c === 32 || c === 0x3000));
      s = s.slice(0, n);
    }
  }
  return s.toLowerCase();
}

// Decimal arithmetic computes exactly, then gives the result the scale System.Decimal gives it
// (docs/expressions.md): + - % the larger scale, * the sum of the scales, / the smallest scale that
// holds the exact quotient (at least the dividend's minus the divisor's). A result is then rounded
// half to even to at most 28 decimals and, when it has decimals, to .NET's 96-bit coefficient.
const Exact = Decimal.clone({ precision: 1e9 });
// Enough digits to tell a terminating quotient (≤ 29 significant digits at scale ≤ 28) from a
// rounded one.
const Quotient = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_EVEN });
const COEFFICIENT_LIMIT = new Decimal(2).pow(96);

const TEXT = { base: 'string' } as const;

/**
 * A converter from values of kind `from` to kind `to`; undefined when the representation is the same.
 * Numeric widening is done here (it is exact); everything else goes through the dataset's converters
 * so CONVERT, comparisons and column types all read text the same way.
 */
export function coercion(from: Kind, to: Kind): Converter | undefined {
  if (from === to) return undefined;
  if (isJsNumber(from) && isJsNumber(to))
    return to === 'float' ? (v) => (v === null ? null : Math.fround(v as number)) : undefined;
  if (isJsNumber(from) && to === 'long') return (v) => (v === null ? null : BigInt(v as number));
  if (isJsNumber(from) && to === 'decimal') return (v) => (v === null ? null : new Decimal(v as number));
  if (from === 'long' && to === 'decimal') return (v) => (v === null ? null : new Decimal((v as bigint).toString()));
  if (from === 'long' && isJsNumber(to)) return (v) => (v === null ? null : Number(v));
  if (from === 'decimal' && isJsNumber(to)) return (v) => (v === null ? null : (v as Decimal).toNumber());
  if ((from === 'char' || from === 'guid') && to === 'string') return undefined;
  return converterTo(to === 'string' ? TEXT : { base: to }, { base: from });
}

export type Compare = (a: Value, b: Value) => number;

const compareNumbers: Compare = (a, b) => ((a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0);
const compareBigints: Compare = (a, b) => ((a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0);
const compareDecimals: Compare = (a, b) => (a as Decimal).cmp(b as Decimal);
const compareDates: Compare = (a, b) => compareNumbers((a as Date).getTime(), (b as Date).getTime());
const compareBools: Compare = (a, b) => (a === b ? 0 : a ? 1 : -1);
const compareTexts: Compare = (a, b) => {
  if (a === b) return 0;
  const x = normText(a as string);
  const y = normText(b as string);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Ordering of two non-null values of `kind`; undefined for kinds with no order (byte[]). */
export function comparer(kind: Kind): Compare | undefined {
  if (isJsNumber(kind)) return compareNumbers;
  switch (kind) {
    case 'long':
      return compareBigints;
    case 'decimal':
      return compareDecimals;
    case 'datetime':
      return compareDates;
    case 'bool':
      return compareBools;
    case 'string':
    case 'char':
    case 'guid':
      return compareTexts;
    default:
      return undefined;
  }
}

/** Whether a comparison result satisfies a relational operator. */
export function relationTest(op: BinaryOp): (c: number) => boolean {
  switch (op) {
    case '=':
      return (c) => c === 0;
    case '<>':
      return (c) => c !== 0;
    case '<':
      return (c) => c < 0;
    case '>':
      return (c) => c > 0;
    case '<=':
      return (c) => c <= 0;
    default:
      return (c) => c >= 0;
  }
}

/**
 * A key under which equal values of `kind` are identical (IN lists become Set lookups): normalised
 * text for strings, the number, the bigint, the canonical decimal digits, the epoch milliseconds.
 */
export function equalityKey(kind: Kind): (v: Value) => unknown {
  switch (kind) {
    case 'string':
    case 'char':
    case 'guid':
      return (v) => normText(v as string);
    case 'decimal':
      return (v) => (v as Decimal).toString();
    case 'datetime':
      return (v) => (v as Date).getTime();
    case 'bytes':
      return (v) => Buffer.from(v as Uint8Array).toString('hex');
    default:
      return (v) => v;
  }
}

export type Arithmetic = (a: Value, b: Value) => Value;

const INTEGER_RANGE: Partial<Record<Kind, [number, number]>> = {
  tinyint: [0, 255],
  short: [-32768, 32767],
  int: [-2147483648, 2147483647],
};
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

export class ArithmeticError extends ScriptError {}

const divisionByZero = () => new ArithmeticError('division by zero', 'runtime');
const overflow = (kind: Kind) =>
  new ArithmeticError(
    `arithmetic overflow: the result does not fit in ${kind === 'long' ? 'long (Int64)' : kind}`,
    'runtime',
  );

/** `op` on two non-null values already converted to `kind` (the result kind of resultKind). */
export function arithmetic(op: BinaryOp, kind: Kind): Arithmetic {
  if (kind === 'string' || kind === 'char') return (a, b) => (a as string) + (b as string);
  if (kind === 'double') return doubleArithmetic(op);
  if (kind === 'float') {
    const f = doubleArithmetic(op);
    return (a, b) => Math.fround(f(a, b) as number);
  }
  if (kind === 'long') return longArithmetic(op);
  if (kind === 'decimal') return decimalArithmetic(op);
  const range = INTEGER_RANGE[kind];
  if (!range) throw new ScriptError(`operator ${op} does not apply to ${kind}`, 'runtime');
  const [min, max] = range;
  const f = doubleArithmetic(op);
  return (a, b) => {
    if (op === '%' && b === 0) throw divisionByZero();
    const r = f(a, b) as number;
    if (r < min || r > max) throw overflow(kind);
    return r;
  };
}

function doubleArithmetic(op: BinaryOp): Arithmetic {
  switch (op) {
    case '+':
      return (a, b) => (a as number) + (b as number);
    case '-':
      return (a, b) => (a as number) - (b as number);
    case '*':
      return (a, b) => (a as number) * (b as number);
    case '/':
      return (a, b) => (a as number) / (b as number);
    default:
      return (a, b) => (a as number) % (b as number);
  }
}

function longArithmetic(op: BinaryOp): Arithmetic {
  const checked = (r: bigint) => {
    if (r < LONG_MIN || r > LONG_MAX) throw overflow('long');
    return r;
  };
  switch (op) {
    case '+':
      return (a, b) => checked((a as bigint) + (b as bigint));
    case '-':
      return (a, b) => checked((a as bigint) - (b as bigint));
    case '*':
      return (a, b) => checked((a as bigint) * (b as bigint));
    default:
      return (a, b) => {
        if (b === 0n) throw divisionByZero();
        return (a as bigint) % (b as bigint);
      };
  }
}

/**
 * The .NET value of an exact decimal result at `scale`: at most 28 decimals, and a 96-bit coefficient.
 * An integer part beyond .NET's range (which System.Decimal rejects as an overflow) stays exact, as
 * our decimal(38, s) columns hold such values.
 */
function dotnetDecimal(exact: Decimal, scale: number): Decimal {
  let s = Math.min(scale, MAX_DOTNET_SCALE);
  let r = exact.decimalPlaces() > s ? exact.toDecimalPlaces(s, Decimal.ROUND_HALF_EVEN) : exact;
  const fits = s > 0 && exact.abs().lt(COEFFICIENT_LIMIT);
  // r.e is the exponent of the leading digit, so the coefficient at scale s has r.e + 1 + s digits.
  while (fits && s > 0 && !r.isZero() && r.e + 1 + s >= 29 && r.abs().times(Exact.pow(10, s)).gte(COEFFICIENT_LIMIT)) {
    s--;
    r = exact.toDecimalPlaces(s, Decimal.ROUND_HALF_EVEN);
  }
  return withScale(new Decimal(r), s);
}

function decimalArithmetic(op: BinaryOp): Arithmetic {
  switch (op) {
    case '+':
      return (a, b) =>
        dotnetDecimal(Exact.add(a as Decimal, b as Decimal), Math.max(scaleOf(a as Decimal), scaleOf(b as Decimal)));
    case '-':
      return (a, b) =>
        dotnetDecimal(Exact.sub(a as Decimal, b as Decimal), Math.max(scaleOf(a as Decimal), scaleOf(b as Decimal)));
    case '*':
      return (a, b) =>
        dotnetDecimal(Exact.mul(a as Decimal, b as Decimal), scaleOf(a as Decimal) + scaleOf(b as Decimal));
    case '/':
      return (a, b) => {
        if ((b as Decimal).isZero()) throw divisionByZero();
        const q = Quotient.div(a as Decimal, b as Decimal);
        // .NET adds decimals to the quotient only while a remainder is left: an exact quotient keeps
        // the fewest decimals that hold it, but no fewer than the dividend's scale minus the divisor's.
        const places = q.decimalPlaces();
        const exact = places <= MAX_DOTNET_SCALE && Exact.mul(q, b as Decimal).eq(a as Decimal);
        return dotnetDecimal(
          q,
          exact ? Math.max(places, scaleOf(a as Decimal) - scaleOf(b as Decimal)) : MAX_DOTNET_SCALE,
        );
      };
    default:
      return (a, b) => {
        if ((b as Decimal).isZero()) throw divisionByZero();
        return dotnetDecimal(
          Exact.mod(a as Decimal, b as Decimal),
          Math.max(scaleOf(a as Decimal), scaleOf(b as Decimal)),
        );
      };
  }
}

/** Unary minus on a non-null numeric value of `kind`. */
export function negate(kind: Kind): (v: Value) => Value {
  if (kind === 'long')
    return (v) => {
      const r = -(v as bigint);
      if (r > LONG_MAX) throw overflow('long');
      return r;
    };
  if (kind === 'decimal') return (v) => withScale((v as Decimal).neg(), scaleOf(v as Decimal));
  return (v) => -(v as number) + 0;
}
