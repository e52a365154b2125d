import type { ColumnType, Value } from '../dataset/types';
import { BigIntVector, bitAt, DateVector, NumberVector, type Vector } from '../dataset/vector';

/**
 * A decoded column as the decoder thread posts it. Posting copies every array element and string by
 * itself (a million strings cost seconds), so numbers, longs and datetimes travel as typed arrays
 * (transferred, not copied) and text as one string with its cells' ends; other cells as they are.
 * The receiving side makes typed columns of them at no cost (dataset/vector.ts).
 */
export type WireColumn =
  | { kind: 'numbers'; data: Int32Array | Float64Array | Float32Array; nulls?: Uint8Array }
  | { kind: 'bigints'; data: BigInt64Array; nulls?: Uint8Array }
  | { kind: 'dates'; ms: Float64Array; nulls?: Uint8Array }
  | { kind: 'text'; text: string; ends: Uint32Array; nulls?: Uint8Array }
  | { kind: 'values'; values: Value[] };

/** The longest string the text form joins: below V8's string limit (2^29 characters), with room. */
const MAX_TEXT = 1 << 28;

export function toWire(type: ColumnType, values: Value[]): WireColumn {
  const nulls = nullBits(values);
  switch (type.base) {
    case 'int':
    case 'short':
    case 'tinyint':
      return { kind: 'numbers', data: filled(new Int32Array(values.length), values, 0), nulls };
    case 'double':
      return { kind: 'numbers', data: filled(new Float64Array(values.length), values, 0), nulls };
    case 'float':
      return { kind: 'numbers', data: filled(new Float32Array(values.length), values, 0), nulls };
    case 'long':
      return { kind: 'bigints', data: filled(new BigInt64Array(values.length), values, 0n), nulls };
    case 'datetime': {
      const ms = new Float64Array(values.length);
      values.forEach((v, r) => (ms[r] = v === null ? 0 : (v as Date).getTime()));
      return { kind: 'dates', ms, nulls };
    }
    case 'string':
    case 'char':
    case 'guid':
      return joined(values, nulls) ?? { kind: 'values', values };
    default:
      return { kind: 'values', values };
  }
}

/** What a post may move rather than copy. */
export function transferables(wire: WireColumn): ArrayBuffer[] {
  const arrays = [
    'data' in wire ? wire.data : undefined,
    'ms' in wire ? wire.ms : undefined,
    'ends' in wire ? wire.ends : undefined,
    'nulls' in wire ? wire.nulls : undefined,
  ];
  return arrays.filter((a) => a !== undefined).map((a) => a.buffer as ArrayBuffer);
}

export function fromWire(wire: WireColumn): Vector | Value[] {
  switch (wire.kind) {
    case 'numbers':
      return new NumberVector(wire.data, wire.nulls);
    case 'bigints':
      return new BigIntVector(wire.data, wire.nulls);
    case 'dates':
      return new DateVector(wire.ms, wire.nulls);
    case 'text': {
      const out = new Array<Value>(wire.ends.length);
      let start = 0;
      for (let r = 0; r < out.length; r++) {
        const end = wire.ends[r];
        out[r] = wire.nulls && bitAt(wire.nulls, r) ? null : wire.text.substring(start, end);
        start = end;
      }
      return out;
    }
    case 'values':
      return wire.values;
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

/** The cells as one string and where each ends; undefined when it would be too long for one. */
function joined(values: Value[], nulls: Uint8Array | undefined): WireColumn | undefined {
  const ends = new Uint32Array(values.length);
  let length = 0;
  values.forEach((v, r) => {
    if (v !== null) length += (v as string).length;
    ends[r] = length;
  });
  if (length > MAX_TEXT) return undefined;
  return { kind: 'text', text: values.map((v) => v ?? '').join(''), ends, nulls };
}
