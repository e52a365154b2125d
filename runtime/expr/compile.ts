import type { Value } from '../dataset/types';
import { converterTo } from '../dataset/convert';
import { aggregate, aggregateMismatch, aggregateNeedsRows, aggregateType } from './aggregates';
import type { BinaryOp, ExprNode } from './ast';
import { constantBound, folded, guarded, located, mismatch, type BindEnv, type Bound, type RowFn } from './bound';
import { bindCall } from './functions';
import { compileLike, type LikeMatcher } from './like';
import { dateLiteralText } from './literals';
import { isJsNumber, isText, kindOf, opClass, resultKind, type Kind, type StaticType } from './kinds';
import { arithmetic, coercion, comparer, equalityKey, negate, normText, relationTest } from './operations';

/**
 * Binds a parsed expression to a schema: resolves columns to ordinals, fixes operand types where the
 * schema tells them, folds constants, and returns closures that only read cells and compute.
 */
export function bindNode(node: ExprNode, env: BindEnv): Bound {
  switch (node.type) {
    case 'literal':
      return bindLiteral(node, env);
    case 'column': {
      const i = resolveColumn(node.name, node.offset, env);
      return { type: env.columns[i].type.base, fn: (row) => row[i], constant: false, column: i };
    }
    case 'unary':
      return bindUnary(node, env);
    case 'binary':
    case 'isNull':
    case 'in':
    case 'like':
      return bindChain(node, env);
    case 'call':
      return bindCall(
        node,
        node.args.map((a) => bindNode(a, env)),
        env,
      );
    case 'aggregate': {
      const i = resolveColumn(node.column, node.offset, env);
      const kind = env.columns[i].type.base;
      const why = aggregateMismatch(node.name, kind);
      if (why) throw mismatch(why, node.offset, env);
      const data = env.dataset();
      if (!data) throw located(aggregateNeedsRows(node.name), node.offset, env);
      return constantBound(aggregate(node.name, data.vector(i), data.rowCount, kind), aggregateType(node.name, kind));
    }
  }
}

/** A node computed from its first operand (evaluated first) and what the node itself holds. */
type Step = Extract<ExprNode, { type: 'binary' | 'isNull' | 'in' | 'like' }>;

function isStep(node: ExprNode): node is Step {
  return node.type === 'binary' || node.type === 'isNull' || node.type === 'in' || node.type === 'like';
}

function firstOperand(node: Step): ExprNode {
  return node.type === 'binary' ? node.left : node.operand;
}

function bindStep(node: Step, first: Bound, env: BindEnv): Bound {
  switch (node.type) {
    case 'binary':
      return bindBinary(node.op, first, bindNode(node.right, env), node.offset, env);
    case 'isNull': {
      const f = first.fn;
      const bound: Bound = {
        type: 'bool',
        fn: node.negated ? (row) => f(row) !== null : (row) => f(row) === null,
        constant: false,
      };
      return folded(bound, [first], node.offset, env);
    }
    case 'in':
      return bindIn(node, first, env);
    case 'like':
      return bindLike(node, first, env);
  }
}

/** Precedence level of a step (.NET's: OR, AND, comparisons, + -, * / %): a chain stays on one level. */
function levelOf(node: Step): number {
  if (node.type !== 'binary') return 2;
  switch (node.op) {
    case 'OR':
      return 0;
    case 'AND':
      return 1;
    case '+':
    case '-':
      return 3;
    case '*':
    case '/':
    case '%':
      return 4;
    default:
      return 2;
  }
}

/** Where the loop of a chain puts the running value for the next step to read. */
interface Register {
  value: Value;
  read: RowFn;
}

function newRegister(): Register {
  const register: Register = { value: null, read: () => register.value };
  return register;
}

/** Steps of one level nested directly into one another before a chain's loop takes over. */
const CHUNK = 16;

/**
 * A chain — `a OR b OR c …`, `a + b - c …`, IS NULL / IN / LIKE after one another — is a left-deep
 * tree as long as the text. It is bound with a loop over the tree's left spine. Up to CHUNK steps of a
 * precedence level nest their closures directly, as a tree would (short chains run as fast as nested
 * calls, and `x > 5` keeps its fast paths); past that the row function is a loop over chunks of CHUNK
 * steps, each reading the running value from a register the loop fills, so no row recurses per term.
 * Each step keeps its semantics: null handling, and the short circuit of a step whose running value
 * decides it (it skips its right operand).
 */
