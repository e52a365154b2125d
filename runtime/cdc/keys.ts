import type Decimal from 'decimal.js';
import type { Dataset } from '../dataset/dataset';
import { formatValue } from '../dataset/format-value';
import type { ColumnType, Value } from '../dataset/types';
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
import { cellWords, fromParts, partsOf, signOf, type DecimalWords } from './decimal-parts';
import { familyOf, type Family } from './families';
import { INT64, int64Words, splitInt64 } from './int64';

/**
 * Record keys as canonical bytes. Two keys are the same record exactly when their bytes are equal, so
 * matching is a byte comparison, the state file stores the bytes as they are (loading decodes
 * nothing), and only the keys of deleted records are ever turned back into values.
 *
 * Each key column contributes a tag byte (0 null, else its family's tag) and, when not null:
 * - integer: the value as a little-endian int64 (a number and a bigint of equal value agree);
 * - float, datetime: the float64 (getTime() for dates); -0 is written as 0 and every NaN alike;
 * - decimal: sign, exponent and digit words of the value (decimal-parts.ts: "1.0" and "1" are one key);
 * - bool: one byte; text: u32 length in UTF-16 units + CESU-8 bytes; bytes: u32 length + bytes.
 * Nulls are a key value like any other (two null keys are the same record).
 */
export interface KeyStore {
  bytes: Uint8Array;
  /** Key i is bytes[offsets[i] .. offsets[i + 1]); offsets has one more element than there are keys. */
  offsets: Uint32Array;
}

const TAG_NULL = 0;
const TAGS: Record<Family, number> = { integer: 1, float: 2, decimal: 3, datetime: 4, bool: 5, text: 6, bytes: 7 };
const TWO_32 = 4294967296;

const F64 = new Float64Array(1);
const F64_BYTES = new Uint8Array(F64.buffer);

/** A growing byte buffer; `room(n)` before writing n bytes. */
class ByteWriter {
  bytes: Uint8Array;
  pos = 0;

  constructor(capacity: number) {
    this.bytes = new Uint8Array(Math.max(capacity, 64));
  }

  room(n: number): void {
    if (this.pos + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.pos + n));
    grown.set(this.bytes.subarray(0, this.pos));
    this.bytes = grown;
  }

  u32(n: number): void {
    const b = this.bytes;
    b[this.pos] = n;
    b[this.pos + 1] = n >>> 8;
    b[this.pos + 2] = n >>> 16;
    b[this.pos + 3] = n >>> 24;
    this.pos += 4;
  }

  f64(n: number): void {
    F64[0] = n === 0 ? 0 : n === n ? n : NaN;
    this.bytes.set(F64_BYTES, this.pos);
    this.pos += 8;
  }
}

type Write = (w: ByteWriter, v: Exclude<Value, null>) => void;

function writeInteger(w: ByteWriter, v: Exclude<Value, null>): void {
  w.room(9);
  w.bytes[w.pos++] = TAGS.integer;
  splitInt64(v as number | bigint);
  w.u32(INT64[0]);
  w.u32(INT64[1]);
}

function writeFloat(w: ByteWriter, v: Exclude<Value, null>): void {
  w.room(9);
  w.bytes[w.pos++] = TAGS.float;
  w.f64(v as number);
}

function writeDateTime(w: ByteWriter, v: Exclude<Value, null>): void {
  w.room(9);
  w.bytes[w.pos++] = TAGS.datetime;
  w.f64((v as Date).getTime());
}

function writeBool(w: ByteWriter, v: Exclude<Value, null>): void {
  w.room(2);
  w.bytes[w.pos++] = TAGS.bool;
  w.bytes[w.pos++] = v ? 1 : 0;
}

function writeDecimal(w: ByteWriter, v: Exclude<Value, null>): void {
  const parts = partsOf(v as Decimal);
  const words = parts.d ?? [];
  writeDecimalWords(w, signOf(parts), parts.d === null ? 0 : parts.e, words.length, words);
}

