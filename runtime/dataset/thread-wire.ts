import type Decimal from 'decimal.js';
import { decimalText, parseDecimal } from './decimal-scale';
import type { ColumnType, Value } from './types';
import { atOnce } from '../util/turn';
import {
  BigIntVector,
  bitAt,
  BoolVector,
  DateVector,
  DecimalVector,
  NumberVector,
  ValuesVector,
  type Vector,
} from './vector';

/**
 * A dataset column as it goes to or comes from a worker thread. Posting copies every array element and
 * string by itself (a million strings cost seconds), so typed storage travels as typed arrays and text
 * as one string with its cells' ends; other cells as they are. Two ways to send the arrays:
 * - by transfer (`transferables`): arrays made for the post (the Parquet thread's decoded columns),
 *   moved, not copied;
 * - in shared memory (`copyColumn` into an arena): arrays the sender keeps (the CDC diff thread reads a
 *   dataset's columns while the calling thread works on them), copied once into memory both threads see.
 * The receiving side makes a column of it at no cost (`fromThread`).
 */
export type ThreadColumn =
  | TypedColumn
  | { kind: 'text'; text: string; ends: Uint32Array; nulls?: Uint8Array }
  | { kind: 'values'; values: Value[] };

/** A column with typed storage: a vector's own arrays. */
export type TypedColumn =
  | { kind: 'number'; data: Int32Array | Float64Array | Float32Array; nulls?: Uint8Array }
  | { kind: 'bigint'; data: BigInt64Array; nulls?: Uint8Array }
  | { kind: 'date'; data: Float64Array; nulls?: Uint8Array }
  | { kind: 'bool'; data: Uint8Array; length: number; nulls?: Uint8Array }
  | { kind: 'decimal'; data: Float64Array; scale: number | Uint8Array; nulls?: Uint8Array };

export type TypedArray = Int32Array | Float64Array | Float32Array | BigInt64Array | Uint8Array | Uint32Array;

/** The longest string the text form joins: below V8's string limit (2^29 characters), with room. */
const MAX_TEXT = 1 << 28;

/** A column of `type` made of `values`, for a transfer (the arrays are new). */
export function toThread(type: ColumnType, values: Value[]): ThreadColumn {
  if (isText(type)) return atOnce(textInSlices(new ValuesVector(values))) ?? { kind: 'values', values };
  const nulls = nullBits(values);
  switch (type.base) {
    case 'int':
    case 'short':
    case 'tinyint':
      return { kind: 'number', data: filled(new Int32Array(values.length), values, 0), nulls };
    case 'double':
      return { kind: 'number', data: filled(new Float64Array(values.length), values, 0), nulls };
    case 'float':
      return { kind: 'number', data: filled(new Float32Array(values.length), values, 0), nulls };
    case 'long':
      return { kind: 'bigint', data: filled(new BigInt64Array(values.length), values, 0n), nulls };
    case 'datetime': {
      const ms = new Float64Array(values.length);
      values.forEach((v, r) => (ms[r] = v === null ? 0 : (v as Date).getTime()));
      return { kind: 'date', data: ms, nulls };
    }
    default:
      return { kind: 'values', values };
  }
}

/** Cells of a column of `type` for a post: a Decimal cannot be posted, so decimals go as their text with their scale. */
export function postable(type: ColumnType, values: Value[]): ThreadColumn {
  if (type.base !== 'decimal') return toThread(type, values);
  return { kind: 'values', values: values.map((v) => (v === null ? null : decimalText(v as Decimal))) };
}

/** The cells of a posted column of `type` (`postable`, `typedColumn`): decimals parsed back with their scale. */
export function received(type: ColumnType, c: ThreadColumn): Vector | Value[] {
  const cells = fromThread(c);
  if (type.base !== 'decimal' || !Array.isArray(cells)) return cells;
  return cells.map((v) => (v === null ? null : parseDecimal(v as string)));
}

/** A vector's typed storage as a column (its own arrays, not copied); undefined for a vector without. */
export function typedColumn(v: Vector): TypedColumn | undefined {
  const nulls = 'nulls' in v && v.nulls instanceof Uint8Array ? { nulls: v.nulls } : {};
  if (v instanceof NumberVector) return { kind: 'number', data: v.data, ...nulls };
  if (v instanceof BigIntVector) return { kind: 'bigint', data: v.data, ...nulls };
  if (v instanceof DateVector) return { kind: 'date', data: v.ms, ...nulls };
  if (v instanceof BoolVector) return { kind: 'bool', data: v.bits, length: v.length, ...nulls };
  if (v instanceof DecimalVector) return { kind: 'decimal', data: v.unscaled, scale: v.scale, ...nulls };
  return undefined;
}

