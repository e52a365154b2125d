import Decimal from 'decimal.js';

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
