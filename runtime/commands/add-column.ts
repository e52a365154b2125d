import { converterTo, type Converter } from '../dataset/convert';
import { Dataset } from '../dataset/dataset';
import { parseTypeName } from '../dataset/type-names';
import type { Column, ColumnType, Value } from '../dataset/types';
import { textView, vectorOf, type Vector } from '../dataset/vector';
import { ScriptError, toScriptError } from '../errors';
import { compileFilter } from '../expr';
import { compileValue } from '../functions/evaluate';
import type { AddColumn, FormatSpec } from '../script/ast';
import type { Scope } from '../scope';
import { parseFormatOptions, rowWriter, selectFields, textualFields } from '../writers';
import { atArgument } from '../at-argument';
import type { Command } from './command';

/**
 * ADD [OR ALTER] COLUMN (spec 4.2, docs/transformations.md). The new column's values come from its
 * default (a constant, #f(), @f(), {{field}} or @sql(expr)), or from FORMAT (a JSON/XML/CSV fragment
 * of the row). OR ALTER changes an existing column: a new type converts its values, a default or
 * FORMAT replaces them. The input dataset is never touched: the result shares its other columns.
 */

/** Where each output value comes from: computed per row; a failing row leaves null under CONTINUE_ON_ERROR. */
type ValueOf = (row: Value[], rowIndex: number) => Value;

/** Failed rows under CONTINUE_ON_ERROR, reported as one warning. */
class Failures {
  rows = 0;
  first?: string;
  add(message: string): void {
    this.rows++;
    this.first ??= message;
  }
}

export function addColumnTo(
  stmt: AddColumn,
  input: Dataset,
  scope: Scope,
  warn: (text: string) => void,
): Dataset | undefined {
  const existing = input.indexOf(stmt.name);
  if (existing >= 0 && !stmt.orAlter) {
    if (stmt.ignoreIfExists) return undefined;
    throw new ScriptError(
      `column '${input.columns[existing].name}' already exists: use ADD OR ALTER COLUMN to change it, or WITH IGNORE_IF_EXISTS to leave it`,
      'runtime',
      stmt.pos,
    );
  }
  const type = columnType(stmt, input, existing);
  const convert = converterTo(type);
  // The ordinals the new values are computed from: the row reader fills only those cells, so a column
  // the statement does not name costs nothing per row (a typed decimal or datetime would be an object).
  const reads = new Set<number>();
  // FORMAT's fields read as text (a typed datetime or decimal, when nothing else reads it as a value).
  const views = new Map<number, Vector>();
  const valueOf = stmt.format
    ? formatted(stmt, stmt.format, input, scope, existing, reads, views)
    : stmt.default.value.trim() !== ''
      ? defaultValue(stmt, input, scope, convert, reads)
      : existing >= 0
        ? converted(input, existing, type, reads)
        : undefined;
  const dropped = stmt.format?.collapse
    ? selectFields(input.columns, stmt.format.include, stmt.format.includeNot, stmt.format.exclude)
    : [];
  const keep = input.columns.map((_, i) => i).filter((i) => i === existing || !dropped.includes(i));

  const failures = new Failures();
  const value: ValueOf = valueOf ? guarded(valueOf, stmt, failures) : () => null;
  const column = changedColumn(stmt, input, existing, type);
  const columns: Column[] = keep.map((i) => (i === existing ? column : { ...input.columns[i] }));
  let target = keep.indexOf(existing);
  if (target < 0) {
    target = columns.length;
    columns.push(column);
  }
  const data: (Value[] | Vector)[] = keep.map((i) => input.vector(i));
  data[target] = vectorOf(type, computeColumn(input, value, reads, views));
  if (failures.rows > 0) {
    const count = `${failures.rows} row${failures.rows === 1 ? '' : 's'}`;
    warn(
      `ADD COLUMN '${stmt.name}': ${count} failed and ${failures.rows === 1 ? 'was' : 'were'} left null (CONTINUE_ON_ERROR); first error: ${failures.first}`,
    );
  }
  return new Dataset(columns, data, input.rowCount);
}

/**
 * The new or changed column. It is `writtenAs` FORMAT's format when each row holds a fragment FORMAT
 * writes, null, or (OR ALTER, rows WHEN leaves) a fragment the column already held as written.
 */
function changedColumn(stmt: AddColumn, input: Dataset, existing: number, type: ColumnType): Column {
  const before: Column | undefined = input.columns[existing];
  const column: Column = { name: before?.name ?? stmt.name, type };
  if (before?.description !== undefined) column.description = before.description;
  const format = stmt.format?.format;
  const othersNull = stmt.default.value.trim() === '' && (before === undefined || before.writtenAs === format);
  if (format && othersNull) column.writtenAs = format;
  return column;
}

