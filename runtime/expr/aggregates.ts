import Decimal from 'decimal.js';
import type { Value } from '../dataset/types';
import { bitAt, orderedNumbers, type Vector } from '../dataset/vector';
import { ScriptError } from '../errors';
import type { AggregateName } from './ast';
import { isInteger, isJsNumber, isNumeric, type Kind } from './kinds';
import { arithmetic, comparer } from './operations';

/**
 * The aggregates of B.1 over one column, typed as .NET's DataTable computes them: Sum of an integer
 * column is a long (exact), Avg keeps the column's type (an int average is truncated, as .NET does),
 * Min/Max keep it, Count is an int, Var and StDev are sample statistics (n - 1) as doubles. No rows,
 * or only nulls, give null (reference.md B.1); Var and StDev need two values.
 */
export function aggregateType(name: AggregateName, kind: Kind): Kind {
  switch (name) {
    case 'COUNT':
      return 'int';
    case 'VAR':
    case 'STDEV':
      return 'double';
    case 'SUM':
      return isInteger(kind) ? 'long' : kind;
    default:
      return kind;
  }
}

/** Why `name` cannot run on a column of `kind`, or undefined when it can. */
export function aggregateMismatch(name: AggregateName, kind: Kind): string | undefined {
  if (name === 'COUNT') return undefined;
  if (name === 'MIN' || name === 'MAX') return comparer(kind) ? undefined : `${name} cannot order ${kind} values`;
  return isNumeric(kind) ? undefined : `${name} needs a numeric column, not ${kind}`;
}

/** `name` over the first `count` cells of a column, read from its storage. */
export function aggregate(name: AggregateName, column: Vector, count: number, kind: Kind): Value {
  if (name === 'MIN' || name === 'MAX') {
    const at = extremeRow(column, count, name === 'MIN' ? -1 : 1);
    if (at !== undefined) return at < 0 ? null : column.get(at);
  }
  const values: Value[] = [];
  for (let i = 0; i < count; i++) {
    const v = column.get(i);
    if (v !== null) values.push(v);
  }
  if (name === 'COUNT') return count === 0 ? null : values.length;
  if (values.length === 0) return null;
  switch (name) {
    case 'MIN':
    case 'MAX': {
      const cmp = comparer(kind)!;
      const sign = name === 'MIN' ? -1 : 1;
      let best = values[0];
      for (let i = 1; i < values.length; i++) if (Math.sign(cmp(values[i], best)) === sign) best = values[i];
      return best;
    }
    case 'SUM':
      return sum(values, kind);
    case 'AVG':
      return average(values, kind);
    default:
      return variance(name, values, kind);
  }
}

/**
 * The first row holding the least (`sign` -1) or greatest (1) of typed numbers, datetimes or decimals
 * of one scale, compared as stored (as their values compare) without a Date or Decimal per row; -1
 * when every cell is null, undefined for other storage.
 */
function extremeRow(column: Vector, count: number, sign: number): number | undefined {
  const ordered = orderedNumbers(column);
  if (!ordered) return undefined;
  const { numbers, nulls } = ordered;
  let at = -1;
  for (let r = 0; r < count; r++) {
    if (nulls && bitAt(nulls, r)) continue;
    if (at < 0 || (sign > 0 ? numbers[r] > numbers[at] : numbers[r] < numbers[at])) at = r;
  }
  return at;
}

function sum(values: Value[], kind: Kind): Value {
  if (isInteger(kind)) {
    const add = arithmetic('+', 'long');
    let total: Value = 0n;
    for (const v of values) total = add(total, typeof v === 'bigint' ? v : BigInt(v as number));
    return total;
  }
  if (kind === 'decimal') {
    const add = arithmetic('+', 'decimal');
    return values.reduce((a, b) => add(a, b));
  }
  let total = 0;
  for (const v of values) total += v as number;
  return kind === 'float' ? Math.fround(total) : total;
}

function average(values: Value[], kind: Kind): Value {
  const total = sum(values, kind);
  if (kind === 'long') return (total as bigint) / BigInt(values.length);
  if (isInteger(kind)) return Number((total as bigint) / BigInt(values.length));
  if (kind === 'decimal') return arithmetic('/', 'decimal')(total, new Decimal(values.length));
  const mean = (total as number) / values.length;
  return kind === 'float' ? Math.fround(mean) : mean;
}

function variance(name: 'VAR' | 'STDEV', values: Value[], kind: Kind): Value {
  if (values.length < 2) return null;
  const numbers = values.map((v) =>
    isJsNumber(kind) ? (v as number) : Number(typeof v === 'bigint' ? v : (v as Decimal).toNumber()),
  );
  const mean = numbers.reduce((a, b) => a + b, 0) / numbers.length;
  let squares = 0;
  for (const n of numbers) squares += (n - mean) * (n - mean);
  const v = squares / (numbers.length - 1);
  return name === 'VAR' ? v : Math.sqrt(v);
}

export function aggregateNeedsRows(name: AggregateName): ScriptError {
  return new ScriptError(`${name}() needs the dataset's rows, which this context does not provide`, 'runtime');
}
