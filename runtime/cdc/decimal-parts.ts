import Decimal from 'decimal.js';
import { UNSCALED, UNSCALED_MAX_SCALE, UNSCALED_WORDS, unscaledWords } from '../dataset/decimal-scale';
import type { DecimalVector } from '../dataset/vector';

/**
 * A decimal's value as decimal.js represents it (documented): sign s, exponent e of the leading
 * digit, and digits d in base-1e7 words without trailing zero words, d null for NaN and ±Infinity.
 * Trailing zeros are never stored, so 1, 1.0 and 1.00 have the same parts; hashing and encoding
 * keys from the parts, rather than from toString(), also ignores the toExpPos/toExpNeg settings of
 * the Decimal clone a value was made by.
 */
export interface DecimalParts {
  s: number;
  e: number;
  d: number[] | null;
}

export function partsOf(v: Decimal): DecimalParts {
  return v;
}

/** 1 or -1 (a zero's sign is not part of its value); 2, 3, 4 for -Infinity, NaN, Infinity. */
export function signOf({ s, d }: DecimalParts): number {
  if (d === null) return (s === s ? s : 0) + 3;
  return d[0] === 0 ? 1 : s;
}

/** The decimal with these parts (as `signOf` gives the sign). */
export function fromParts(sign: number, e: number, words: readonly number[]): Decimal {
  if (sign > 1) return new Decimal(sign === 3 ? NaN : sign === 2 ? -Infinity : Infinity);
  if (words.length === 0 || words[0] === 0) return new Decimal(0);
  const digits = (
    String(words[0]) +
    words
      .slice(1)
      .map((w) => String(w).padStart(7, '0'))
      .join('')
  ).replace(/0+$/, '');
  return new Decimal(`${sign < 0 ? '-' : ''}${digits[0]}.${digits.slice(1) || '0'}e${e}`);
}

/** A decimal's sign (as `signOf`), exponent and digit words: d[0 .. words). */
export interface DecimalWords {
  sign: number;
  e: number;
  words: number;
  d: readonly number[];
}

const CELL: DecimalWords = { sign: 1, e: 0, words: 1, d: [0] };
const ZERO_WORDS = [0];
const ONE_WORD = [0, 0];
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7];

/** The number of decimal digits of `n`, a positive integer below 1e7. */
function digitsOf(n: number): number {
  if (n < 1e4) return n < 100 ? (n < 10 ? 1 : 2) : n < 1e3 ? 3 : 4;
  return n < 1e5 ? 5 : n < 1e6 ? 6 : 7;
}

/**
 * The parts of cell `r` of a typed decimal column, `unscaled / 10^scale`, as `partsOf` gives them for
 * the Decimal the cell reads as (so 1 and 1.0 have the same), without making that Decimal when the
 * scale allows. Reused: valid until the next call.
 */
export function cellWords(vector: DecimalVector, r: number): DecimalWords {
  const unscaled = vector.unscaled[r];
  const scale = typeof vector.scale === 'number' ? vector.scale : vector.scale[r];
  if (unscaled === 0) {
    CELL.sign = 1;
    CELL.e = 0;
    CELL.words = 1;
    CELL.d = ZERO_WORDS;
  } else if (scale <= 7 && (unscaled < 0 ? -unscaled : unscaled) < 1e7 * POW10[scale]) {
    // The common case, one word before the point and at most one after, without unscaledWords' divisions.
    const a = unscaled < 0 ? -unscaled : unscaled;
    const unit = POW10[scale];
    // In int32 arithmetic when it fits: a double's % is a call into C, an int32's one instruction.
    const fraction = a <= 0x7fffffff ? (a | 0) % unit : a % unit;
    const integer = (a - fraction) / unit;
    CELL.sign = unscaled < 0 ? -1 : 1;
    CELL.d = ONE_WORD;
    if (integer > 0) {
      CELL.e = digitsOf(integer) - 1;
      ONE_WORD[0] = integer;
      ONE_WORD[1] = fraction * POW10[7 - scale];
      CELL.words = fraction === 0 ? 1 : 2;
    } else {
      CELL.e = digitsOf(fraction) - scale - 1;
      ONE_WORD[0] = fraction * POW10[7 - scale];
      CELL.words = 1;
    }
  } else if (scale > UNSCALED_MAX_SCALE) {
    const parts = partsOf(vector.get(r) as Decimal);
    CELL.sign = signOf(parts);
    CELL.e = parts.d === null ? 0 : parts.e;
    CELL.words = parts.d === null ? 0 : parts.d.length;
    CELL.d = parts.d ?? ZERO_WORDS;
  } else {
    CELL.words = unscaledWords(unscaled < 0 ? -unscaled : unscaled, scale);
    CELL.sign = unscaled < 0 ? -1 : 1;
    CELL.e = UNSCALED.e;
    CELL.d = UNSCALED_WORDS;
  }
  return CELL;
}