/** The declared type; OR ALTER without a type keeps the column's type, ADD without one is a string. */
function columnType(stmt: AddColumn, input: Dataset, existing: number): ColumnType {
  const { typeName } = stmt;
  const type: ColumnType = typeName
    ? atArgument({ pos: stmt.typePos ?? stmt.pos }, () => parseTypeName(typeName))
    : existing >= 0 && !stmt.format
      ? input.columns[existing].type
      : { base: 'string' };
  if (stmt.format && type.base !== 'string' && type.base !== 'char') {
    throw new ScriptError(
      `FORMAT ${stmt.format.format} builds text: the column type must be a string type, not ${stmt.typeName}`,
      'semantic',
      stmt.format.pos,
    );
  }
  return type;
}

/** The default, converted to the column type. A default that is the same for all rows is converted once. */
function defaultValue(stmt: AddColumn, input: Dataset, scope: Scope, convert: Converter, reads: Set<number>): ValueOf {
  const compiled = compileValue(stmt.default);
  const evaluate: ValueOf = atArgument(stmt.default, () => compiled.bind(scope, input, { reads }));
  if (compiled.perRow) return (row, i) => convert(evaluate(row, i));
  let value: Value;
  try {
    value = convert(evaluate([], 0));
  } catch (e) {
    throw new ScriptError(`default of column '${stmt.name}': ${toScriptError(e).message}`, 'runtime', stmt.default.pos);
  }
  return () => value;
}

/** OR ALTER with a new type and no new values: the existing values, converted. */
function converted(input: Dataset, ordinal: number, type: ColumnType, reads: Set<number>): ValueOf {
  reads.add(ordinal);
  const convert = converterTo(type, input.columns[ordinal].type);
  return (row) => convert(row[ordinal]);
}

/**
 * FORMAT: the fragment of each row WHEN selects (after the first `skip:` of them); other rows get the
 * default when one is given, else keep their value (OR ALTER) or are null.
 */
function formatted(
  stmt: AddColumn,
  format: FormatSpec,
  input: Dataset,
  scope: Scope,
  existing: number,
  reads: Set<number>,
  views: Map<number, Vector>,
): ValueOf {
  const options = parseFormatOptions(format.options?.value, format.format, format.options?.pos);
  const fields = selectFields(input.columns, format.include, format.includeNot, format.exclude);
  let when: ((row: Value[]) => boolean) | undefined;
  if (format.when) {
    const filter = compileFilter(format.when.value, format.when.pos);
    when = filter.bind(input.columns, scope, input);
    for (const name of filter.columns) if (input.has(name)) reads.add(input.indexOf(name));
  }
  if (stmt.default.value.trim() === '' && existing >= 0) reads.add(existing);
  const otherwise: ValueOf =
    stmt.default.value.trim() !== ''
      ? defaultValue(stmt, input, scope, converterTo({ base: 'string' }), reads)
      : existing >= 0
        ? (row) => row[existing]
        : () => null;
  // A field only the fragment reads is read as its text when its storage gives it (vector.ts textView).
  const textual = textualFields(input.columns, fields, options);
  const texts = fields.map((o, k) => {
    const view = textual[k] && !reads.has(o) ? textView(input.vector(o), input.columns[o].type) : undefined;
    if (view) views.set(o, view);
    else reads.add(o);
    return view !== undefined;
  });
  const write = atArgument(format, () => rowWriter(format.format, input.columns, fields, options, texts));
  let toSkip = options.skip;
  if (!when && toSkip === 0) return (row) => write(row);
  return (row, i) => {
    if (when && !when(row)) return otherwise(row, i);
    if (toSkip > 0) {
      toSkip--;
      return otherwise(row, i);
    }
    return write(row);
  };
}

/** Under CONTINUE_ON_ERROR a failing row counts and gets null; otherwise the error names the row. */
function guarded(valueOf: ValueOf, stmt: AddColumn, failures: Failures): ValueOf {
  return (row, i) => {
    try {
      return valueOf(row, i);
    } catch (e) {
      const inner = toScriptError(e);
      const message = `column '${stmt.name}', row ${i + 1}: ${inner.message}`;
      if (!stmt.continueOnError)
        throw new ScriptError(message, inner.kind, inner.position ?? stmt.default.pos ?? stmt.pos);
      failures.add(message);
      return null;
    }
  };
}

/** The new column's values, from the cells of `reads`; the other columns are shared with the input, not copied. */
function computeColumn(
  input: Dataset,
  value: ValueOf,
  reads: ReadonlySet<number>,
  views: ReadonlyMap<number, Vector>,
): Value[] {
  const out = new Array<Value>(input.rowCount);
  const read = input.reader(
    [...reads, ...views.keys()].sort((a, b) => a - b),
    views,
  );
  for (let r = 0; r < out.length; r++) out[r] = value(read(r), r);
  return out;
}

export const addColumn: Command<AddColumn> = async (stmt, input, ctx) =>
  addColumnTo(stmt, input, ctx, (text) => ctx.emit({ kind: 'warning', text }));
