import Decimal from 'decimal.js';

/**
 * .NET's System.Decimal keeps a scale: 12.50m prints as "12.50", and 12.50m * 2 is 25.00m. decimal.js
 * drops trailing zeros, so a value whose scale is larger than its significant decimals is a
 * `ScaledDecimal`, which carries the scale beside the digits. Every other Decimal's scale is its
 * number of decimals. Values are immutable: a new scale is a new instance.
 */
class ScaledDecimal extends Decimal {
  constructor(
    value: Decimal,
    readonly scale: number,
  ) {
    super(value);
  }
}

/** The largest scale of System.Decimal. */
export const MAX_DOTNET_SCALE = 28;

/** The scale of a decimal value: how many decimals .NET would print. */
export function scaleOf(d: Decimal): number {
  return d instanceof ScaledDecimal ? d.scale : Math.max(d.decimalPlaces(), 0);
}

/** `d` with at least `scale` decimals when printed (trailing zeros added, never digits removed). */
export function withScale(d: Decimal, scale: number): Decimal {
  if (scale > d.decimalPlaces())
    return d instanceof ScaledDecimal && d.scale === scale ? d : new ScaledDecimal(d, scale);
  return d instanceof ScaledDecimal ? new Decimal(d) : d;
}

/**
 * A decimal read from number text, keeping the scale written ("12.50" has scale 2, as Decimal.Parse);
 * with `scale`, the value given that scale instead, as `withScale(value, scale)`.
 */
export function parseDecimal(text: string, scale?: number): Decimal {
  const fast = parsePlain(text, scale);
  if (fast !== undefined) return fast;
  const d = new Decimal(text);
  if (scale !== undefined) return withScale(d, scale);
  const m = /^[^.eE]*(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(text);
  if (!m) return d;
  const written = (m[1]?.length ?? 0) - Number(m[2] ?? 0);
  return withScale(d, Math.min(written, MAX_DOTNET_SCALE));
}

/**
 * decimal.js's documented representation: `d` holds the digits in base 1e7 words aligned on the
 * decimal point, with no leading or trailing zero word; `e` is the exponent of the leading digit.
 */
interface Parts {
  s: number;
  e: number;
  d: number[];
}

/** The parts as they are for any value: NaN and ±Infinity have no digits (`d` null, `e` NaN; NaN's `s` is NaN too). */
export interface DecimalParts {
  s: number;
  e: number;
  d: number[] | null;
}

/** The scale a value carries beside its digits (a ScaledDecimal's), or -1: the scale is its decimals. */
export function carriedScale(d: Decimal): number {
  return d instanceof ScaledDecimal ? d.scale : -1;
}

/**
 * A decimal from its parts (`DecimalParts` and `carriedScale`): how a change log stores decimals
 * without printing and parsing their digits. `words` becomes the value's own array. Built as the
 * constructors build one (own properties constructor, s, e, d, then scale, in that order, so every
 * instance has the same shape), without the constructors' copy of a digits array we would replace.
 */
export function decimalFromParts(s: number, e: number, words: number[], scale: number): Decimal {
  const x = Object.create(scale >= 0 ? ScaledDecimal.prototype : Decimal.prototype) as Parts & {
    constructor: unknown;
    scale?: number;
  };
  x.constructor = Decimal;
  x.s = s;
  x.e = e;
  x.d = words;
  if (scale >= 0) x.scale = scale;
  return x as unknown as Decimal;
}

const WORD_DIGITS = 7;
const POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000];
const ZERO = new Decimal(0);
/** Words are collected here, then copied once into an array of the right size. */
const SCRATCH: number[] = [];
const DIGIT_0 = 48;
const DIGIT_9 = 57;

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

/**
 * `[+-]digits[.digits]`, the form numbers are nearly always written in, scanned straight into
 * decimal.js's representation: `new Decimal(text)` slices, concatenates and parses strings per
 * value, which dominates typing a large decimal column. Undefined for any other form.
 */