function bindChain(node: Step, env: BindEnv): Bound {
  const spine: Step[] = [];
  let leaf: ExprNode = node;
  for (; isStep(leaf); leaf = firstOperand(leaf)) spine.push(leaf);
  // The chain so far: `start`, then the `chunks` the loop runs, then `current`, the chunk being
  // built (current === start while the loop has no chunk).
  let start = bindNode(leaf, env);
  let chunks: RowFn[] = [];
  let register = newRegister();
  let current = start;
  let nested = 0;
  let level = -1;
  const whole = (): Bound =>
    current === start ? start : loopBound(start.fn, [...chunks, current.fn], register, current.type);
  for (let k = spine.length - 1; k >= 0; k--) {
    const step = spine[k];
    const stepLevel = levelOf(step);
    if (stepLevel !== level) {
      current = start = bindStep(step, whole(), env);
      chunks = [];
      register = newRegister();
      nested = 1;
      level = stepLevel;
    } else if (nested < CHUNK || current.constant) {
      const bound = bindStep(step, current, env);
      if (current === start) start = bound;
      current = bound;
      nested++;
    } else {
      if (current !== start) chunks.push(current.fn);
      current = bindStep(step, { type: current.type, fn: register.read, constant: false }, env);
      nested = 1;
    }
    if (current.constant) {
      // A constant no longer depends on the steps before it.
      start = current;
      chunks = [];
      register = newRegister();
    }
  }
  return whole();
}

function loopBound(first: RowFn, steps: RowFn[], register: Register, type: StaticType): Bound {
  const n = steps.length;
  const fn: RowFn = (row) => {
    let v = first(row);
    for (let k = 0; k < n; k++) {
      register.value = v;
      v = steps[k](row);
    }
    return v;
  };
  return { type, fn, constant: false };
}

export function resolveColumn(name: string, offset: number, env: BindEnv): number {
  const lower = name.toLowerCase();
  const i = env.columns.findIndex((c) => c.name.toLowerCase() === lower);
  if (i < 0) {
    const known = env.columns.map((c) => c.name).join(', ') || '(none)';
    throw mismatch(`unknown column '${name}' (columns: ${known})`, offset, env);
  }
  return i;
}

function bindLiteral(node: Extract<ExprNode, { type: 'literal' }>, env: BindEnv): Bound {
  if (node.kind !== 'datetime') return constantBound(node.value, node.kind);
  const iso = dateLiteralText(node.value as string);
  let date: Value = null;
  try {
    if (iso !== undefined) date = converterTo({ base: 'datetime' })(iso);
  } catch {
    // reported below with the literal's position
  }
  if (!(date instanceof Date)) {
    throw mismatch(
      `invalid date literal #${String(node.value)}# (write #M/d/yyyy# or #yyyy-MM-dd#, optionally with a time)`,
      node.offset,
      env,
    );
  }
  return constantBound(date, 'datetime');
}

function bindUnary(node: Extract<ExprNode, { type: 'unary' }>, env: BindEnv): Bound {
  const operand = bindNode(node.operand, env);
  const f = operand.fn;
  const t = operand.type;
  let bound: Bound;
  if (node.op === 'NOT') {
    if (t !== 'bool' && t !== 'null' && t !== 'any')
      throw mismatch(`NOT needs a boolean operand, not ${t}`, node.offset, env);
    const check = booleanCheck(t, 'NOT', node.offset, env);
    bound = {
      type: 'bool',
      fn: (row) => {
        const v = check(f(row));
        return v === null ? null : !v;
      },
      constant: false,
    };
  } else {
    if (t === 'null') return constantBound(null, 'any');
    const numeric = t === 'any' ? undefined : t;
    if (numeric !== undefined && !isNumericKind(numeric))
      throw mismatch(`unary ${node.op} needs a number, not ${t}`, node.offset, env);
    if (node.op === '+') return operand;
    const neg = numeric ? negate(numeric) : undefined;
    bound = {
      type: t,
      fn: guarded(
        (row) => {
          const v = f(row);
          if (v === null) return null;
          if (neg) return neg(v);
          const k = kindOf(v);
          if (!isNumericKind(k)) throw mismatch(`unary - needs a number, not ${k}`, node.offset, env);
          return negate(k)(v);
        },
        node.offset,
        env,
      ),
      constant: false,
    };
  }
  return folded(bound, [operand], node.offset, env);
}

