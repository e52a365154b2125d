import type Decimal from 'decimal.js';
import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { familyOf, type Family } from './families';

/**
 * A 64-bit hash of each row's observed values, compared with the state's to tell an update: two
 * independent 32-bit lanes (murmur3's block mix and xxHash32's round) fed the same 32-bit words.
 * The words come from the typed values, never from their text (formatting numbers costs more than
 * all the hashing, docs/changelog.md), and say what they are, so that the words of a row decode back to
 * its values: a null is the word 0; an int64, a float64's bits or a date's getTime() are a tag word
 * and two words; a string is its length + 1 and its UTF-16 units two to a word; a decimal its sign
 * (never 0), exponent, and digit words; a bool 1 or 2. Hence null and '' differ, 1 and 1.0 of a
 * decimal do not, and an int and a long of the same value agree. Words that differ always give
 * lanes that differ when only one word changed (each step is a bijection of the lane); otherwise a
 * change goes unseen only when both lanes collide, about 2^-64 per changed row.
 *
 * Columns are hashed one after the other over all rows: each loop sees one representation, and
 * the two lanes live in typed arrays between columns.
 */
export interface RowHashes {
  h1: Int32Array;
  h2: Int32Array;
}

const SEED1 = 0x2545f491;
const SEED2 = 0x61c88647;
const NULL_WORD = 0;
const VALUE_WORD = 0x76616c75;
const TWO_32 = 4294967296;

const F64 = new Float64Array(1);
const F64_WORDS = new Int32Array(F64.buffer);

function m1(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  h ^= Math.imul(k, 0x1b873593);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function m2(h: number, k: number): number {
  h = (h + Math.imul(k, 0x85ebca77)) | 0;
  h = (h << 13) | (h >>> 19);
  return Math.imul(h, 0x9e3779b1);
}

type ColumnHasher = (values: readonly Value[], h1: Int32Array, h2: Int32Array) => void;

function hashIntegers(values: readonly Value[], h1: Int32Array, h2: Int32Array): void {
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    let a = h1[r];
    let b = h2[r];
    if (v === null) {
      a = m1(a, NULL_WORD);
      b = m2(b, NULL_WORD);
    } else {
      let lo: number;
      let hi: number;
      const n = Number(v as number | bigint);
      if (Number.isSafeInteger(n)) {
        lo = n | 0;
        hi = Math.floor(n / TWO_32) | 0;
      } else {
        const big = BigInt(v as number | bigint);
        lo = Number(BigInt.asIntN(32, big));
        hi = Number(BigInt.asIntN(32, big >> 32n));
      }
      a = m1(m1(m1(a, VALUE_WORD), lo), hi);
      b = m2(m2(m2(b, VALUE_WORD), lo), hi);
    }
    h1[r] = a;
    h2[r] = b;
  }
}

/** Floats: the bits of the float64, -0 as 0, every NaN alike. */
function hashFloats(values: readonly Value[], h1: Int32Array, h2: Int32Array): void {
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    let a = h1[r];
    let b = h2[r];
    if (v === null) {
      a = m1(a, NULL_WORD);
      b = m2(b, NULL_WORD);
    } else {
      const n = v as number;
      F64[0] = n === 0 ? 0 : n === n ? n : NaN;
      const lo = F64_WORDS[0];
      const hi = F64_WORDS[1];
      a = m1(m1(m1(a, VALUE_WORD), lo), hi);
      b = m2(m2(m2(b, VALUE_WORD), lo), hi);
    }
    h1[r] = a;
    h2[r] = b;
  }
}

/**
 * Dates: as hashFloats on getTime(). Not one function for both: a loop that reads a number array
 * and a Date array is polymorphic, and then boxes each double it reads.
 */