function writeDecimalWords(w: ByteWriter, sign: number, e: number, count: number, words: readonly number[]): void {
  w.room(10 + 4 * count);
  w.bytes[w.pos++] = TAGS.decimal;
  w.bytes[w.pos++] = sign + 1;
  w.u32(e);
  w.u32(count);
  for (let i = 0; i < count; i++) w.u32(words[i]);
}

function writeText(w: ByteWriter, v: Exclude<Value, null>): void {
  const s = v as string;
  w.room(5 + 3 * s.length);
  w.bytes[w.pos++] = TAGS.text;
  w.u32(s.length);
  const b = w.bytes;
  let p = w.pos;
  // CESU-8: each UTF-16 unit alone, so any string (lone surrogates included) round-trips.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) b[p++] = c;
    else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 63);
    } else {
      b[p++] = 0xe0 | (c >> 12);
      b[p++] = 0x80 | ((c >> 6) & 63);
      b[p++] = 0x80 | (c & 63);
    }
  }
  w.pos = p;
}

function writeBytes(w: ByteWriter, v: Exclude<Value, null>): void {
  const bytes = v as Uint8Array;
  w.room(5 + bytes.length);
  w.bytes[w.pos++] = TAGS.bytes;
  w.u32(bytes.length);
  w.bytes.set(bytes, w.pos);
  w.pos += bytes.length;
}

const WRITERS: Record<Family, Write> = {
  integer: writeInteger,
  float: writeFloat,
  datetime: writeDateTime,
  bool: writeBool,
  decimal: writeDecimal,
  text: writeText,
  bytes: writeBytes,
};

/** Writes one column's key bytes for row r, its null tag included. */
type CellWriter = (w: ByteWriter, r: number) => void;

function writeNull(w: ByteWriter): void {
  w.room(1);
  w.bytes[w.pos++] = TAG_NULL;
}

/**
 * The key writer of a column read from its storage (vector.ts) without making a value per cell,
 * writing what the value each cell reads as writes; storage without a reader of its own is read as values.
 */
function cellWriter(vector: Vector, family: Family): CellWriter {
  if (family === 'integer' && vector instanceof NumberVector && vector.data instanceof Int32Array) {
    const { data, nulls } = vector;
    return (w, r) => {
      if (nulls && bitAt(nulls, r)) return writeNull(w);
      w.room(9);
      w.bytes[w.pos++] = TAGS.integer;
      w.u32(data[r]);
      w.u32(data[r] >> 31);
    };
  }
  const longs = family === 'integer' && vector instanceof BigIntVector ? int64Words(vector.data) : undefined;
  if (longs) {
    const { nulls } = vector as BigIntVector;
    return (w, r) => {
      if (nulls && bitAt(nulls, r)) return writeNull(w);
      w.room(9);
      w.bytes[w.pos++] = TAGS.integer;
      w.u32(longs[2 * r]);
      w.u32(longs[2 * r + 1]);
    };
  }
  if (
    (family === 'float' && vector instanceof NumberVector) ||
    (family === 'datetime' && vector instanceof DateVector)
  ) {
    const data = vector instanceof DateVector ? vector.ms : vector.data;
    const nulls = vector.nulls;
    const tag = TAGS[family];
    return (w, r) => {
      if (nulls && bitAt(nulls, r)) return writeNull(w);
      w.room(9);
      w.bytes[w.pos++] = tag;
      w.f64(data[r]);
    };
  }
  if (family === 'bool' && vector instanceof BoolVector) {
    const { bits, nulls } = vector;
    return (w, r) => {
      if (nulls && bitAt(nulls, r)) return writeNull(w);
      w.room(2);
      w.bytes[w.pos++] = TAGS.bool;
      w.bytes[w.pos++] = bitAt(bits, r) ? 1 : 0;
    };
  }
  if (family === 'decimal' && vector instanceof DecimalVector) {
    const { nulls } = vector;
    return (w, r) => {
      if (nulls && bitAt(nulls, r)) return writeNull(w);
      const d: DecimalWords = cellWords(vector, r);
      writeDecimalWords(w, d.sign, d.e, d.words, d.d);
    };
  }
  if (family === 'text' && vector instanceof DictionaryVector) {
    // Each distinct string's bytes once; a row copies those of its code.
    const { codes, table } = vector;
    const encoded = table.map((s) => {
      const one = new ByteWriter(16);
      if (s === null) writeNull(one);
      else writeText(one, s);
      return one.bytes.slice(0, one.pos);
    });
    return (w, r) => {
      const bytes = encoded[codes[r]];
      w.room(bytes.length);
      w.bytes.set(bytes, w.pos);
      w.pos += bytes.length;
    };
  }
  const values = vector.values();
  const write = WRITERS[family];
  return (w, r) => {
    const v = values[r];
    if (v === null) writeNull(w);
    else write(w, v);
  };
}

