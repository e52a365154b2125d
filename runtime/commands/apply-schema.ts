import { converterTo, type Converter } from '../dataset/convert';
import { Dataset } from '../dataset/dataset';
import { typedFromText } from '../dataset/number-text';
import { parseTypeName, sameType } from '../dataset/type-names';
import type { Column, ColumnType, Value } from '../dataset/types';
import { VectorBuilder, type Vector } from '../dataset/vector';
import { ScriptError, toScriptError } from '../errors';
import { compileValue } from '../functions/evaluate';
import type { ApplySchema, SchemaColumnSpec, Text } from '../script/ast';
import type { Scope } from '../scope';
import { atArgument } from '../at-argument';
import type { Command } from './command';

/**
 * APPLY SCHEMA (reference A, docs/types.md): each listed column is converted to its type, or added
 * when missing; null cells take the column's default. The result lists the schema's columns in the
 * schema's order, then (unless STRICT_COLUMNS) the other columns in their previous order.
 *
 * Two passes: conversion first, then defaults, so a default's `{{field}}` and
 * `#data.*()` see the converted dataset whatever the order of the schema lines.
 */

interface PlannedColumn {
  spec: SchemaColumnSpec;
  type: ColumnType;
  /** Ordinal in the input, -1 for a new column. */
  source: number;
  /** Undefined when the input column already has this exact type. */
  convert?: Converter;
}

/** Failures tolerated under CONTINUE_ON_ERROR, reported as one warning. */
class Failures {
  cells = 0;
  private rows = new Set<number>();
  /** The message of the first failing cell in row order (columns are converted one after another). */
  first?: string;
  private firstAt = [Infinity, Infinity];

  add(row: number, column: number, message: string): void {
    this.cells++;
    this.rows.add(row);
    if (row < this.firstAt[0] || (row === this.firstAt[0] && column < this.firstAt[1])) {
      this.first = message;
      this.firstAt = [row, column];
    }
  }

  warning(): string {
    const cells = `${this.cells} value${this.cells === 1 ? '' : 's'}`;
    const rows = `${this.rows.size} row${this.rows.size === 1 ? '' : 's'}`;
    return `APPLY SCHEMA: ${cells} in ${rows} could not be converted and became null (or the column default); first: ${this.first}`;
  }
}

/** A cell that failed: placed at the column's line, or at its default when that is what failed. */
function cellError(e: unknown, spec: SchemaColumnSpec, rowIndex: number, at = spec.pos): ScriptError {
  const reason = e instanceof Error ? e.message : String(e);
  return new ScriptError(`column '${spec.name}', row ${rowIndex + 1}: ${reason}`, 'runtime', at);
}

function plan(stmt: ApplySchema, input: Dataset): PlannedColumn[] {
  const seen = new Set<string>();
  return stmt.columns.map((spec) => {
    const key = spec.name.toLowerCase();
    if (seen.has(key)) throw new ScriptError(`column '${spec.name}' is listed twice`, 'semantic', spec.pos);
    seen.add(key);
    const type = atArgument(spec, () => parseTypeName(spec.typeName ?? 'string'));
    const source = input.indexOf(spec.name);
    const from = source >= 0 ? input.columns[source].type : undefined;
    return { spec, type, source, convert: from && sameType(from, type) ? undefined : converterTo(type, from) };
  });
}

/**
 * Pass 1: the columns in the output layout. A column whose type does not change is the input's own
 * vector, shared, and so are the numbers of text held as numbers of the type (number-text.ts); a
 * converted one is built in its type's storage. Without CONTINUE_ON_ERROR the error reported is the
 * first failing cell in row order, as if the rows had been converted one by one.
 */
