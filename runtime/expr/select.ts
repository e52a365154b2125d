import Decimal from 'decimal.js';
import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { DateVector, DecimalVector, DictionaryVector, NumberVector, type Vector } from '../dataset/vector';
import { nodesOf, type BinaryOp, type ExprNode } from './ast';
import type { BindEnv, Bound } from './bound';
import { bindNode } from './compile';
import { isJsNumber, opClass, resultKind } from './kinds';
import { coercion } from './operations';

/**
 * The rows a filter keeps, computed column by column (docs/expressions.md, "How filters run"). The
 * tree's AND / OR spine is split into conditions; each runs over the rows still undecided, so a
 * condition on one column reads only that column, and the second term of `a AND b` only the rows
 * `a` kept. A condition reads its column's storage directly when it can:
 * - one column stored as a dictionary: the condition is evaluated once per distinct value, then
 *   looked up per row;
 * - `column <op> constant` on numbers, datetimes or scaled decimals: one comparison of the typed
 *   array's element with the constant, converted once to the storage's unit;
 * - anything else: the bound closure over a row holding only the columns the condition reads.
 * Every path computes what the bound tree computes (same conversions, same nulls), since each is the
 * bound condition itself or an exact rewriting of its comparison.
 */

interface Condition {
  kind: 'condition';
  node: ExprNode;
  bound: Bound;
  ordinals: number[];
}

type Plan = { kind: 'and' | 'or'; parts: Plan[] } | Condition;

/** Rows of a selection: ascending row numbers, or null for every row. */
type Rows = Uint32Array | null;

/** The rows kept, or undefined when the filter must run on whole rows (a condition typed only per row). */
export function selectRows(tree: ExprNode, env: BindEnv, data: Dataset): Uint32Array | undefined {
  const plan = planOf(tree, env);
  if (!plan) return undefined;
  return run(plan, null, data, env) ?? allRows(data.rowCount);
}

/** The plan, or undefined when a condition is not statically boolean (its checks happen per row in the tree). */
function planOf(tree: ExprNode, env: BindEnv): Plan | undefined {
  const op = logicalOp(tree);
  if (!op) return conditionOf(tree, env);
  // A chain of one operator (thousands of ORs) is a left-deep tree: walked by a loop, not recursion.
  const operands: ExprNode[] = [];
  const stack: ExprNode[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'binary' && node.op === op) stack.push(node.right, node.left);
    else operands.push(node);
  }
  // Each part of an OR passes over the rows left undecided: a long list (`x = 1 OR x = 2 OR …`) is
  // one condition instead, which on a dictionary column is still evaluated once per distinct value.
  if (op === 'OR' && operands.length > MAX_OR_PARTS) return conditionOf(tree, env);
  const parts: Plan[] = [];
  for (const operand of operands) {
    const part = planOf(operand, env);
    if (!part) return undefined;
    parts.push(part);
  }
  return { kind: op === 'AND' ? 'and' : 'or', parts };
}

const MAX_OR_PARTS = 8;

function conditionOf(tree: ExprNode, env: BindEnv): Condition | undefined {
  const bound = bindNode(tree, env);
  if (bound.type !== 'bool' && bound.type !== 'null') return undefined;
  const ordinals = new Set<number>();
  for (const node of nodesOf(tree)) if (node.type === 'column') ordinals.add(ordinalOf(node.name, env));
  return { kind: 'condition', node: tree, bound, ordinals: [...ordinals] };
}

function logicalOp(node: ExprNode): 'AND' | 'OR' | undefined {
  return node.type === 'binary' && (node.op === 'AND' || node.op === 'OR') ? node.op : undefined;
}

function ordinalOf(name: string, env: BindEnv): number {
  const lower = name.toLowerCase();
  return env.columns.findIndex((c) => c.name.toLowerCase() === lower);
}

function allRows(count: number): Uint32Array {
  const out = new Uint32Array(count);
  for (let r = 0; r < count; r++) out[r] = r;
  return out;
}

function run(plan: Plan, rows: Rows, data: Dataset, env: BindEnv): Rows {
  if (plan.kind === 'condition') return condition(plan, rows, data, env);
  if (plan.kind === 'and') {
    // Consecutive conditions that are tests of typed arrays run as one loop; the others in turn.
    let tests: Test[] = [];
    for (const part of plan.parts) {
      const test = part.kind === 'condition' ? testOf(part, data, env) : undefined;
      if (test) {
        tests.push(test);
        continue;
      }
      if (tests.length > 0) rows = fused(tests, rows, data.rowCount);
      tests = [];
      rows = run(part, rows, data, env);
    }
    return tests.length > 0 ? fused(tests, rows, data.rowCount) : rows;
  }
  // OR: each part runs over the rows no earlier part kept (as the tree skips its right operand).
  const kept = new Uint8Array(data.rowCount);
  let rest = rows;
  for (const part of plan.parts) {
    const hits = run(part, rest, data, env);
    // Every row left is kept: with those kept before, all of them.
    if (hits === null) return rows;
    for (let k = 0; k < hits.length; k++) kept[hits[k]] = 1;
    rest = without(rest, kept, data.rowCount);
  }
  return marked(rows, kept, data.rowCount);
}

