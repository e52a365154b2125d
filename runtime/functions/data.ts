import { randomInt, randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { scaleOf, withScale } from '../dataset/decimal-scale';
import type { Value } from '../dataset/types';
import { variablesOf } from '../workspace/variables';
import { wallOf } from './dates';
import { define } from './define';
import { expressionEngine } from './engines';
import { FunctionError, type CallContext, type FunctionDef, type FunctionImpl } from './types';
import { exactNumber, integer, isNullOrEmpty, numeric, text } from './values';

const F = define.bind(null, 'data');

function addTo(a: Value, b: Value, sign: 1 | -1): Value {
  const x = exactNumber(a, 'a');
  const y = b === undefined || b === null ? 1 : exactNumber(b, 'b');
  if (typeof x === 'number' && typeof y === 'number') return x + sign * y;
  if (
    Decimal.isDecimal(x) ||
    Decimal.isDecimal(y) ||
    (typeof x === 'number' && !Number.isInteger(x)) ||
    (typeof y === 'number' && !Number.isInteger(y))
  ) {
    const dx = Decimal.isDecimal(x) ? x : new Decimal(x.toString());
    const dy = Decimal.isDecimal(y) ? y : new Decimal(y.toString());
    // As System.Decimal addition: the result keeps the larger scale (12.50 + 1 = 13.50).
    return withScale(dx.plus(dy.times(sign)), Math.max(scaleOf(dx), scaleOf(dy)));
  }
  const r = BigInt(x) + BigInt(sign) * BigInt(y);
  return r >= BigInt(Number.MIN_SAFE_INTEGER) && r <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(r) : r;
}

/** The larger of two high-watermark candidates; a null or empty one loses. */
function hwm(a: Value, b: Value, compare: (x: Value, y: Value) => number): Value {
  if (isNullOrEmpty(a)) return b;
  if (isNullOrEmpty(b)) return a;
  return compare(a, b) >= 0 ? a : b;
}

const byNumber = (x: Value, y: Value) => {
  const a = exactNumber(x, 'a');
  const b = exactNumber(y, 'b');
  return new Decimal(a.toString()).comparedTo(new Decimal(b.toString()));
};
const byDate = (x: Value, y: Value) => wallOf(x, 'utc', 'a').getTime() - wallOf(y, 'utc', 'b').getTime();

/** calc_hwm: numbers when both read as numbers, dates when both read as dates, else ordinal text. */
function byKind(x: Value, y: Value): number {
  try {
    return byNumber(x, y);
  } catch {
    try {
      return byDate(x, y);
    } catch {
      const a = text(x);
      const b = text(y);
      return a < b ? -1 : a > b ? 1 : 0;
    }
  }
}

/**
 * A calc_hwm function: the larger of its two arguments, proposed to the run as the pipeline's next
 * high watermark, which the run stores once it has succeeded (the largest of its proposals).
 */
function highWatermark(compare: (x: Value, y: Value) => number): FunctionImpl {
  const larger = (a: Value, b: Value) => hwm(a, b, compare);
  // The run compares each proposal with its largest so far. One that does not compare with it (a date
  // after a number) is an error naming both values: the comparison's own message would blame an
  // argument of this call, holding a value the user never wrote here.
  const largerThanEarlier = (earlier: Value, proposed: Value) => {
    try {
      return larger(earlier, proposed);
    } catch (e) {
      if (!(e instanceof FunctionError)) throw e;
      throw new FunctionError(
        `'${text(proposed)}' does not compare with '${text(earlier)}', proposed earlier in this run as the next high watermark: ${e.message.replace(/^[ab]: /, '')}`,
      );
    }
  };
  return (args, ctx) => {
    const v = larger(args[0], args[1]);
    ctx.scope.run.proposeHighWatermark(v, largerThanEarlier);
    return v;
  };
}

/** Approximate bytes of a cell in memory (UTF-16 strings, 8-byte numbers and dates, plus a slot). */
function cellBytes(v: Value): number {
  if (v === null) return 8;
  if (typeof v === 'string') return 8 + 2 * v.length;
  if (v instanceof Uint8Array) return 8 + v.byteLength;
  if (typeof v === 'boolean') return 9;
  if (Decimal.isDecimal(v)) return 40;
  return 16;
}

function statebag(args: Value[], ctx: CallContext): Value {
  const key = text(args[0]);
  if (key === '') throw new FunctionError('the key is empty');
  const bag = ctx.scope.run.statebag;
  if (args.length > 1) {
    bag.set(key.toLowerCase(), args[1]);
    return args[1];
  }
  const v = bag.get(key.toLowerCase());
  if (v !== undefined) return v;
  return ctx.sql && ctx.quotes[0] === "'" ? null : '';
}

function variables(ctx: CallContext) {
  return variablesOf(ctx.scope.session.workspace);
}

export const dataFunctions: FunctionDef[] = [
  F(
    'data.calc',
    '#data.calc(a[, b])',
    [1, 2],
    'An aggregate over the pipeline (Sum Avg Min Max Count StDev Var of the expression language), over the rows matching filter b when given; null for no rows.',
    "#data.calc('Sum(qty)', 'qty > 1')",
    undefined,
    (args, ctx) =>
      expressionEngine().calculate(
        text(args[0]),
        args.length > 1 && args[1] !== null ? text(args[1]) : undefined,
        ctx.scope.dataset,
      ),
  ),
  F(
    'data.calc_hwm',
    '#data.calc_hwm(a, b)',
    2,
    'The larger of a and b, compared as numbers, else as dates, else as text (null or empty loses); it becomes the next @highwatermark once the run succeeds.',
    '#data.calc_hwm(17, 5)',
    '17',
    highWatermark(byKind),
  ),
  F(
    'data.calc_hwmdate',
    '#data.calc_hwmdate(a, b)',
    2,
    'The later of two dates (null or empty loses); it becomes the next @highwatermark once the run succeeds.',
    '#data.calc_hwmdate(2024-01-02, 2023-12-31T23:00:00)',
    '2024-01-02',
    highWatermark(byDate),
  ),
  F(
    'data.calc_hwmnumber',
    '#data.calc_hwmnumber(a, b)',
    2,
    'The larger of two numbers (null or empty loses); it becomes the next @highwatermark once the run succeeds.',
    '#data.calc_hwmnumber(9, 10)',
    '10',
    highWatermark(byNumber),
  ),
  F(
    'data.count',
    '#data.count([filter])',
    [0, 1],
    'The number of rows in the pipeline, or of those matching the filter expression.',
    "#data.count('qty > 1')",
    undefined,
    (args, ctx) => {
      const ds = ctx.scope.dataset;
      if (args.length === 0 || args[0] === null || text(args[0]).trim() === '') return ds.rowCount;
      const keep = expressionEngine().compileFilter(text(args[0])).bind(ds.columns, ctx.scope);
      const read = ds.reader();
      let n = 0;
      for (let r = 0; r < ds.rowCount; r++) if (keep(read(r))) n++;
      return n;
    },
  ),
  F(
    'data.sizekb',
    '#data.sizekb()',
    0,
    'Approximate in-memory size of the pipeline in KB (2 bytes per character, 16 per number or date, 8 per cell slot), rounded up.',
    '#data.sizekb()',
    undefined,
    (_args, ctx) => {
      let bytes = 0;
      const ds = ctx.scope.dataset;
      for (let c = 0; c < ds.columns.length; c++)
        for (let r = 0; r < ds.rowCount; r++) bytes += cellBytes(ds.cell(r, c));
      return Math.ceil(bytes / 1024);
    },
  ),
  F(
    'data.value',
    '#data.value(row, column)',
    2,
    'The cell at a 0-based row index and a column name.',
    "#data.value(0, 'name')",
    undefined,
    (args, ctx) => {
      const ds = ctx.scope.dataset;
      const r = integer(args[0], 'the row');
      if (r < 0 || r >= ds.rowCount)
        throw new FunctionError(
          `row ${r} is out of range (the pipeline has ${ds.rowCount} row${ds.rowCount === 1 ? '' : 's'})`,
        );
      return ds.cell(r, ds.require(text(args[1])));
    },
  ),
  F(
    'decrement',
    '#decrement(a[, b])',
    [1, 2],
    'a minus 1, or minus b (exact for long and decimal values).',
    '#decrement(10, 3)',
    '7',
    (args) => addTo(args[0], args.length > 1 ? args[1] : null, -1),
  ),
  F(
    'increment',
    '#increment(a[, b])',
    [1, 2],
    'a plus 1, or plus b (exact for long and decimal values).',
    '#increment(41)',
    '42',
    (args) => addTo(args[0], args.length > 1 ? args[1] : null, 1),
  ),
  F('isnotnull', '#isnotnull(a, b)', 2, 'b when a is not null, else null.', '#isnotnull(x, yes)', 'yes', (args) =>
    args[0] !== null ? args[1] : null,
  ),
  F(
    'isnotnullorempty',
    '#isnotnullorempty(a, b)',
    2,
    "b when a is neither null nor '', else a.",
    '#isnotnullorempty(x, yes)',
    'yes',
    (args) => (isNullOrEmpty(args[0]) ? args[0] : args[1]),
  ),
  F('isnull', '#isnull(a, b)', 2, 'b when a is null, else a.', '#isnull(null, fallback)', 'fallback', (args) =>
    args[0] === null ? args[1] : args[0],
  ),
  F(
    'isnullorempty',
    '#isnullorempty(a, b)',
    2,
    "b when a is null or '', else a.",
    "#isnullorempty('', fallback)",
    'fallback',
    (args) => (isNullOrEmpty(args[0]) ? args[1] : args[0]),
  ),
  F(
    'pick',
    '#pick(a, b, c...)',
    [1, Infinity],
    'One of the arguments, chosen at random.',
    '#pick(lamp, fridge, door)',
    undefined,
    (args) => args[randomInt(args.length)],
  ),
  F('rnddouble', '#rnddouble(a, b)', 2, 'A random double in [a, b).', '#rnddouble(0, 1)', undefined, (args) => {
    const a = numeric(args[0], 'a');
    const b = numeric(args[1], 'b');
    if (!(b > a)) throw new FunctionError(`b (${b}) must be greater than a (${a})`);
    // b - a can exceed a double (±1e308 bounds): interpolate, and keep b itself out of the result.
    const r = Math.random();
    const x = a * (1 - r) + b * r;
    return x >= a && x < b ? x : a;
  }),
  F('rndguid', '#rndguid()', 0, 'A new random GUID (lowercase 8-4-4-4-12).', '#rndguid()', undefined, () =>
    randomUUID(),
  ),
  F('rndint', '#rndint(a, b)', 2, 'A random Int32 in [a, b).', '#rndint(1, 7)', undefined, (args) => {
    const a = integer(args[0], 'a');
    const b = integer(args[1], 'b');
    if (a < -2147483648 || b > 2147483647) throw new FunctionError('the bounds must be Int32 values');
    if (!(b > a)) throw new FunctionError(`b (${b}) must be greater than a (${a})`);
    return randomInt(a, b);
  }),
  F(
    'setvar',
    '#setvar(a, b)',
    2,
    'Saves b in workspace variable a, encrypted when a is declared encrypted; fails when a does not exist (create it with %var set). Returns "".',
    '#setvar(lastRun, #utcnow())',
    undefined,
    (args, ctx) => {
      const name = text(args[0]);
      if (name.trim() === '') throw new FunctionError('the variable name (a) is empty');
      if (!variables(ctx).update(name, text(args[1])))
        throw new FunctionError(`variable '${name}' does not exist (create it with %var set ${name} <value>)`);
      return '';
    },
  ),
  F(
    'trysetvar',
    '#trysetvar(a, b)',
    2,
    'Saves b in variable a only when it exists. Returns "".',
    '#trysetvar(lastRun, #utcnow())',
    undefined,
    (args, ctx) => {
      variables(ctx).update(text(args[0]), text(args[1]));
      return '';
    },
  ),
  F(
    'trygetvar',
    '#trygetvar(a[, b])',
    [1, 2],
    'The value of workspace variable a (decrypted when stored encrypted); b or "" when it does not exist.',
    '#trygetvar(nosuchvariable, default)',
    'default',
    (args, ctx) => {
      const v = variables(ctx).get(text(args[0]));
      return v !== undefined ? v : args.length > 1 ? args[1] : '';
    },
  ),
  F(
    'statebag',
    '#statebag(a[, b])',
    [1, 2],
    "Gets key a of the statebag (it lives for one execution), or sets it to b and returns b. A missing key is '', or NULL when a is written in single quotes inside a SQL command.",
    '#statebag(k, 5)',
    '5',
    statebag,
  ),
];
