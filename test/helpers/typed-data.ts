import { Dataset } from '../../runtime/dataset/dataset';
import { parseDecimal } from '../../runtime/dataset/decimal-scale';
import { PackedTextVector, TextColumnBuilder } from '../../runtime/dataset/text-vector';
import type { Column, Value } from '../../runtime/dataset/types';
import {
  BigIntVector,
  BoolVector,
  DateVector,
  DecimalVector,
  DictionaryVector,
  NumberVector,
  ValuesVector,
  vectorOf,
  type Vector,
} from '../../runtime/dataset/vector';

/*
 * The same rows in typed column storage (as sources store them) and as plain arrays of values: code
 * that reads the storage directly must give what it gives for the values.
 */

export const N = 48;
const d = parseDecimal;

/** Cell r of each column: every type, nulls, decimals of mixed scale, longs past 2^53, dates before 1970. */
const cells: Record<string, (r: number) => Value> = {
  id: (r) => r,
  i: (r) => (r % 7 === 3 ? null : [0, -1, 2147483647, -2147483648, 42][r % 5]),
  l: (r) =>
    r % 9 === 4 ? null : [2n ** 53n + BigInt(r), -(2n ** 63n), 2n ** 63n - 1n, -1n, 0n, BigInt(-r) * 2n ** 40n][r % 6],
  x: (r) => (r % 8 === 5 ? null : [-0, 0, NaN, 0.1, -1e300, Infinity, r / 3][r % 7]),
  f: (r) => (r % 8 === 6 ? null : Math.fround([1.5, -0.1, 3e38, 0][r % 4] * (r + 1))),
  t: (r) => (r % 6 === 2 ? null : new Date(Date.UTC(1969 + (r % 60), r % 12, 1 + (r % 28), r % 24, 0, 0, r * 7))),
  dm: (r) =>
    r % 16 === 15
      ? null
      : d(
          [
            '1',
            '1.0',
            '1.50',
            '-0.001',
            '0',
            '0.000',
            '123456789012345',
            '-99999.9999',
            '0.00000000000000000000001',
            '9999999.9999999',
            '10000000.5',
            '0.0000001',
            '0.00000001',
            '-1234567.89',
            '7',
          ][r % 15],
        ),
  ds: (r) => (r % 11 === 7 ? null : d(['12.50', '-3.25', '0.00', '1000000.01'][r % 4])),
  b: (r) => (r % 5 === 1 ? null : r % 3 === 0),
  s: (r) => (r % 4 === 2 ? null : ['', 'Oslo', 'é\u{1F600}\ud800', 'Lima'][r % 3]),
  p: (r) => (r % 13 === 5 ? null : `row ${r} ${'x'.repeat(r % 17)}`),
};

export const cols: Column[] = columns({
  id: 'int',
  i: 'int',
  l: 'long',
  x: 'double',
  f: 'float',
  t: 'datetime',
  dm: { base: 'decimal' },
  ds: { base: 'decimal', precision: 18, scale: 2 },
  b: 'bool',
  s: 'string',
  p: 'string',
});

/** The storage each column must have, or the comparisons would compare values with values. */
export const STORAGE: Record<string, new (...args: never[]) => Vector> = {
  id: NumberVector,
  i: NumberVector,
  l: BigIntVector,
  x: NumberVector,
  f: NumberVector,
  t: DateVector,
  dm: DecimalVector,
  ds: DecimalVector,
  b: BoolVector,
  s: DictionaryVector,
  p: PackedTextVector,
};

/** The columns the capture test keys on; the others take their cells from `observed(r)`. */
export const KEYS = ['l', 't', 'dm', 's', 'p', 'id'];

/**
 * The same rows stored typed (as sources store them) and as plain arrays of values; the cells of
 * columns outside KEYS are those of row `observed(r)`.
 */
export function both(rows: readonly number[], observed = (r: number) => r): { typed: Dataset; plain: Dataset } {
  const valuesOf = (name: string, rows: readonly number[]): Value[] =>
    rows.map((r) => cells[name](KEYS.includes(name) ? r : observed(r)));
  const typed = cols.map((c) => {
    const values = valuesOf(c.name, rows);
    if (c.name !== 'p') return vectorOf(c.type, values);
    const packed = new TextColumnBuilder(values.length, false);
    for (const v of values) packed.add(v as string | null);
    return packed.finish();
  });
  const plain = cols.map((c) => new ValuesVector(valuesOf(c.name, rows)));
  return { typed: new Dataset(cols, typed, rows.length), plain: new Dataset(cols, plain, rows.length) };
}

function columns(spec: Record<string, Column['type']['base'] | Column['type']>): Column[] {
  return Object.entries(spec).map(([name, t]) => ({ name, type: typeof t === 'string' ? { base: t } : t }));
}