function parsePlain(text: string, scale: number | undefined): Decimal | undefined {
  const n = text.length;
  const first = text.charCodeAt(0);
  const sign = first === 45 ? -1 : 1;
  let i = first === 45 || first === 43 ? 1 : 0;
  const intStart = i;
  while (i < n && isDigit(text.charCodeAt(i))) i++;
  const intEnd = i;
  let fracEnd = i;
  if (i < n && text.charCodeAt(i) === 46) {
    i++;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    fracEnd = i;
  }
  const fracStart = intEnd + 1;
  const written = Math.max(fracEnd - fracStart, 0);
  if (i !== n || (intEnd === intStart && written === 0) || written > MAX_DOTNET_SCALE) return undefined;

  let lead = intStart;
  while (lead < intEnd && text.charCodeAt(lead) === DIGIT_0) lead++;
  let end = fracEnd;
  while (end > fracStart && text.charCodeAt(end - 1) === DIGIT_0) end--;
  const places = Math.max(end - fracStart, 0);
  const target = scale ?? written;
  const x = target > places ? new ScaledDecimal(ZERO, target) : new Decimal(ZERO);
  const parts = x as unknown as Parts;
  parts.s = sign;

  // Digits run from `from` to `end`, skipping the point; integer digits are preceded by zeros up
  // to a whole word, so that words align on the point.
  let from: number;
  let count: number;
  if (lead < intEnd) {
    const intDigits = intEnd - lead;
    parts.e = intDigits - 1;
    from = lead;
    count = (WORD_DIGITS - (intDigits % WORD_DIGITS)) % WORD_DIGITS;
  } else {
    let nonZero = fracStart;
    while (nonZero < end && text.charCodeAt(nonZero) === DIGIT_0) nonZero++;
    if (nonZero >= end) return x; // zero: ZERO's parts, with the sign written
    parts.e = fracStart - nonZero - 1;
    from = fracStart + WORD_DIGITS * Math.floor((nonZero - fracStart) / WORD_DIGITS);
    count = 0;
  }
  let words = 0;
  let word = 0;
  for (let k = from; k < end; k++) {
    if (k === intEnd) continue;
    word = word * 10 + text.charCodeAt(k) - DIGIT_0;
    if (++count === WORD_DIGITS) {
      SCRATCH[words++] = word;
      word = 0;
      count = 0;
    }
  }
  if (count > 0) SCRATCH[words++] = word * POW10[WORD_DIGITS - count];
  while (SCRATCH[words - 1] === 0) words--;
  // An array of exactly the words' length: the value keeps it.
  parts.d = SCRATCH.slice(0, words);
  return x;
}

/** The invariant text of a decimal as .NET prints it: exact digits, the value's scale, no exponent. */
export function decimalText(d: Decimal): string {
  return d instanceof ScaledDecimal ? d.toFixed(d.scale) : d.toFixed();
}

const WORD = 1e7;

/** The words of `n` (an exact integer) in base 1e7, most significant first, into SCRATCH from `at`; the new end. */
function integerWords(n: number, at: number): number {
  const start = at;
  while (n > 0) {
    const word = n % WORD;
    SCRATCH[at++] = word;
    n = (n - word) / WORD;
  }
  // Collected least significant first.
  for (let i = start, j = at - 1; i < j; i++, j--) {
    const t = SCRATCH[i];
    SCRATCH[i] = SCRATCH[j];
    SCRATCH[j] = t;
  }
  return at;
}

/**
 * `unscaled / 10^scale` printing with `scale` decimals, as `parseDecimal` reads its text, built from
 * the integer's words without text (a typed decimal column's cell, read once per row by writers and
 * expressions). `unscaled` is an exact integer below 2^53 in magnitude and `scale` at most 22 (10^22
 * is the largest power of ten a double holds exactly).
 */
export function decimalFromUnscaled(unscaled: number, scale: number): Decimal {
  const negative = unscaled < 0;
  const a = negative ? -unscaled : unscaled;
  if (a === 0) return withScale(new Decimal(negative ? '-0' : '0'), scale);
  const words = unscaledWords(a, scale);
  return decimalFromParts(negative ? -1 : 1, UNSCALED.e, SCRATCH.slice(0, words), scale > UNSCALED.places ? scale : -1);
}

/**
 * What `unscaledWords` found besides the words: decimal.js's exponent of the leading digit, and how
 * many decimals are left once trailing zeros are dropped.
 */
export const UNSCALED = { e: 0, places: 0 };

/**
 * The digit words decimal.js holds for `a / 10^scale` (`a` a positive exact integer, `scale` at most
 * 22), in `UNSCALED_WORDS` from 0; their count is returned, the exponent left in `UNSCALED.e`. Change
 * detection hashes and keys a typed decimal column's cells from these without making a Decimal.
 */
