import type { Dataset } from '../dataset/dataset';
import type { Column, Value } from '../dataset/types';
import type { Position } from '../errors';
import type { Scope } from '../scope';

/** The part of runtime/expr (the DataColumn.Expression engine) that @sql() and #data.* use. */
export interface ExpressionEngine {
  compileExpression(
    source: string,
    at?: Position,
  ): {
    /** The column names the expression reads, as written. */
    readonly columns: string[];
    bind(columns: Column[], scope?: Scope): (row: Value[]) => Value;
  };
  compileFilter(source: string, at?: Position): { bind(columns: Column[], scope?: Scope): (row: Value[]) => boolean };
  calculate(aggregate: string, filter: string | undefined, dataset: Dataset): Value;
}

let engine: ExpressionEngine | undefined;

/**
 * Loaded on first use: only texts with @sql() or #data.calc/#data.count need the expression engine,
 * and loading it lazily keeps the functions module free of an import cycle with it.
 */
export function expressionEngine(): ExpressionEngine {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (engine ??= require('../expr') as ExpressionEngine);
}
