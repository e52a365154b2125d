import type { Dataset } from '../dataset/dataset';
import type { Column, ColumnType, Value } from '../dataset/types';
import { ScriptError, type Position } from '../errors';
import type { Scope } from '../scope';
import { nodesOf, type ExprNode } from './ast';
import { mismatch, type BindEnv, type Bound } from './bound';
import { bindNode } from './compile';
import type { ErrorContext } from './errors';
import { kindOf } from './kinds';
import { parseExpression } from './parser';
import { selectRows } from './select';

/**
 * The DataColumn.Expression engine (reference.md B.1): one parser and one evaluator for APPLY FILTER
 * SQL and TX, every WHEN, @sql() defaults and #data.calc / #data.count. Compile once (parse), bind
 * once per schema (resolve columns, fix types, fold constants), then run the closure per row.
 */

export interface Expression {
  readonly source: string;
  /** The column names the expression reads (inside aggregates too), as written. */
  readonly columns: string[];
  /**
   * Closure computing the expression for one row of `columns`. Aggregates (Sum(x)…) are computed over
   * `data` when given, else over `scope.dataset` when it has these columns.
   */
  bind(columns: Column[], scope?: Scope, data?: Dataset): (row: Value[]) => Value;
  /** The column type of the expression's values; string when it varies per row or is always null. */
  resultType(columns: Column[], scope?: Scope, data?: Dataset): ColumnType;
}

export interface Filter {
  readonly source: string;
  /** The column names the filter reads, as written. */
  readonly columns: string[];
  /** Closure telling whether a row passes: true only when the expression is true (null drops it). */
  bind(columns: Column[], scope?: Scope, data?: Dataset): (row: Value[]) => boolean;
  /** The rows of `data` that pass, ascending, computed column by column (select.ts). */
  select(data: Dataset, scope?: Scope): Uint32Array;
}

export function compileExpression(source: string, at?: Position): Expression {
  const context: ErrorContext = { source, at };
  const tree = parseExpression(context);
  const bindTree = (columns: Column[], scope?: Scope, data?: Dataset) =>
    bindNode(tree, environment(context, columns, scope, data));
  return {
    source,
    columns: referencedColumns(tree),
    bind: (columns, scope, data) => bindTree(columns, scope, data).fn,
    resultType: (columns, scope, data) => {
      const t = bindTree(columns, scope, data).type;
      return t === 'any' || t === 'null' ? { base: 'string' } : { base: t };
    },
  };
}

export function compileFilter(source: string, at?: Position): Filter {
  const context: ErrorContext = { source, at };
  const tree = parseExpression(context);
  const columns = referencedColumns(tree);
  return {
    source,
    columns,
    bind: (schema, scope, data) => {
      const env = environment(context, schema, scope, data);
      return predicate(bindNode(tree, env), env);
    },
    select: (data, scope) => {
      const env = environment(context, data.columns, scope, data);
      // The whole tree is bound first: it reports what is wrong with the expression as a whole.
      const keep = predicate(bindNode(tree, env), env);
      return selectRows(tree, env, data) ?? rowsWhere(keep, data, columns);
    },
  };
}

/** The rows `keep` passes, one row at a time; the reader copies only the cells of `columns`. */
function rowsWhere(keep: (row: Value[]) => boolean, data: Dataset, columns: string[]): Uint32Array {
  const read = data.reader(columns.map((name) => data.indexOf(name)).filter((i) => i >= 0));
  const kept = new Uint32Array(data.rowCount);
  let n = 0;
  for (let r = 0; r < data.rowCount; r++) if (keep(read(r))) kept[n++] = r;
  return kept.subarray(0, n);
}

function predicate(bound: Bound, env: BindEnv): (row: Value[]) => boolean {
  const t = bound.type;
  if (t !== 'bool' && t !== 'any' && t !== 'null') {
    throw mismatch(`a filter must be a condition (true/false), but this expression gives ${t}`, 0, env);
  }
  const f = bound.fn;
  if (t !== 'any') return (row) => f(row) === true;
  return (row) => {
    const v = f(row);
    if (v !== null && typeof v !== 'boolean') {
      throw mismatch(`a filter must be a condition (true/false), but this expression gave ${kindOf(v)}`, 0, env);
    }
    return v === true;
  };
}

function environment(context: ErrorContext, columns: Column[], scope?: Scope, data?: Dataset): BindEnv {
  return {
    columns,
    context,
    dataset: () => data ?? (scope && sameColumns(scope.dataset.columns, columns) ? scope.dataset : undefined),
  };
}

function sameColumns(a: Column[], b: Column[]): boolean {
  return a === b || (a.length === b.length && a.every((c, i) => c.name.toLowerCase() === b[i].name.toLowerCase()));
}

/**
 * `#data.calc('Sum(Total)', 'EmpID = 5')`: the aggregate expression over the rows the filter keeps.
 * The expression may combine aggregates (`Sum(a) / Count(a)`) but reads no column outside them.
 */
export function calculate(aggregate: string, filter: string | undefined, dataset: Dataset): Value {
  const expression: ErrorContext = { source: aggregate };
  const tree = parseExpression(expression);
  const outside = columnOutsideAggregate(tree);
  if (outside) {
    throw new ScriptError(
      `#data.calc needs an aggregate such as Sum(${outside.name}); column '${outside.name}' is used outside one (expression '${aggregate}')`,
      'runtime',
    );
  }
  let rows = dataset;
  if (filter !== undefined && filter.trim() !== '') rows = dataset.pick(compileFilter(filter).select(dataset));
  return bindNode(tree, { columns: dataset.columns, context: expression, dataset: () => rows }).fn([]);
}

function referencedColumns(tree: ExprNode): string[] {
  const names = new Set<string>();
  for (const node of nodesOf(tree)) {
    if (node.type === 'column') names.add(node.name);
    else if (node.type === 'aggregate') names.add(node.column);
  }
  return [...names];
}

function columnOutsideAggregate(tree: ExprNode): Extract<ExprNode, { type: 'column' }> | undefined {
  for (const node of nodesOf(tree)) if (node.type === 'column') return node;
  return undefined;
}
