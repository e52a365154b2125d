import type Decimal from 'decimal.js';
import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { atOnce } from '../util/turn';
import {
  BigIntVector,
  bitAt,
  BoolVector,
  DateVector,
  DecimalVector,
  DictionaryVector,
  NumberVector,
  type Vector,
} from '../dataset/vector';
import { cellWords, partsOf, signOf } from './decimal-parts';
import { familyOf, type Family } from './families';
import { INT64, int64Words, splitInt64 } from './int64';

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
 * change goes unseen only when both lanes collide, about 2^-64 per changed row. The two lanes of a
 * row sit side by side, so comparing a row with a state entry found by key costs one memory access.
 */

const SEED1 = 0x2545f491;
const SEED2 = 0x61c88647;
const NULL_WORD = 0;
const VALUE_WORD = 0x76616c75;

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

/** Mixes rows from … to - 1 of a column into their lanes: hashes[2r] and hashes[2r + 1]. */
type ColumnHasher = (values: readonly Value[], hashes: Int32Array, from: number, to: number) => void;

function hashIntegers(values: readonly Value[], hashes: Int32Array, from: number, to: number): void {
  for (let r = from; r < to; r++) {
    const v = values[r];
    let a = hashes[2 * r];
    let b = hashes[2 * r + 1];
    if (v === null) {
      a = m1(a, NULL_WORD);
      b = m2(b, NULL_WORD);
    } else {
      splitInt64(v as number | bigint);
      const lo = INT64[0];
      const hi = INT64[1];
      a = m1(m1(m1(a, VALUE_WORD), lo), hi);
      b = m2(m2(m2(b, VALUE_WORD), lo), hi);
    }
    hashes[2 * r] = a;
    hashes[2 * r + 1] = b;
  }
}

/** Floats: the bits of the float64, -0 as 0, every NaN alike. */
function hashFloats(values: readonly Value[], hashes: Int32Array, from: number, to: number): void {
  for (let r = from; r < to; r++) {
    const v = values[r];
    let a = hashes[2 * r];
    let b = hashes[2 * r + 1];
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
    hashes[2 * r] = a;
    hashes[2 * r + 1] = b;
  }
}

/**
 * Dates: as hashFloats on getTime(). Not one function for both: a loop that reads a number array
 * and a Date array is polymorphic, and then boxes each double it reads.
 */
function hashDates(values: readonly Value[], hashes: Int32Array, from: number, to: number): void {
  for (let r = from; r < to; r++) {
    const v = values[r];
    let a = hashes[2 * r];
    let b = hashes[2 * r + 1];
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
    hashes[2 * r] = a;
    hashes[2 * r + 1] = b;
  }
}

function hashBools(values: readonly Value[], hashes: Int32Array, from: number, to: number): void {
  for (let r = from; r < to; r++) {
    const v = values[r];
    const k = v === null ? NULL_WORD : v ? 1 : 2;
    hashes[2 * r] = m1(hashes[2 * r], k);
    hashes[2 * r + 1] = m2(hashes[2 * r + 1], k);
  }
}

function hashDecimals(values: readonly Value[], hashes: Int32Array, from: number, to: number): void {
  for (let r = from; r < to; r++) {
    const v = values[r];
    let a = hashes[2 * r];
    let b = hashes[2 * r + 1];
    if (v === null) {
      a = m1(a, NULL_WORD);
      b = m2(b, NULL_WORD);
    } else {
      const parts = partsOf(v as Decimal);
      const d = parts.d;
      const sign = signOf(parts); // never NULL_WORD
      const e = d === null ? 0 : parts.e;
      const words = d === null ? 0 : d.length;
      a = m1(m1(m1(a, sign), e), words);
      b = m2(m2(m2(b, sign), e), words);
      for (let i = 0; i < words; i++) {
        a = m1(a, d![i]);
        b = m2(b, d![i]);
      }
    }
    hashes[2 * r] = a;
    hashes[2 * r + 1] = b;
  }
}

function hashTexts(values: readonly Value[], hashes: Int32Array, from: number, to: number): void {
  for (let r = from; r < to; r++) {
    const v = values[r];
    let a = hashes[2 * r];
    let b = hashes[2 * r + 1];
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
    hashes[2 * r] = a;
    hashes[2 * r + 1] = b;
  }
}

