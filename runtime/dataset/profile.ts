import type Decimal from 'decimal.js';
import { comparer } from '../expr/operations';
import { toHex } from './format-value';
import type { BaseType, Value } from './types';

/** One column's profile: what `%describe` shows. */
export interface ColumnProfile {
  nulls: number;
  /** Distinct non-null values, compared exactly (case-sensitive, 1.50 = 1.5). */
  distinct: number;
  /** In the language's order (strings case-insensitive); null when no value has an order (bytes, all null). */
  min: Value;
  max: Value;
  /** The most frequent values, most frequent first, ties in order of first appearance. */
  top: { value: Value; count: number }[];
}

/** A Map key under which equal values are one: the value itself for the primitive representations. */
type Key = string | number | bigint | boolean;

/** The key function of the object representations; undefined when a value is its own key. */
function keyOf(base: BaseType): ((v: Value) => Key) | undefined {
  switch (base) {
    case 'datetime':
      return (v) => (v as Date).getTime();
    case 'decimal':
      return (v) => (v as Decimal).toString();
    case 'bytes':
      return (v) => toHex(v as Uint8Array);
    default:
      return undefined;
  }
}

/**
 * Profiles a column's values in one pass: each non-null value is counted in a Map, and min, max and
 * the top values are then read from the Map's distinct entries, so the work is linear in the rows
 * and the comparisons are as many as the distinct values.
 */
export function profileColumn(values: readonly Value[], base: BaseType, topCount: number): ColumnProfile {
  const key = keyOf(base);
  const counts = new Map<Key, number>();
  // The first value seen under each key, for the kinds whose key is not the value.
  const firsts = key ? new Map<Key, Value>() : undefined;
  let nulls = 0;
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    if (v === null) {
      nulls++;
      continue;
    }
    const k = key ? key(v) : (v as Key);
    const seen = counts.get(k);
    if (seen === undefined) {
      counts.set(k, 1);
      firsts?.set(k, v);
    } else counts.set(k, seen + 1);
  }

  const compare = comparer(base);
  let min: Value = null;
  let max: Value = null;
  const top: { value: Value; count: number }[] = [];
  for (const [k, count] of counts) {
    const v = firsts ? firsts.get(k)! : k;
    if (compare && !(typeof v === 'number' && Number.isNaN(v))) {
      if (min === null || compare(v, min) < 0) min = v;
      if (max === null || compare(v, max) > 0) max = v;
    }
    if (top.length < topCount || count > top[top.length - 1].count) {
      let i = Math.min(top.length, topCount - 1);
      while (i > 0 && top[i - 1].count < count) i--;
      top.splice(i, 0, { value: v, count });
      if (top.length > topCount) top.pop();
    }
  }
  return { nulls, distinct: counts.size, min, max, top };
}