function isNumericKind(k: Kind): boolean {
  return isJsNumber(k) || k === 'long' || k === 'decimal';
}

/** Checks at run time that a value of static type `t` is a boolean (only needed for 'any'). */
function booleanCheck(t: StaticType, op: string, offset: number, env: BindEnv): (v: Value) => boolean | null {
  if (t !== 'any') return (v) => v as boolean | null;
  return (v) => {
    if (v === null || typeof v === 'boolean') return v;
    throw mismatch(`${op} needs boolean operands, not ${kindOf(v)}`, offset, env);
  };
}

export function bindBinary(op: BinaryOp, l: Bound, r: Bound, offset: number, env: BindEnv): Bound {
  const cls = opClass(op);
  let bound: Bound;
  if (cls === 'logical') bound = bindLogical(op, l, r, offset, env);
  else if (l.type === 'null' || r.type === 'null') return constantBound(null, cls === 'relational' ? 'bool' : 'any');
  else if (l.type === 'any' || r.type === 'any') bound = dynamicBinary(op, l, r, offset, env);
  else bound = staticBinary(op, l.type, r.type, l, r, offset, env);
  return folded(bound, [l, r], offset, env);
}

/** AND / OR with .NET's null handling (BinaryNode): null AND x is null; null OR x is x; x OR null is x. */
function bindLogical(op: BinaryOp, l: Bound, r: Bound, offset: number, env: BindEnv): Bound {
  for (const side of [l, r]) {
    if (side.type !== 'bool' && side.type !== 'null' && side.type !== 'any') {
      throw mismatch(`${op} needs boolean operands, not ${side.type}`, offset, env);
    }
  }
  const lf = l.fn;
  const rf = r.fn;
  if (l.type !== 'any' && r.type !== 'any') {
    const fn: RowFn =
      op === 'AND'
        ? (row) => {
            const a = lf(row);
            return a !== true ? a : rf(row);
          }
        : (row) => {
            const a = lf(row);
            if (a === true) return true;
            const b = rf(row);
            return b === null ? a : b;
          };
    return { type: 'bool', fn, constant: false };
  }
  const lc = booleanCheck(l.type, op, offset, env);
  const rc = booleanCheck(r.type, op, offset, env);
  const fn: RowFn =
    op === 'AND'
      ? (row) => {
          const a = lc(lf(row));
          return a !== true ? a : rc(rf(row));
        }
      : (row) => {
          const a = lc(lf(row));
          if (a === true) return true;
          const b = rc(rf(row));
          return b === null ? a : b;
        };
  return { type: 'bool', fn, constant: false };
}

/** Converts a constant once, so the per-row code compares against a value of the right type. */
function preconverted(
  b: Bound,
  convert: ((v: Value) => Value) | undefined,
  kind: Kind,
  offset: number,
  env: BindEnv,
): [Bound, typeof convert] {
  if (!b.constant || !convert) return [b, convert];
  try {
    return [constantBound(convert(b.value ?? null), kind), undefined];
  } catch (e) {
    throw located(e, offset, env);
  }
}

function staticBinary(
  op: BinaryOp,
  lt: Kind,
  rt: Kind,
  left: Bound,
  right: Bound,
  offset: number,
  env: BindEnv,
): Bound {
  const kind = resultKind(op, lt, rt);
  if (!kind) throw mismatch(`operator ${op} cannot combine ${lt} and ${rt}`, offset, env);
  const [l, cl] = preconverted(left, coercion(lt, kind), kind, offset, env);
  const [r, cr] = preconverted(right, coercion(rt, kind), kind, offset, env);
  if (opClass(op) === 'relational') {
    const cmp = comparer(kind);
    if (!cmp) throw mismatch(`operator ${op} cannot compare ${kind} values`, offset, env);
    if (!cl && !cr) {
      if (isJsNumber(kind)) return { type: 'bool', fn: numberRelation(op, l, r), constant: false };
      if (isText(kind) || kind === 'guid') {
        const fast = textEquality(op, l, r);
        if (fast) return { type: 'bool', fn: fast, constant: false };
      }
    }
    const test = relationTest(op);
    return { type: 'bool', fn: converting(l, r, cl, cr, (a, b) => test(cmp(a, b)), offset, env), constant: false };
  }
  const f = arithmetic(op, kind);
  if (!cl && !cr && kind === 'double') return { type: kind, fn: plainBinary(l.fn, r.fn, f), constant: false };
  return { type: kind, fn: converting(l, r, cl, cr, f, offset, env), constant: false };
}