function convertColumns(
  input: Dataset,
  planned: PlannedColumn[],
  sources: number[],
  continueOnError: boolean,
  failures: Failures,
): (Value[] | Vector)[] {
  let firstError: { row: number; error: ScriptError } | undefined;
  const data = sources.map((source, j): Value[] | Vector => {
    if (source < 0) return new Array<Value>(input.rowCount).fill(null);
    const convert = planned[j]?.convert;
    if (!convert) return input.vector(source);
    const values = input.vector(source);
    const numbers = typedFromText(values, planned[j].type);
    if (numbers) return numbers;
    const out = new VectorBuilder(planned[j].type, input.rowCount);
    const end = firstError?.row ?? input.rowCount;
    for (let r = 0; r < end; r++) {
      const v = values.get(r);
      if (v === null) {
        out.set(r, null);
        continue;
      }
      try {
        if (typeof v !== 'string' || !out.setText(r, v)) out.set(r, convert(v));
      } catch (e) {
        const error = cellError(e, planned[j].spec, r);
        if (!continueOnError) {
          firstError = { row: r, error };
          break;
        }
        failures.add(r, j, error.message);
        out.set(r, null);
      }
    }
    return out.finish();
  });
  if (firstError) throw firstError.error;
  return data;
}

/**
 * Pass 2: null cells of the column at `ordinal` take its default, converted to the column's type.
 * The column is replaced in `data` by a filled copy, so the defaults of later columns see this one
 * filled.
 */
function fillDefault(
  text: Text,
  columns: Column[],
  data: (Value[] | Vector)[],
  ordinal: number,
  p: PlannedColumn,
  stmt: ApplySchema,
  scope: Scope,
  failures: Failures,
): void {
  const spec = p.spec;
  const convert = converterTo(p.type);
  const compiled = compileValue(text);
  const out = new Dataset(columns, data);
  const evaluate = atArgument(text, () => compiled.bind(scope, out, { fxByRow: stmt.fxByRow }));
  const column = data[ordinal];
  const filled = Array.isArray(column) ? column.slice() : column.values();
  if (!filled.includes(null)) return;
  if (!compiled.perRow && !stmt.fxByRow) {
    // One value for every row: a default that does not convert is a mistake in the script, not the data.
    let value: Value;
    try {
      value = convert(evaluate([], 0));
    } catch (e) {
      throw new ScriptError(`default of column '${spec.name}': ${toScriptError(e).message}`, 'runtime', text.pos);
    }
    for (let r = 0; r < filled.length; r++) if (filled[r] === null) filled[r] = value;
  } else {
    const read = out.reader();
    for (let r = 0; r < filled.length; r++) {
      if (filled[r] !== null) continue;
      try {
        filled[r] = convert(evaluate(read(r), r));
      } catch (e) {
        if (!stmt.continueOnError) throw cellError(e, spec, r, text.pos);
        failures.add(r, ordinal, cellError(e, spec, r).message);
      }
    }
  }
  data[ordinal] = filled;
}

export function applySchemaTo(stmt: ApplySchema, input: Dataset, scope: Scope, warn: (text: string) => void): Dataset {
  const planned = plan(stmt, input);
  const listedSources = new Set(planned.map((p) => p.source));
  const others = stmt.strictColumns ? [] : input.columns.map((_, i) => i).filter((i) => !listedSources.has(i));
  const columns: Column[] = [
    ...planned.map((p) => {
      const description = p.spec.description ?? (p.source >= 0 ? input.columns[p.source].description : undefined);
      return description ? { name: p.spec.name, type: p.type, description } : { name: p.spec.name, type: p.type };
    }),
    ...others.map((i) => ({ ...input.columns[i] })),
  ];
  const sources = [...planned.map((p) => p.source), ...others];

  const failures = new Failures();
  const data = convertColumns(input, planned, sources, stmt.continueOnError, failures);
  planned.forEach((p, ordinal) => {
    if (p.spec.default !== undefined) fillDefault(p.spec.default, columns, data, ordinal, p, stmt, scope, failures);
  });
  if (failures.cells > 0) warn(failures.warning());
  return Dataset.encoded(columns, data, input.rowCount);
}

export const applySchema: Command<ApplySchema> = async (stmt, input, ctx) =>
  applySchemaTo(stmt, input, ctx, (text) => ctx.emit({ kind: 'warning', text }));