export function unscaledWords(a: number, scale: number): number {
  const unit = POW10_EXACT[scale];
  const fraction = a % unit;
  const integer = (a - fraction) / unit;
  let words = integerWords(integer, 0);
  if (integer > 0) {
    UNSCALED.e = String(integer).length - 1;
  } else {
    // The exponent of the leading digit: -(zeros after the point + 1).
    UNSCALED.e = String(fraction).length - scale - 1;
  }
  // Fraction words: each covers the next 7 decimals, padded with zeros past the last one.
  let places = fraction === 0 ? 0 : scale;
  let rest = fraction;
  while (rest > 0 && rest % 10 === 0) {
    rest /= 10;
    places--;
  }
  for (let digit = 0; digit < places; digit += WORD_DIGITS) {
    const below = places - digit - WORD_DIGITS;
    let word: number;
    if (below >= 0) {
      const div = POW10_EXACT[below];
      const low = rest % div;
      word = ((rest - low) / div) % WORD;
    } else {
      word = (rest % POW10_EXACT[places - digit]) * POW10_EXACT[-below];
    }
    if (words === 0 && word === 0) continue; // no leading zero word
    SCRATCH[words++] = word;
  }
  while (SCRATCH[words - 1] === 0) words--;
  UNSCALED.places = places;
  return words;
}

/** The words `unscaledWords` leaves (valid until its next call). */
export const UNSCALED_WORDS: readonly number[] = SCRATCH;

/** 10^0 … 10^22: every power of ten a double holds exactly. */
const POW10_EXACT = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/** The largest scale `unscaledWords` takes. */
export const UNSCALED_MAX_SCALE = POW10_EXACT.length - 1;

/** What `unscaledOfParts` found: the exact unscaled integer and the scale the value prints with. */
export const OF_PARTS = { unscaled: 0, scale: 0 };

/** The most significant digits of an unscaled double (below 2^53 it has at most 16). */
const MAX_UNSCALED_DIGITS = 16;

/**
 * The inverse of `unscaledWords`: the finite decimal of decimal.js parts (sign, exponent `e`, the
 * words `words[from]` … `words[from + count - 1]`, the carried scale or -1) as `unscaled / 10^scale`,
 * written into OF_PARTS, with the scale it prints with (the carried one, else its decimals). False
 * when that form would not give the same value back (decimalFromUnscaled): an unscaled integer of
 * 2^53 or more, a negative zero, a scale above `maxScale`, or a carried scale no larger than the
 * decimals. Every partial sum below is smaller than the result, so exact when the result is below
 * 2^53; a result of 2^53 or more rounds to 2^53 or more, and is refused.
 */
export function unscaledOfParts(
  negative: boolean,
  e: number,
  words: ArrayLike<number>,
  from: number,
  count: number,
  carried: number,
  maxScale: number,
): boolean {
  const last = words[from + count - 1];
  if (count === 1 && last === 0) {
    // Zero (decimal.js holds it as one zero word).
    if (negative || carried === 0 || carried > maxScale) return false;
    OF_PARTS.unscaled = 0;
    OF_PARTS.scale = Math.max(carried, 0);
    return true;
  }
  // decimal.js drops trailing zero words; a file holding one anyway (written by something else) is
  // left to decimalFromParts rather than stripped here, where a zero word would never stop the loop.
  if (last === 0) return false;
  // Words align on the point: word k's last digit is worth 10^(7 * (lead - k)).
  const lead = Math.floor(e / WORD_DIGITS);
  let tail = last;
  let zeros = 0;
  while (tail % 10 === 0) {
    tail /= 10;
    zeros++;
  }
  // The value is n * 10^low, n the digits from the leading to the last non-zero one.
  const low = WORD_DIGITS * (lead - count + 1) + zeros;
  if (e - low + 1 > MAX_UNSCALED_DIGITS) return false;
  let n = 0;
  for (let k = 0; k < count - 1; k++) n = n * WORD + words[from + k];
  n = n * POW10_EXACT[WORD_DIGITS - zeros] + tail;
  const places = Math.max(-low, 0);
  if (carried >= 0 && carried <= places) return false;
  const scale = carried >= 0 ? carried : places;
  if (scale > maxScale || low + scale > MAX_UNSCALED_DIGITS) return false;
  const unscaled = n * POW10_EXACT[low + scale];
  if (unscaled > Number.MAX_SAFE_INTEGER) return false;
  OF_PARTS.unscaled = negative ? -unscaled : unscaled;
  OF_PARTS.scale = scale;
  return true;
}