/** Encodes the key of one row at a time: `bytes[0 .. length)` holds it until the next `encode`. */
export class KeyEncoder {
  private readonly writer = new ByteWriter(64);
  private readonly cells: CellWriter[];
  /** The cells of a key that is one int column without nulls, which `matches` compares in place. */
  private readonly ints: Int32Array | undefined;
  /** The row encoded, or -1. */
  private row = -1;
  length = 0;

  constructor(ds: Dataset, ordinals: readonly number[]) {
    this.cells = ordinals.map((c) => cellWriter(ds.vector(c), familyOf(ds.columns[c].type.base)));
    const only = ordinals.length === 1 ? ds.vector(ordinals[0]) : undefined;
    this.ints =
      only instanceof NumberVector &&
      only.data instanceof Int32Array &&
      !only.nulls &&
      familyOf(ds.columns[ordinals[0]].type.base) === 'integer'
        ? only.data
        : undefined;
  }

  /**
   * Whether row r's key is key i of `store`. An int key is compared with the stored bytes as it
   * would be written (tag, low and high halves), without writing it: most rows of a run match the
   * state entry after the last one matched, and writing their keys cost more than the comparison.
   */
  matches(r: number, store: KeyStore, i: number): boolean {
    const ints = this.ints;
    if (!ints) {
      if (this.row !== r) this.encode(r);
      return this.equals(store, i);
    }
    const p = store.offsets[i];
    if (store.offsets[i + 1] - p !== 9) return false;
    const b = store.bytes;
    const v = ints[r];
    return (
      b[p] === TAGS.integer &&
      (b[p + 1] | (b[p + 2] << 8) | (b[p + 3] << 16) | (b[p + 4] << 24)) === v &&
      (b[p + 5] | (b[p + 6] << 8) | (b[p + 7] << 16) | (b[p + 8] << 24)) === v >> 31
    );
  }

  get bytes(): Uint8Array {
    return this.writer.bytes;
  }

  encode(r: number): void {
    if (this.row === r) return;
    const w = this.writer;
    w.pos = 0;
    for (let k = 0; k < this.cells.length; k++) this.cells[k](w, r);
    this.length = w.pos;
    this.row = r;
  }

  /** Whether the encoded key is key i of `store`. */
  equals(store: KeyStore, i: number): boolean {
    let p = store.offsets[i];
    if (store.offsets[i + 1] - p !== this.length) return false;
    const x = store.bytes;
    const y = this.writer.bytes;
    for (let q = 0; q < this.length; q++) if (x[p++] !== y[q]) return false;
    return true;
  }

  hash(): number {
    return hashBytes(this.writer.bytes, 0, this.length);
  }
}

/** Keys appended one after the other (a run's new keys). */
export class KeyStoreBuilder implements KeyStore {
  private readonly writer: ByteWriter;
  offsets: Uint32Array;
  count = 0;

  constructor(expected: number) {
    this.writer = new ByteWriter(expected * 9);
    this.offsets = new Uint32Array(Math.max(expected, 16) + 1);
  }

  get bytes(): Uint8Array {
    return this.writer.bytes;
  }

