import Decimal from 'decimal.js';
import { Dataset } from '../../runtime/dataset/dataset';
import { parseDecimal } from '../../runtime/dataset/decimal-scale';
import type { Column, Value } from '../../runtime/dataset/types';
import { compileExpression, compileFilter } from '../../runtime/expr';

/** A small typed table used across the expression tests. */
export const columns: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'ItemName', type: { base: 'string' } },
  { name: 'total', type: { base: 'double' } },
  { name: 'price', type: { base: 'decimal' } },
  { name: 'qty', type: { base: 'int' } },
  { name: 'big', type: { base: 'long' } },
  { name: 'when', type: { base: 'datetime' } },
  { name: 'ok', type: { base: 'bool' } },
  { name: 'odd name]', type: { base: 'string' } },
];

export const rows: Value[][] = [
  [1, 'My Product A', 1500.5, parseDecimal('1.10'), 3, 9007199254740993n, new Date(Date.UTC(2006, 0, 31)), true, 'x'],
  [2, 'other', 20, new Decimal('2.5'), 2, 5n, new Date(Date.UTC(2020, 5, 15, 13, 45, 30)), false, 'y'],
  [3, null, null, null, null, null, null, null, null],
];

/** The expression's value on each row of `rows`. */
export function values(source: string, data: Value[][] = rows, cols: Column[] = columns): Value[] {
  const f = compileExpression(source).bind(cols, undefined, Dataset.fromRows(cols, data));
  return data.map((r) => f(r));
}

/** The value on the first row. */
export function value(source: string): Value {
  return values(source)[0];
}

/** The ids of the rows the filter keeps. */
export function kept(filter: string, data: Value[][] = rows, cols: Column[] = columns): Value[] {
  const keep = compileFilter(filter).bind(cols, undefined, Dataset.fromRows(cols, data));
  return data.filter(keep).map((r) => r[0]);
}