function plainBinary(lf: RowFn, rf: RowFn, f: (a: Value, b: Value) => Value): RowFn {
  return (row) => {
    const a = lf(row);
    if (a === null) return null;
    const b = rf(row);
    return b === null ? null : f(a, b);
  };
}

/** The general case: evaluate, convert each side to the common kind, apply; null anywhere gives null. */
function converting(
  l: Bound,
  r: Bound,
  cl: ((v: Value) => Value) | undefined,
  cr: ((v: Value) => Value) | undefined,
  f: (a: Value, b: Value) => Value,
  offset: number,
  env: BindEnv,
): RowFn {
  const lf = l.fn;
  const rf = r.fn;
  return guarded(
    (row) => {
      let a = lf(row);
      if (a === null) return null;
      let b = rf(row);
      if (b === null) return null;
      if (cl && (a = cl(a)) === null) return null;
      if (cr && (b = cr(b)) === null) return null;
      return f(a, b);
    },
    offset,
    env,
  );
}

const FLIPPED: Partial<Record<BinaryOp, BinaryOp>> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=' };

/**
 * Comparisons of JS numbers, the commonest filter. Each operator gets its own closure, and a column
 * compared with a constant reads the cell directly, so the per-row work is one load and one compare.
 */
function numberRelation(op: BinaryOp, l: Bound, r: Bound): RowFn {
  if (l.constant && r.column !== undefined) return numberRelation(FLIPPED[op] ?? op, r, l);
  if (l.column !== undefined && r.constant) {
    const i = l.column;
    const c = r.value as number;
    switch (op) {
      case '=':
        return (row) => (row[i] === null ? null : row[i] === c);
      case '<>':
        return (row) => (row[i] === null ? null : row[i] !== c);
      case '<':
        return (row) => (row[i] === null ? null : (row[i] as number) < c);
      case '>':
        return (row) => (row[i] === null ? null : (row[i] as number) > c);
      case '<=':
        return (row) => (row[i] === null ? null : (row[i] as number) <= c);
      default:
        return (row) => (row[i] === null ? null : (row[i] as number) >= c);
    }
  }
  const test = relationTest(op);
  const lf = l.fn;
  const rf = r.fn;
  return (row) => {
    const a = lf(row);
    if (a === null) return null;
    const b = rf(row);
    if (b === null) return null;
    return test(a < b ? -1 : a > b ? 1 : 0);
  };
}

/** `textColumn = 'constant'` (and <>): one normalisation of the cell, compared with the constant's. */
function textEquality(op: BinaryOp, l: Bound, r: Bound): RowFn | undefined {
  if (op !== '=' && op !== '<>') return undefined;
  if (l.constant && !r.constant) return textEquality(op, r, l);
  if (!r.constant || r.value === null) return undefined;
  const c = normText(r.value as string);
  const lf = l.fn;
  const equal = op === '=';
  return (row) => {
    const a = lf(row);
    return a === null ? null : (normText(a as string) === c) === equal;
  };
}

type Plan = { kind: Kind; cl?: (v: Value) => Value; cr?: (v: Value) => Value; f: (a: Value, b: Value) => Value };

/** An operand whose type is only known per row: the plan is chosen per pair of kinds and cached. */
function dynamicBinary(op: BinaryOp, l: Bound, r: Bound, offset: number, env: BindEnv): Bound {
  const plans = new Map<string, Plan>();
  const planFor = (lk: Kind, rk: Kind): Plan => {
    const key = `${lk}|${rk}`;
    let plan = plans.get(key);
    if (!plan) {
      const kind = resultKind(op, lk, rk);
      if (!kind) throw mismatch(`operator ${op} cannot combine ${lk} and ${rk}`, offset, env);
      let f: Plan['f'];
      if (opClass(op) === 'relational') {
        const cmp = comparer(kind);
        if (!cmp) throw mismatch(`operator ${op} cannot compare ${kind} values`, offset, env);
        const test = relationTest(op);
        f = (a, b) => test(cmp(a, b));
      } else {
        f = arithmetic(op, kind);
      }
      plan = { kind, cl: coercion(lk, kind), cr: coercion(rk, kind), f };
      plans.set(key, plan);
    }
    return plan;
  };
  const lf = l.fn;
  const rf = r.fn;
  const lt = l.type;
  const rt = r.type;
  const fn = guarded(
    (row) => {
      let a = lf(row);
      if (a === null) return null;
      let b = rf(row);
      if (b === null) return null;
      const plan = planFor(
        lt === 'any' || lt === 'null' ? kindOf(a) : lt,
        rt === 'any' || rt === 'null' ? kindOf(b) : rt,
      );
      if (plan.cl && (a = plan.cl(a)) === null) return null;
      if (plan.cr && (b = plan.cr(b)) === null) return null;
      return plan.f(a, b);
    },
    offset,
    env,
  );
  const type: StaticType = opClass(op) === 'relational' ? 'bool' : 'any';
  return { type, fn, constant: false };
}