/** The typed arrays a column holds: what a transfer moves, what an arena must have room for. */
export function columnArrays(c: ThreadColumn): TypedArray[] {
  const arrays = [
    'data' in c ? c.data : undefined,
    'ends' in c ? c.ends : undefined,
    'scale' in c && typeof c.scale !== 'number' ? c.scale : undefined,
    c.kind === 'values' ? undefined : c.nulls,
  ];
  return arrays.filter((a) => a !== undefined);
}

/** What a post of `c` may move rather than copy. */
export function transferables(c: ThreadColumn): ArrayBuffer[] {
  return columnArrays(c).map((a) => a.buffer as ArrayBuffer);
}

/** The same column with each of its arrays replaced by what `copy` gives for it (its place in shared memory). */
export function copyColumn(c: TypedColumn, copy: <T extends TypedArray>(a: T) => T): TypedColumn {
  const copied = { ...c, data: copy(c.data) } as TypedColumn;
  if (c.nulls) copied.nulls = copy(c.nulls);
  if (copied.kind === 'decimal' && typeof copied.scale !== 'number') copied.scale = copy(copied.scale);
  return copied;
}

/** The vector a typed column holds (same storage, same cells). */
export function vectorOfColumn(c: TypedColumn): Vector {
  switch (c.kind) {
    case 'number':
      return new NumberVector(c.data, c.nulls);
    case 'bigint':
      return new BigIntVector(c.data, c.nulls);
    case 'date':
      return new DateVector(c.data, c.nulls);
    case 'bool':
      return new BoolVector(c.data, c.length, c.nulls);
    case 'decimal':
      return new DecimalVector(c.data, c.scale, c.nulls);
  }
}

/** The column's cells as the receiving thread keeps them: a vector of typed storage, else values. */
export function fromThread(c: ThreadColumn): Vector | Value[] {
  switch (c.kind) {
    case 'text': {
      const out = new Array<Value>(c.ends.length);
      let start = 0;
      for (let r = 0; r < out.length; r++) {
        const end = c.ends[r];
        out[r] = c.nulls && bitAt(c.nulls, r) ? null : c.text.substring(start, end);
        start = end;
      }
      return out;
    }
    case 'values':
      return c.values;
    default:
      return vectorOfColumn(c);
  }
}

/** Bit r set where cell r is null; undefined when none is. */
function nullBits(values: Value[]): Uint8Array | undefined {
  let bits: Uint8Array | undefined;
  values.forEach((v, r) => {
    if (v !== null) return;
    bits ??= new Uint8Array((values.length + 7) >>> 3);
    bits[r >>> 3] |= 1 << (r & 7);
  });
  return bits;
}

function filled<T extends Int32Array | Float64Array | Float32Array | BigInt64Array>(
  into: T,
  values: Value[],
  empty: T[number],
): T {
  values.forEach((v, r) => (into[r] = v === null ? empty : (v as T[number])));
  return into;
}

/** Whether the cells of `type` are strings, which go joined into one (`textInSlices`). */
export function isText(type: ColumnType): boolean {
  return type.base === 'string' || type.base === 'char' || type.base === 'guid';
}

/** Cells joined between two yields of `textInSlices`. */
const TEXT_SLICE = 1 << 16;

/**
 * The text cells of `cells` as one string and where each ends; undefined when it would be too long
 * for one. Joined a slice of TEXT_SLICE cells at a time, yielding between (a million cells take half
 * a second to join on a loaded machine): a job run in turns (util/turn.ts) gives the event loop its
 * turns there.
 */
export function* textInSlices(cells: Vector): Generator<void, ThreadColumn | undefined> {
  const ends = new Uint32Array(cells.length);
  let nulls: Uint8Array | undefined;
  const pieces: string[] = [];
  let length = 0;
  for (let start = 0; start < cells.length; start += TEXT_SLICE) {
    if (start > 0) yield;
    const slice = new Array<string>(Math.min(TEXT_SLICE, cells.length - start));
    for (let k = 0; k < slice.length; k++) {
      const r = start + k;
      const v = cells.get(r) as string | null;
      if (v === null) {
        nulls ??= new Uint8Array((cells.length + 7) >>> 3);
        nulls[r >>> 3] |= 1 << (r & 7);
      }
      slice[k] = v ?? '';
      length += slice[k].length;
      ends[r] = length;
    }
    if (length > MAX_TEXT) return undefined;
    pieces.push(slice.join(''));
  }
  return { kind: 'text', text: pieces.join(''), ends, nulls };
}