function hashDates(values: readonly Value[], h1: Int32Array, h2: Int32Array): void {
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    let a = h1[r];
    let b = h2[r];
    if (v === null) {
      a = m1(a, NULL_WORD);
      b = m2(b, NULL_WORD);
    } else {
      const n = (v as Date).getTime();
      F64[0] = n === n ? n : NaN;
      const lo = F64_WORDS[0];
      const hi = F64_WORDS[1];
      a = m1(m1(m1(a, VALUE_WORD), lo), hi);
      b = m2(m2(m2(b, VALUE_WORD), lo), hi);
    }
    h1[r] = a;
    h2[r] = b;
  }
}

function hashBools(values: readonly Value[], h1: Int32Array, h2: Int32Array): void {
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    const k = v === null ? NULL_WORD : v ? 1 : 2;
    h1[r] = m1(h1[r], k);
    h2[r] = m2(h2[r], k);
  }
}

/** decimal.js's documented representation: sign, exponent, base-1e7 digit words without trailing zero words. */
interface DecimalParts {
  s: number;
  e: number;
  d: number[] | null;
}

function hashDecimals(values: readonly Value[], h1: Int32Array, h2: Int32Array): void {
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    let a = h1[r];
    let b = h2[r];
    if (v === null) {
      a = m1(a, NULL_WORD);
      b = m2(b, NULL_WORD);
    } else {
      const { s, e, d } = v as Decimal as unknown as DecimalParts;
      // d is null for NaN and ±Infinity; a zero's sign is not part of its value.
      // The sign word is never NULL_WORD: 1 or -1, 2 to 4 for NaN and ±Infinity (d null).
      const sign = d === null ? (s === s ? s : 0) + 3 : d[0] === 0 ? 1 : s;
      const words = d === null ? 0 : d.length;
      a = m1(m1(m1(a, sign), e), words);
      b = m2(m2(m2(b, sign), e), words);
      for (let i = 0; i < words; i++) {
        a = m1(a, d![i]);
        b = m2(b, d![i]);
      }
    }
    h1[r] = a;
    h2[r] = b;
  }
}

function hashTexts(values: readonly Value[], h1: Int32Array, h2: Int32Array): void {
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    let a = h1[r];
    let b = h2[r];
    if (v === null) {
      a = m1(a, NULL_WORD);
      b = m2(b, NULL_WORD);
    } else {
      const s = v as string;
      const n = s.length;
      a = m1(a, n + 1);
      b = m2(b, n + 1);
      let i = 0;
      for (; i + 1 < n; i += 2) {
        const k = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
        a = m1(a, k);
        b = m2(b, k);
      }
      if (i < n) {
        const k = s.charCodeAt(i);
        a = m1(a, k);
        b = m2(b, k);
      }
    }
    h1[r] = a;
    h2[r] = b;
  }
}

function hashByteArrays(values: readonly Value[], h1: Int32Array, h2: Int32Array): void {
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    let a = h1[r];
    let b = h2[r];
    if (v === null) {
      a = m1(a, NULL_WORD);
      b = m2(b, NULL_WORD);
    } else {
      const bytes = v as Uint8Array;
      const n = bytes.length;
      a = m1(a, n + 1);
      b = m2(b, n + 1);
      for (let i = 0; i < n; i += 4) {
        const k = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
        a = m1(a, k);
        b = m2(b, k);
      }
    }
    h1[r] = a;
    h2[r] = b;
  }
}

const HASHERS: Record<Family, ColumnHasher> = {
  integer: hashIntegers,
  float: hashFloats,
  datetime: hashDates,
  bool: hashBools,
  decimal: hashDecimals,
  text: hashTexts,
  bytes: hashByteArrays,
};

/** The hash of every row of `ds` over the columns `ordinals`, taken in that order. */
export function hashRows(ds: Dataset, ordinals: readonly number[]): RowHashes {
  const h1 = new Int32Array(ds.rowCount).fill(SEED1);
  const h2 = new Int32Array(ds.rowCount).fill(SEED2);
  for (const c of ordinals) HASHERS[familyOf(ds.columns[c].type.base)](ds.column(c), h1, h2);
  return { h1, h2 };
}