  append(key: KeyEncoder): void {
    const w = this.writer;
    if (w.pos + key.length > 0xffffffff) throw new RangeError('CDC keys: more than 4 GB of key values');
    w.room(key.length);
    // Byte by byte: keys are short, and a subarray to copy from is an object per key.
    const from = key.bytes;
    const to = w.bytes;
    for (let i = 0; i < key.length; i++) to[w.pos + i] = from[i];
    w.pos += key.length;
    if (this.count + 2 > this.offsets.length) {
      const grown = new Uint32Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.offsets[++this.count] = w.pos;
  }

  /** The keys appended, in views of exactly their size. */
  store(): KeyStore {
    return { bytes: this.writer.bytes.subarray(0, this.writer.pos), offsets: this.offsets.subarray(0, this.count + 1) };
  }
}

/** Key i of `store`'s hash (see hashBytes). */
export function keyHash(store: KeyStore, i: number): number {
  return hashBytes(store.bytes, store.offsets[i], store.offsets[i + 1]);
}

/** A 32-bit hash of bytes (FNV-1a, then murmur3's finalizer to spread it into the low bits the table uses). */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let p = start; p < end; p++) h = Math.imul(h ^ bytes[p], 16777619);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Reads canonical key bytes back as values of the key columns' current types. */
class KeyReader {
  private pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  at(pos: number): this {
    this.pos = pos;
    return this;
  }

  value(type: ColumnType): Value {
    const tag = this.bytes[this.pos++];
    switch (tag) {
      case TAG_NULL:
        return null;
      case TAGS.integer: {
        const lo = this.u32();
        const hi = this.u32() | 0;
        if (type.base === 'long') return (BigInt(hi) << 32n) | BigInt(lo);
        return hi * TWO_32 + lo;
      }
      case TAGS.float:
        return this.f64();
      case TAGS.datetime:
        return new Date(this.f64());
      case TAGS.bool:
        return this.bytes[this.pos++] === 1;
      case TAGS.decimal: {
        const sign = this.bytes[this.pos++] - 1;
        const e = this.u32() | 0;
        const words = Array.from({ length: this.u32() }, () => this.u32());
        return fromParts(sign, e, words);
      }
      case TAGS.text:
        return this.text(this.u32());
      case TAGS.bytes:
        return this.take(this.u32()).slice();
      default:
        throw new Error(`CDC key: unknown tag ${tag}`);
    }
  }

  private u32(): number {
    const b = this.bytes;
    const p = this.pos;
    this.pos += 4;
    return (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0;
  }

  private f64(): number {
    F64_BYTES.set(this.bytes.subarray(this.pos, this.pos + 8));
    this.pos += 8;
    return F64[0];
  }

  private take(n: number): Uint8Array {
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  private text(units: number): string {
    const b = this.bytes;
    const codes = new Array<number>(units);
    for (let i = 0; i < units; i++) {
      const c = b[this.pos++];
      if (c < 0x80) codes[i] = c;
      else if (c < 0xe0) codes[i] = ((c & 31) << 6) | (b[this.pos++] & 63);
      else {
        codes[i] = ((c & 15) << 12) | ((b[this.pos] & 63) << 6) | (b[this.pos + 1] & 63);
        this.pos += 2;
      }
    }
    let s = '';
    for (let i = 0; i < units; i += 8192) s += String.fromCharCode(...codes.slice(i, i + 8192));
    return s;
  }
}

/** The values of keys `entries`, one array per key column (`types` in key order). */
export function decodeKeys(keys: KeyStore, entries: ArrayLike<number>, types: readonly ColumnType[]): Value[][] {
  const columns = types.map(() => new Array<Value>(entries.length));
  const reader = new KeyReader(keys.bytes);
  for (let k = 0; k < entries.length; k++) {
    reader.at(keys.offsets[entries[k]]);
    for (let c = 0; c < types.length; c++) columns[c][k] = reader.value(types[c]);
  }
  return columns;
}

/** A key as users write it in messages: `id=5, region='EU'`. */
export function describeKey(names: readonly string[], values: readonly Value[], types: readonly ColumnType[]): string {
  return names
    .map((name, k) => {
      const v = values[k];
      const text = v === null ? 'null' : formatValue(v, types[k]);
      return `${name}=${typeof v === 'string' ? `'${text.replace(/'/g, "''")}'` : text}`;
    })
    .join(', ');
}