/** The rows of `rows` not marked. */
function without(rows: Rows, mark: Uint8Array, count: number): Uint32Array {
  const n = rows ? rows.length : count;
  const out = new Uint32Array(n);
  let m = 0;
  for (let k = 0; k < n; k++) {
    const r = rows ? rows[k] : k;
    if (mark[r] === 0) out[m++] = r;
  }
  return out.subarray(0, m);
}

/** The rows of `rows` marked, in order. */
function marked(rows: Rows, mark: Uint8Array, count: number): Uint32Array {
  const n = rows ? rows.length : count;
  const out = new Uint32Array(n);
  let m = 0;
  for (let k = 0; k < n; k++) {
    const r = rows ? rows[k] : k;
    if (mark[r] === 1) out[m++] = r;
  }
  return out.subarray(0, m);
}

function condition(plan: Condition, rows: Rows, data: Dataset, env: BindEnv): Rows {
  const { bound, ordinals } = plan;
  if (bound.constant) return bound.value === true ? rows : new Uint32Array(0);
  const test = testOf(plan, data, env);
  if (test) return fused([test], rows, data.rowCount);
  if (ordinals.length === 1) {
    const vector = data.vector(ordinals[0]);
    if (vector instanceof DictionaryVector) return byDictionary(vector, ordinals[0], rows, data, bound);
  }
  return byRow(bound, ordinals, rows, data);
}

/** The bound condition over a row holding only its columns. */
function byRow(bound: Bound, ordinals: number[], rows: Rows, data: Dataset): Uint32Array {
  const read = data.reader(ordinals);
  const fn = bound.fn;
  const n = rows ? rows.length : data.rowCount;
  const out = new Uint32Array(n);
  let m = 0;
  for (let k = 0; k < n; k++) {
    const r = rows ? rows[k] : k;
    if (fn(read(r)) === true) out[m++] = r;
  }
  return out.subarray(0, m);
}

const KEEP = 1;
/** The condition failed on this value. */
const FAILED = 2;

/** The condition's verdict on each distinct value of a dictionary column: KEEP, 0 or FAILED. */
function verdictsOf(vector: DictionaryVector, ordinal: number, data: Dataset, bound: Bound): Uint8Array {
  const row = new Array<Value>(data.columns.length).fill(null);
  const verdicts = new Uint8Array(vector.table.length);
  for (let code = 0; code < verdicts.length; code++) {
    row[ordinal] = vector.table[code];
    try {
      verdicts[code] = bound.fn(row) === true ? KEEP : 0;
    } catch {
      verdicts[code] = FAILED;
    }
  }
  return verdicts;
}

/** A dictionary column whose condition fails on some value: the rows holding it are evaluated again, so the error names its row. */
function byDictionary(vector: DictionaryVector, ordinal: number, rows: Rows, data: Dataset, bound: Bound): Uint32Array {
  const { codes, table } = vector;
  const verdicts = verdictsOf(vector, ordinal, data, bound);
  const row = new Array<Value>(data.columns.length).fill(null);
  const n = rows ? rows.length : data.rowCount;
  const out = new Uint32Array(n);
  let m = 0;
  for (let k = 0; k < n; k++) {
    const r = rows ? rows[k] : k;
    const verdict = verdicts[codes[r]];
    if (verdict === KEEP) out[m++] = r;
    else if (verdict === FAILED) {
      row[ordinal] = table[codes[r]];
      bound.fn(row);
    }
  }
  return out.subarray(0, m);
}

/**
 * A condition as a test of typed arrays, for a generated loop: `code` is a JS condition on the row
 * number `r` reading the arrays and constants `args` as `a0`, `a1`… (numbered when the loop is built).
 */
interface Test {
  code: (arg: (value: unknown) => string) => string;
}

/** The condition as a test of its column's storage; undefined when it must run on rows. */
function testOf(plan: Condition, data: Dataset, env: BindEnv): Test | undefined {
  if (plan.bound.constant || plan.ordinals.length !== 1) return undefined;
  const vector = data.vector(plan.ordinals[0]);
  if (vector instanceof DictionaryVector) return dictionaryTest(vector, plan.ordinals[0], data, plan.bound);
  return comparison(plan.node, vector, env);
}

/** A dictionary column's condition as a lookup of its verdict per distinct value; undefined when one fails. */
function dictionaryTest(vector: DictionaryVector, ordinal: number, data: Dataset, bound: Bound): Test | undefined {
  const verdicts = verdictsOf(vector, ordinal, data, bound);
  if (verdicts.includes(FAILED)) return undefined;
  return { code: (arg) => `${arg(verdicts)}[${arg(vector.codes)}[r]] === ${KEEP}` };
}

