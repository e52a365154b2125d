import type { Dataset } from '../dataset/dataset';
import type { Column, Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { exprError, type ErrorContext } from './errors';
import { kindOf, type StaticType } from './kinds';

/** A compiled expression node: what it computes per row, and what is known about it before any row. */
export type RowFn = (row: Value[]) => Value;

export interface Bound {
  type: StaticType;
  fn: RowFn;
  /** Depends on no row: evaluated once at bind time and `value` holds the result. */
  constant: boolean;
  value?: Value;
  /** The ordinal when the node is a plain column reference (the fast paths read the cell directly). */
  column?: number;
}

/** What binding needs beyond the tree: the schema, the text for errors, the rows for aggregates. */
export interface BindEnv {
  columns: Column[];
  context: ErrorContext;
  dataset(): Dataset | undefined;
}

export function constantBound(value: Value, type: StaticType): Bound {
  const t = value === null ? type : type === 'any' ? kindOf(value) : type;
  return { type: t, fn: () => value, constant: true, value };
}

/** Folds a node whose inputs are all constant into its value (errors surface at bind time). */
export function folded(bound: Bound, inputs: Bound[], offset: number, env: BindEnv): Bound {
  if (bound.constant || !inputs.every((b) => b.constant)) return bound;
  return constantBound(evaluateAt(bound.fn, offset, env), bound.type);
}

function evaluateAt(fn: RowFn, offset: number, env: BindEnv): Value {
  try {
    return fn([]);
  } catch (e) {
    throw located(e, offset, env);
  }
}

const annotated = new WeakSet<object>();

/**
 * A failure while evaluating a node (a conversion, an overflow) gets the expression and the node's
 * position once; outer nodes pass it through unchanged.
 */
export function located(e: unknown, offset: number, env: BindEnv): unknown {
  if (!(e instanceof ScriptError) || annotated.has(e)) return e;
  const out = exprError(e.message, offset, env.context, e.kind);
  annotated.add(out);
  return out;
}

/** Wraps a node that can fail per row so its error names the expression position. */
export function guarded(fn: RowFn, offset: number, env: BindEnv): RowFn {
  return (row) => {
    try {
      return fn(row);
    } catch (e) {
      throw located(e, offset, env);
    }
  };
}

export function mismatch(what: string, offset: number, env: BindEnv): ScriptError {
  const e = exprError(what, offset, env.context, 'runtime');
  annotated.add(e);
  return e;
}