function hashByteArrays(values: readonly Value[], hashes: Int32Array, from: number, to: number): void {
  for (let r = from; r < to; r++) {
    const v = values[r];
    let a = hashes[2 * r];
    let b = hashes[2 * r + 1];
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
    hashes[2 * r] = a;
    hashes[2 * r + 1] = b;
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

/**
 * Mixes rows from … to - 1 of one column into their lanes. Objects of a class per storage, not
 * closures: TurboFan inlines a call into the closure it has seen there, and the closures of the
 * next diff (new ones) made it throw that code away ("wrong call target") every diff, where the
 * instances of a class share their method.
 */
interface BlockHasher {
  run(hashes: Int32Array, from: number, to: number): void;
}

/**
 * The hasher of a column read from its storage (vector.ts) without making a value per cell; the
 * words are those of the value each cell reads as, so a typed column and the same values in an
 * array hash alike. Storage without a reader of its own is read as values.
 */
function blockHasher(vector: Vector, family: Family): BlockHasher {
  if (family === 'integer' && vector instanceof NumberVector && vector.data instanceof Int32Array)
    return new Int32Hasher(vector.data, vector.nulls);
  const longs = family === 'integer' && vector instanceof BigIntVector ? int64Words(vector.data) : undefined;
  if (longs) return new Int64Hasher(longs, (vector as BigIntVector).nulls);
  if (family === 'float' && vector instanceof NumberVector && !(vector.data instanceof Int32Array))
    return new DoubleHasher(vector.data, vector.nulls, true);
  if (family === 'datetime' && vector instanceof DateVector) return new DoubleHasher(vector.ms, vector.nulls, false);
  if (family === 'bool' && vector instanceof BoolVector) return new BoolHasher(vector.bits, vector.nulls);
  if (family === 'decimal' && vector instanceof DecimalVector) return new UnscaledHasher(vector);
  if (family === 'text' && vector instanceof DictionaryVector) return new CodeHasher(vector);
  return new ValuesHasher(vector.values(), HASHERS[family]);
}

class ValuesHasher implements BlockHasher {
  constructor(
    private readonly values: readonly Value[],
    private readonly hasher: ColumnHasher,
  ) {}

  run(hashes: Int32Array, from: number, to: number): void {
    this.hasher(this.values, hashes, from, to);
  }
}

class Int32Hasher implements BlockHasher {
  constructor(
    private readonly data: Int32Array,
    private readonly nulls: Uint8Array | undefined,
  ) {}

  run(hashes: Int32Array, from: number, to: number): void {
    const { data, nulls } = this;
    for (let r = from; r < to; r++) {
      let a = hashes[2 * r];
      let b = hashes[2 * r + 1];
      if (nulls && bitAt(nulls, r)) {
        a = m1(a, NULL_WORD);
        b = m2(b, NULL_WORD);
      } else {
        const lo = data[r];
        const hi = lo >> 31;
        a = m1(m1(m1(a, VALUE_WORD), lo), hi);
        b = m2(m2(m2(b, VALUE_WORD), lo), hi);
      }
      hashes[2 * r] = a;
      hashes[2 * r + 1] = b;
    }
  }
}

/** `words`: the int64s' low and high halves, two to a cell. */
class Int64Hasher implements BlockHasher {
  constructor(
    private readonly words: Int32Array,
    private readonly nulls: Uint8Array | undefined,
  ) {}

  run(hashes: Int32Array, from: number, to: number): void {
    const { words, nulls } = this;
    for (let r = from; r < to; r++) {
      let a = hashes[2 * r];
      let b = hashes[2 * r + 1];
      if (nulls && bitAt(nulls, r)) {
        a = m1(a, NULL_WORD);
        b = m2(b, NULL_WORD);
      } else {
        const lo = words[2 * r];
        const hi = words[2 * r + 1];
        a = m1(m1(m1(a, VALUE_WORD), lo), hi);
        b = m2(m2(m2(b, VALUE_WORD), lo), hi);
      }
      hashes[2 * r] = a;
      hashes[2 * r + 1] = b;
    }
  }
}

/** Floats as hashFloats, and datetimes' milliseconds as hashDates (`zero`: -0 is hashed as 0). */
class DoubleHasher implements BlockHasher {
  constructor(
    private readonly data: Float64Array | Float32Array,
    private readonly nulls: Uint8Array | undefined,
    private readonly zero: boolean,
  ) {}

  run(hashes: Int32Array, from: number, to: number): void {
    const { data, nulls, zero } = this;
    for (let r = from; r < to; r++) {
      let a = hashes[2 * r];
      let b = hashes[2 * r + 1];
      if (nulls && bitAt(nulls, r)) {
        a = m1(a, NULL_WORD);
        b = m2(b, NULL_WORD);
      } else {
        const n = data[r];
        F64[0] = zero && n === 0 ? 0 : n === n ? n : NaN;
        const lo = F64_WORDS[0];
        const hi = F64_WORDS[1];
        a = m1(m1(m1(a, VALUE_WORD), lo), hi);
        b = m2(m2(m2(b, VALUE_WORD), lo), hi);
      }
      hashes[2 * r] = a;
      hashes[2 * r + 1] = b;
    }
  }
}

class BoolHasher implements BlockHasher {
  constructor(
    private readonly bits: Uint8Array,
    private readonly nulls: Uint8Array | undefined,
  ) {}

  run(hashes: Int32Array, from: number, to: number): void {
    const { bits, nulls } = this;
    for (let r = from; r < to; r++) {
      const k = nulls && bitAt(nulls, r) ? NULL_WORD : bitAt(bits, r) ? 1 : 2;
      hashes[2 * r] = m1(hashes[2 * r], k);
      hashes[2 * r + 1] = m2(hashes[2 * r + 1], k);
    }
  }
}

/** Decimals from their unscaled integers, in the words hashDecimals takes from the Decimal of the cell. */
class UnscaledHasher implements BlockHasher {
  constructor(private readonly vector: DecimalVector) {}

  run(hashes: Int32Array, from: number, to: number): void {
    const { vector } = this;
    const { nulls } = vector;
    for (let r = from; r < to; r++) {
      let a = hashes[2 * r];
      let b = hashes[2 * r + 1];
      if (nulls && bitAt(nulls, r)) {
        a = m1(a, NULL_WORD);
        b = m2(b, NULL_WORD);
      } else {
        const d = cellWords(vector, r);
        a = m1(m1(m1(a, d.sign), d.e), d.words);
        b = m2(m2(m2(b, d.sign), d.e), d.words);
        for (let i = 0; i < d.words; i++) {
          a = m1(a, d.d[i]);
          b = m2(b, d.d[i]);
        }
      }
      hashes[2 * r] = a;
      hashes[2 * r + 1] = b;
    }
  }
}

/**
 * Dictionary text: each distinct string's words are worked out once (what hashTexts reads from it),
 * and a row mixes in the words of its code. Code 0 is null.
 */
class CodeHasher implements BlockHasher {
  private readonly codes: Uint8Array | Uint16Array | Uint32Array;
  private readonly starts: Int32Array;
  private readonly words: Int32Array;

  constructor({ codes, table }: DictionaryVector) {
    this.codes = codes;
    const starts = new Int32Array(table.length + 1);
    const all: number[] = [];
    for (let c = 0; c < table.length; c++) {
      const s = table[c];
      if (s === null) all.push(NULL_WORD);
      else {
        const n = s.length;
        all.push(n + 1);
        let i = 0;
        for (; i + 1 < n; i += 2) all.push(s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16));
        if (i < n) all.push(s.charCodeAt(i));
      }
      starts[c + 1] = all.length;
    }
    this.starts = starts;
    this.words = Int32Array.from(all);
  }

  run(hashes: Int32Array, from: number, to: number): void {
    const { codes, starts, words } = this;
    for (let r = from; r < to; r++) {
      let a = hashes[2 * r];
      let b = hashes[2 * r + 1];
      const code = codes[r];
      for (let i = starts[code], end = starts[code + 1]; i < end; i++) {
        a = m1(a, words[i]);
        b = m2(b, words[i]);
      }
      hashes[2 * r] = a;
      hashes[2 * r + 1] = b;
    }
  }
}

/**
 * Rows are hashed a block at a time, each column in turn over the block: one loop per column type,
 * and the block's cells stay in the cache from one column to the next, where whole columns one
 * after the other would fetch every cell from memory. Cells that are JS objects (strings, byte
 * arrays, and the values of storage without a reader of its own) are scattered over the heap: in
 * blocks of 8 rows, a diff's hashing of the bench's rows took 160 ms of CPU, 175 in blocks of 16, 232
 * in blocks of 512 (measured on arrays of values). Typed storage is read in order, and there the
 * calls per block cost more than the cache saves: its columns are hashed in blocks of 4096 rows (a
 * million rows of an int, a bool, a datetime and a double column: 40 ms in blocks of 4096, 46 in
 * blocks of 8).
 */
const OBJECT_BLOCK = 8;
const TYPED_BLOCK = 4096;

/** Seeds the lanes of every row, then mixes in the columns in order, `block` rows at a time. */
function hashColumns(hashers: readonly BlockHasher[], hashes: Int32Array, block = OBJECT_BLOCK): void {
  seed(hashes);
  // An int32 (hashes.length / 2 would be a double, and so would every row number compared with it).
  hashRows(hashers, hashes, 0, hashes.length >>> 1, block);
}

/** Mixes the columns into the lanes of rows `start` to `end` (seeded), `block` rows at a time. */
function hashRows(
  hashers: readonly BlockHasher[],
  hashes: Int32Array,
  start: number,
  end: number,
  block: number,
): void {
  for (let from = start; from < end; from += block) {
    const to = Math.min(from + block, end);
    for (let k = 0; k < hashers.length; k++) hashers[k].run(hashes, from, to);
  }
}

/**
 * A function of its own: in one with the loop over blocks, this loop was optimised on the stack
 * first, and the loop after it, not run yet, was then thrown away again at its first comparison.
 */
function seed(hashes: Int32Array): void {
  for (let i = 0; i < hashes.length; i += 2) {
    hashes[i] = SEED1;
    hashes[i + 1] = SEED2;
  }
}

function hashersOf(ds: Dataset, ordinals: readonly number[]): BlockHasher[] {
  return ordinals.map((c) => blockHasher(ds.vector(c), familyOf(ds.columns[c].type.base)));
}

/**
 * The row hashes of state format 1: every observed column mixed into one pair of lanes, in the
 * order `ordinals`; row r's lanes are hashes[2r] and hashes[2r + 1]. Only compared with the hashes
 * of a format 1 state (state.ts).
 */
export function hashRowsFormat1(ds: Dataset, ordinals: readonly number[]): Int32Array {
  const hashes = new Int32Array(2 * ds.rowCount);
  hashColumns(hashersOf(ds, ordinals), hashes);
  return hashes;
}

/** The lanes of the columns `vectors` (of `families`), as format 1 hashes them: the typed part of `rowHashes`, which the worker thread computes (diff-thread.ts). */
export function hashVectors(vectors: readonly Vector[], families: readonly Family[], hashes: Int32Array): void {
  hashColumns(
    vectors.map((v, k) => blockHasher(v, families[k])),
    hashes,
    TYPED_BLOCK,
  );
}

/** Families whose values are JS objects (strings, byte arrays), which only the thread holding them can read. */
const OBJECT_FAMILIES: ReadonlySet<Family> = new Set(['text', 'bytes']);

/** The observed columns whose values are typed (not text or bytes): the part another thread can hash. */
export function typedOrdinals(ds: Dataset, ordinals: readonly number[]): number[] {
  return ordinals.filter((c) => !OBJECT_FAMILIES.has(familyOf(ds.columns[c].type.base)));
}

/**
 * The row hashes of state format 2, in the layout of format 1. Two pairs of lanes are computed as
 * format 1's, each over part of the observed columns in the order `ordinals`: the text and bytes
 * columns (`objectLanes`), and the others, numbers, decimals, dates, bools (`typedLanes`); then
 * row r's lanes are m1 and m2 of the first pair's lanes with the second's as the word
 * (`combineLanes`). m1 and m2 are bijections of the word, so a change in either part changes both
 * lanes. Which part a column is in depends on its type family only, never on its storage, so a
 * column keeps its hashes when a source stores it otherwise. The typed part needs no JS object, so
 * a worker thread can compute it while this one computes the other (diff-thread.ts).
 */
export function rowHashes(ds: Dataset, ordinals: readonly number[]): Int32Array {
  return combineLanes(objectLanes(ds, ordinals), typedLanes(ds, ordinals));
}

export function objectLanes(ds: Dataset, ordinals: readonly number[]): Int32Array {
  return atOnce(objectLanesInSlices(ds, ordinals));
}

/** Rows of text hashed between two yields of `objectLanesInSlices` (a multiple of OBJECT_BLOCK). */
const SLICE_ROWS = 1 << 15;

/**
 * `objectLanes`, yielding after each slice of SLICE_ROWS rows: a CAPTURE gives the event loop a turn
 * there (a million rows of text take a second or more to hash).
 */
export function* objectLanesInSlices(ds: Dataset, ordinals: readonly number[]): Generator<void, Int32Array> {
  const hashes = new Int32Array(2 * ds.rowCount);
  const hashers = hashersOf(
    ds,
    ordinals.filter((c) => OBJECT_FAMILIES.has(familyOf(ds.columns[c].type.base))),
  );
  seed(hashes);
  for (let start = 0; start < ds.rowCount; start += SLICE_ROWS) {
    hashRows(hashers, hashes, start, Math.min(start + SLICE_ROWS, ds.rowCount), OBJECT_BLOCK);
    yield;
  }
  return hashes;
}

export function typedLanes(ds: Dataset, ordinals: readonly number[]): Int32Array {
  const typed = typedOrdinals(ds, ordinals);
  const hashes = new Int32Array(2 * ds.rowCount);
  hashVectors(
    typed.map((c) => ds.vector(c)),
    typed.map((c) => familyOf(ds.columns[c].type.base)),
    hashes,
  );
  return hashes;
}

/** The row hashes from the lanes of both parts, in `objects` (returned). */
export function combineLanes(objects: Int32Array, typed: Int32Array): Int32Array {
  for (let i = 0; i < objects.length; i += 2) {
    objects[i] = m1(objects[i], typed[i]);
    objects[i + 1] = m2(objects[i + 1], typed[i + 1]);
  }
  return objects;
}