const FLIPPED: Partial<Record<BinaryOp, BinaryOp>> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=' };

/** `column <op> constant` (either side) on a typed vector, as a comparison of its array's element; undefined otherwise. */
function comparison(node: ExprNode, vector: Vector, env: BindEnv): Test | undefined {
  if (node.type !== 'binary' || opClass(node.op) !== 'relational') return undefined;
  let left = bindNode(node.left, env);
  let right = bindNode(node.right, env);
  let op = node.op;
  if (left.constant && right.column !== undefined) {
    [left, right] = [right, left];
    op = FLIPPED[op] ?? op;
  }
  if (left.column === undefined || !right.constant || right.value === null || right.value === undefined) return;
  if (left.type === 'any' || left.type === 'null' || right.type === 'any' || right.type === 'null') return;
  const kind = resultKind(op, left.type, right.type);
  if (!kind || coercion(left.type, kind)) return;
  const convert = coercion(right.type, kind);
  let constant: Value;
  try {
    constant = convert ? convert(right.value) : right.value;
  } catch {
    return undefined; // the bound tree reports it
  }
  if (constant === null) return;
  if (vector instanceof NumberVector && isJsNumber(kind))
    return compare(op, vector.data, vector.nulls, constant as number);
  if (vector instanceof DateVector && kind === 'datetime')
    return compare(op, vector.ms, vector.nulls, (constant as Date).getTime());
  if (vector instanceof DecimalVector && kind === 'decimal' && typeof vector.scale === 'number')
    return scaledCompare(op, vector, constant as Decimal);
  return undefined;
}

const Exact = Decimal.clone({ precision: 1e9 });

/**
 * A decimal column of one scale against a decimal constant: the constant in units of the scale. A
 * constant with more decimals than the column lies between two units, which turns each comparison
 * into one against the unit below or above it (`x > 2.5` on integers is `x > 2`).
 */
function scaledCompare(op: BinaryOp, vector: DecimalVector, constant: Decimal): Test | undefined {
  const units = new Exact(constant.toFixed()).times(new Exact(10).pow(vector.scale as number));
  let at: Decimal = units;
  if (!units.isInteger()) {
    // Never equal: every non-null cell differs.
    if (op === '=' || op === '<>') return compare(op === '=' ? '<' : '>=', vector.unscaled, vector.nulls, -Infinity);
    at = op === '>' || op === '>=' ? units.floor() : units.ceil();
    op = op === '>' || op === '>=' ? '>' : '<';
  }
  if (at.abs().gt(Number.MAX_SAFE_INTEGER)) return undefined;
  return compare(op, vector.unscaled, vector.nulls, at.toNumber());
}

const JS_OPERATORS: Partial<Record<BinaryOp, string>> = {
  '=': '===',
  '<>': '!==',
  '<': '<',
  '>': '>',
  '<=': '<=',
  '>=': '>=',
};

function compare(op: BinaryOp, data: ArrayLike<number>, nulls: Uint8Array | undefined, c: number): Test {
  const js = JS_OPERATORS[op]!;
  return {
    code: (arg) => {
      const cell = `${arg(data)}[r] ${js} ${arg(c)}`;
      return nulls ? `(${arg(nulls)}[r >>> 3] & (1 << (r & 7))) === 0 && ${cell}` : cell;
    },
  };
}

type Loop = (rows: Rows, count: number, out: Uint32Array, args: unknown[]) => number;

const loops = new Map<string, Loop>();
const LOOP_CACHE_LIMIT = 1000;

/**
 * The rows passing every test, in one loop generated for the tests' code and cached by it: the
 * tests become straight-line code over local arrays, as a loop written by hand for them would be
 * (a loop calling a closure per test and row would be a call per row).
 */
function fused(tests: Test[], rows: Rows, count: number): Uint32Array {
  const args: unknown[] = [];
  const arg = (value: unknown) => `a${args.push(value) - 1}`;
  const condition = tests.map((t) => `(${t.code(arg)})`).join(' && ');
  const key = `${args.length}|${condition}`;
  let loop = loops.get(key);
  if (!loop) {
    const locals = args.map((_, i) => `const a${i} = args[${i}];`).join(' ');
    // Built from the fixed operator table, array names and integer indices only.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled once per shape of filter, run per row
    loop = new Function(
      'rows',
      'count',
      'out',
      'args',
      `${locals}
      let m = 0;
      if (rows === null) {
        for (let r = 0; r < count; r++) if (${condition}) out[m++] = r;
      } else {
        for (let k = 0; k < rows.length; k++) { const r = rows[k]; if (${condition}) out[m++] = r; }
      }
      return m;`,
    ) as Loop;
    if (loops.size >= LOOP_CACHE_LIMIT) loops.clear();
    loops.set(key, loop);
  }
  const out = new Uint32Array(rows === null ? count : rows.length);
  return out.subarray(0, loop(rows, count, out, args));
}