/**
 * `x IN (a, b, …)`: each item is converted to x's type and compared with it (.NET compares with the
 * left operand's type). Constant lists become a Set of normalised keys, looked up once per row.
 */
function bindIn(node: Extract<ExprNode, { type: 'in' }>, operand: Bound, env: BindEnv): Bound {
  const items = node.items.map((n) => bindNode(n, env));
  const negated = node.negated;
  const of = operand.fn;
  if (operand.type === 'null') return constantBound(null, 'bool');
  const t = operand.type;
  let bound: Bound;
  if (t !== 'any' && items.every((i) => i.constant)) {
    if (!comparer(t) && t !== 'bytes') throw mismatch(`IN cannot compare ${t} values`, node.offset, env);
    const key = equalityKey(t);
    const keys = new Set<unknown>();
    node.items.forEach((n, idx) => {
      const item = items[idx];
      if (item.value === null || item.value === undefined) return;
      const convert = coercion(item.type as Kind, t);
      try {
        const v = convert ? convert(item.value) : item.value;
        if (v !== null) keys.add(key(v));
      } catch (e) {
        throw located(e, n.offset, env);
      }
    });
    bound = {
      type: 'bool',
      fn: (row) => {
        const v = of(row);
        return v === null ? null : keys.has(key(v)) !== negated;
      },
      constant: false,
    };
  } else {
    const fns = items.map((i) => i.fn);
    bound = {
      type: 'bool',
      fn: guarded(
        (row) => {
          const v = of(row);
          if (v === null) return null;
          const kind = t === 'any' ? kindOf(v) : t;
          const cmp = comparer(kind);
          if (!cmp) throw mismatch(`IN cannot compare ${kind} values`, node.offset, env);
          for (const f of fns) {
            const item = f(row);
            if (item === null) continue;
            const convert = coercion(kindOf(item), kind);
            const w = convert ? convert(item) : item;
            if (w !== null && cmp(v, w) === 0) return !negated;
          }
          return negated;
        },
        node.offset,
        env,
      ),
      constant: false,
    };
  }
  return folded(bound, [operand, ...items], node.offset, env);
}

function bindLike(node: Extract<ExprNode, { type: 'like' }>, operand: Bound, env: BindEnv): Bound {
  const pattern = bindNode(node.pattern, env);
  if (operand.type === 'null' || pattern.type === 'null') return constantBound(null, 'bool');
  const toText = operand.type === 'any' ? converterTo({ base: 'string' }) : coercion(operand.type, 'string');
  const of = operand.fn;
  const negated = node.negated;
  const text = (row: Value[]): string | null => {
    const v = of(row);
    return v === null ? null : normText((toText ? toText(v) : v) as string);
  };
  let bound: Bound;
  if (pattern.constant) {
    let match: LikeMatcher;
    try {
      match = compileLike(String(pattern.value));
    } catch (e) {
      throw located(e, node.pattern.offset, env);
    }
    bound = {
      type: 'bool',
      fn: (row) => {
        const s = text(row);
        return s === null ? null : match(s) !== negated;
      },
      constant: false,
    };
  } else {
    // A pattern from a column: compiled when it changes, which is rare across consecutive rows.
    let last: string | undefined;
    let match: LikeMatcher = () => false;
    const pf = pattern.fn;
    bound = {
      type: 'bool',
      fn: guarded(
        (row) => {
          const s = text(row);
          const p = pf(row);
          if (s === null || p === null) return null;
          const ps = String(p);
          if (ps !== last) {
            match = compileLike(ps);
            last = ps;
          }
          return match(s) !== negated;
        },
        node.offset,
        env,
      ),
      constant: false,
    };
  }
  return folded(bound, [operand, pattern], node.offset, env);
}
