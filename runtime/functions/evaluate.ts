import { Dataset } from '../dataset/dataset';
import { STRING, type Column, type ColumnType, type Value } from '../dataset/types';
import { insideStrings, OPERATOR_STYLE, styledField, type FieldStyle } from './field-style';
import { positionIn, ScriptError, type Position } from '../errors';
import type { Text } from '../script/ast';
import type { Scope } from '../scope';
import { expressionEngine } from './engines';
import { inferType } from '../dataset/convert';
import { parseTemplate, type Arg, type CallPart, type FieldPart, type Part, type VariablePart } from './parse';
import { FunctionError, type BinaryPrefix, type CallContext } from './types';
import { formatValue } from '../dataset/format-value';
import { displayValue, fieldText } from './values';

/**
 * Evaluation of templates (spec 4.3/4.4). A text is parsed once (`compileTemplate`/`compileValue`);
 * `bind` then resolves `{{field}}` to column ordinals and evaluates every `#f()` whose arguments do
 * not depend on the row, and returns a closure that only reads cells, calls implementations and
 * concatenates: no parsing, no lookups by name, no closures created per row.
 */

export interface BindOptions {
  /** Re-evaluate `#f()` per row (APPLY SCHEMA FX_BY_ROW, APPLY HTTP join modes, EXEC PER_ROW, PUSH BATCH 1). */
  fxByRow?: boolean;
  /**
   * Filled with the ordinals of the columns the bound function reads from its row, so a caller can
   * read only those cells (ADD COLUMN reads a row through `Dataset.reader(ordinals)`).
   */
  reads?: Set<number>;
}

export type RowTextFn = (row: Value[], rowIndex: number) => string;
export type RowValueFn = (row: Value[], rowIndex: number) => Value;
/** A batch of rows (PUSH … BATCH N) to one text, the operators expanding over the rows. */
export type BatchTextFn = (rows: readonly Value[][], firstIndex: number) => string;

export interface CompileOptions {
  /** The text is a SQL command: `#statebag('k')` of a missing key renders NULL (spec 4.4). */
  sql?: boolean;
  /**
   * The row template of a batch operator, or a text that is always JSON (HEADERS): fields are written
   * as its document language needs, so row data cannot change the document's shape.
   */
  fieldStyle?: FieldStyle;
  /**
   * With fieldStyle: only the fields inside the language's string literals are written in its style,
   * the others as they are (a JSON PAYLOAD's `{{id}}` or `{{json_text}}`, a URL's head).
   */
  stringsOnly?: boolean;
}

export interface CompiledTemplate {
  /** Has `@f()`, `{{field}}` or an operator: its text differs per row. */
  readonly perRow: boolean;
  /** Has a batch operator (@concatjson…, @sql_union…): needs `bindBatch`. */
  readonly batch: boolean;
  /** The names of the `{{fields}}` used, for callers that check a schema up front. */
  readonly fields: string[];
  bind(scope: Scope, dataset: Dataset, options?: BindOptions): RowTextFn;
  bindBatch(scope: Scope, dataset: Dataset, options?: BindOptions): BatchTextFn;
}

export interface CompiledValue {
  readonly perRow: boolean;
  bind(scope: Scope, dataset: Dataset, options?: BindOptions): RowValueFn;
}

// ----------------------------------------------------------------------------- binding

/**
 * A bound part: a constant, or a function of the row. A field also carries how its column shows as
 * text (a float column prints its shortest float32 form, a decimal(p,s) its scale), as tables do, and
 * `cell`: its ordinal and writer, so a concatenation reads it from the row without calling `f`.
 */
type Bound = { c: true; v: Value } | { c: false; f: RowValueFn; show?: (v: Value) => string; cell?: Cell };

/** A field read straight from the row; `text` writes it (a batch operator's style, or `show`), else displayValue. */
interface Cell {
  ordinal: number;
  text?: (v: Value) => string;
}

interface Env {
  scope: Scope;
  columns: Column[];
  dataset: Dataset;
  fxByRow: boolean;
  sql: boolean;
  /** evaluateText: no row exists, so a field is an error. */
  noRow: boolean;
  /** bindBatch: operators may expand. */
  batch?: { rows: readonly Value[][]; firstIndex: number };
  /** Inside a batch operator: how each field part is written (field-style.ts). */
  fieldStyles?: Map<Part, (type: ColumnType) => (v: Value) => string>;
  /** BindOptions.reads. */
  reads?: Set<number>;
}

function constant(v: Value): Bound {
  return { c: true, v };
}

function bindField(part: FieldPart, env: Env): Bound {
  if (env.noRow) {
    throw new ScriptError(
      `{{${part.name}}} needs a row: fields can be used in column defaults, payloads and per-row texts, not here`,
      'runtime',
      part.pos,
    );
  }
  const ordinal = env.dataset.indexOf(part.name);
  if (ordinal < 0) {
    const known = env.columns.map((c) => c.name).join(', ') || '(none)';
    throw new ScriptError(`unknown column '${part.name}' in {{${part.name}}} (columns: ${known})`, 'runtime', part.pos);
  }
  env.reads?.add(ordinal);
  const styled = env.fieldStyles?.get(part);
  if (styled) {
    const write = prefixed(part.prefix, styled, env.columns[ordinal].type);
    return { c: false, f: (row) => write(row[ordinal]), cell: { ordinal, text: write } };
  }
  if (!part.prefix) {
    const type = env.columns[ordinal].type;
    const sql = env.sql;
    const show =
      type.base === 'float' || type.base === 'decimal'
        ? (v: Value) => (v === null ? displayValue(v, sql) : formatValue(v, type))
        : undefined;
    return { c: false, f: (row) => row[ordinal], show, cell: { ordinal, text: show } };
  }
  const prefix = part.prefix;
  return { c: false, f: (row) => fieldText(row[ordinal], prefix) };
}

/** `{{@name}}`: one value for the whole text, so it needs no row; in a batch operator, written in its style. */
function bindVariable(part: VariablePart, env: Env): Bound {
  const v = env.scope.run.variable(part.name);
  if (v === undefined) {
    if (part.name.toLowerCase() === 'success')
      throw new ScriptError(`@${part.name} is only set in the ON_COMPLETION SQL of PUSH INTO DB`, 'runtime', part.pos);
    const known = env.scope.run
      .variableNames()
      .map((n) => `@${n}`)
      .join(', ');
    throw new ScriptError(`unknown pipeline variable @${part.name} (known: ${known})`, 'runtime', part.pos);
  }
  const styled = env.fieldStyles?.get(part);
  if (styled) return constant(prefixed(part.prefix, styled, inferType([v]))(v));
  return constant(part.prefix ? fieldText(v, part.prefix) : v);
}

/**
 * A batch operator's writer of a field, with its binary prefix applied first: `{{base64:f}}` is text,
 * so it is quoted and escaped as text is (a JSON string, a SQL literal), and null stays null.
 */
function prefixed(
  prefix: BinaryPrefix | undefined,
  styled: (type: ColumnType) => (v: Value) => string,
  type: ColumnType,
): (v: Value) => string {
  if (!prefix) return styled(type);
  const write = styled(STRING);
  return (v) => write(v === null ? null : fieldText(v, prefix));
}

/** Concatenation of parts as text; a single part keeps its value (and type). */
function bindParts(parts: Part[], env: Env): Bound {
  if (parts.length === 0) return constant('');
  if (parts.length === 1) return bindPart(parts[0], env);
  const bound = parts.map((p) => bindPart(p, env));
  const sql = env.sql;
  if (bound.every((b) => b.c)) return constant(bound.map((b) => displayValue((b as { v: Value }).v, sql)).join(''));
  // Adjacent constants are merged so the row function only concatenates what varies.
  const items: (string | Extract<Bound, { c: false }>)[] = [];
  for (const b of bound) {
    const text = b.c ? displayValue(b.v, sql) : undefined;
    const last = items[items.length - 1];
    if (text !== undefined && typeof last === 'string') items[items.length - 1] = last + text;
    else items.push(text ?? (b as Extract<Bound, { c: false }>));
  }
  return { c: false, f: concatenation(items, sql) };
}

type Concatenation = (
  constants: string[],
  fns: ((...args: never[]) => unknown)[],
  display: typeof displayValue,
  sql: boolean,
) => RowValueFn;
const concatenations = new Map<string, Concatenation>();
const CONCATENATION_CACHE_LIMIT = 1000;

/**
 * The parts of a template concatenated by straight-line code generated once per shape of template:
 * a field is read from the row in place, and every other part gets a call site of its own that the
 * engine can inline, where a loop over the parts would call every kind of part from one site (~8 %
 * off making @concatjson bodies, bench/push.ts). The generated code holds only names and integer
 * ordinals; texts and functions are passed in.
 */
function concatenation(items: (string | Extract<Bound, { c: false }>)[], sql: boolean): RowValueFn {
  const constants: string[] = [];
  const fns: ((...args: never[]) => unknown)[] = [];
  const terms = items.map((item) => {
    if (typeof item === 'string') return `c${constants.push(item) - 1}`;
    const { cell, f, show } = item;
    if (cell)
      return cell.text
        ? `f${fns.push(cell.text) - 1}(row[${cell.ordinal | 0}])`
        : `display(row[${cell.ordinal | 0}], sql)`;
    const call = `f${fns.push(f) - 1}(row, i)`;
    return show ? `f${fns.push(show) - 1}(${call})` : `display(${call}, sql)`;
  });
  const body = terms.join(' + ');
  let make = concatenations.get(body);
  if (!make) {
    const names = (prefix: string, n: number) => Array.from({ length: n }, (_, k) => `${prefix}${k}`).join(', ');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled once per template shape, run per row
    make = new Function(
      'constants',
      'fns',
      'display',
      'sql',
      `const [${names('c', constants.length)}] = constants; const [${names('f', fns.length)}] = fns; return (row, i) => ${body};`,
    ) as Concatenation;
    if (concatenations.size >= CONCATENATION_CACHE_LIMIT) concatenations.clear();
    concatenations.set(body, make);
  }
  return make(constants, fns, displayValue, sql);
}

function bindPart(part: Part, env: Env): Bound {
  switch (part.kind) {
    case 'text':
      return constant(part.text);
    case 'field':
      return bindField(part, env);
    case 'variable':
      return bindVariable(part, env);
    case 'call':
      return part.def.raw ? bindOperator(part, env) : bindCall(part, env);
  }
}

function bindArg(arg: Arg, env: Env): Bound {
  if (arg.isNull) return constant(null);
  if (arg.quote && arg.parts.length === 1 && arg.parts[0].kind !== 'text') {
    // '…' around one call or field: the quotes only protect commas; the result is text.
    const inner = bindPart(arg.parts[0], env);
    const sql = env.sql;
    if (inner.c) return constant(displayValue(inner.v, sql));
    const { f, show } = inner;
    return { c: false, f: show ? (row, i) => show(f(row, i)) : (row, i) => displayValue(f(row, i), sql) };
  }
  return bindParts(arg.parts, env);
}

function callError(e: unknown, ctx: CallContext): ScriptError {
  if (e instanceof ScriptError) {
    if (!e.message.startsWith(ctx.fn)) e.message = `${ctx.fn}: ${e.message}`;
    return e.locate(ctx.pos);
  }
  const message = e instanceof Error ? e.message : String(e);
  return new ScriptError(`${ctx.fn}: ${message}`, 'runtime', ctx.pos);
}

function bindCall(part: CallPart, env: Env): Bound {
  const { def } = part;
  const impl = def.impl!;
  const fn = `${part.sigil}${part.name}`;
  const n = part.args.length;
  if (n < def.arity[0] || n > def.arity[1]) {
    const want =
      def.arity[0] === def.arity[1]
        ? `${def.arity[0]}`
        : def.arity[1] === Infinity
          ? `at least ${def.arity[0]}`
          : `${def.arity[0]} to ${def.arity[1]}`;
    // The usage is shown as the call was written (`@hash_sha256(a)` for an @ call, an alias's name).
    const usage = fn + def.signature.slice(def.signature.indexOf('('));
    throw new ScriptError(
      `${fn} takes ${want} argument${/^(at least )?1$/.test(want) ? '' : 's'}, got ${n}: ${usage}`,
      'runtime',
      part.pos,
    );
  }
  const ctx: CallContext = { scope: env.scope, fn, pos: part.pos, quotes: part.args.map((a) => a.quote), sql: env.sql };
  const args = part.args.map((a) => bindArg(a, env));
  const once = part.sigil === '#' && !env.fxByRow;
  if (args.every((a) => a.c)) {
    const values = args.map((a) => (a as { v: Value }).v);
    const call = (): Value => {
      try {
        return impl(values, ctx);
      } catch (e) {
        throw callError(e, ctx);
      }
    };
    if (once || env.noRow) return constant(call());
    return { c: false, f: call };
  }
  // The argument array is reused per row: implementations read it during the call and never keep it.
  const buffer = new Array<Value>(n).fill(null);
  const argFns: RowValueFn[] = args.map((a) =>
    a.c
      ? (
          (v: Value) => () =>
            v
        )(a.v)
      : a.f,
  );
  if (n === 1) {
    const a0 = argFns[0];
    return {
      c: false,
      f: (row, i) => {
        buffer[0] = a0(row, i);
        try {
          return impl(buffer, ctx);
        } catch (e) {
          throw callError(e, ctx);
        }
      },
    };
  }
  return {
    c: false,
    f: (row, i) => {
      for (let k = 0; k < n; k++) buffer[k] = argFns[k](row, i);
      try {
        return impl(buffer, ctx);
      } catch (e) {
        throw callError(e, ctx);
      }
    },
  };
}

/**
 * `@sql(expr)` outside a batch is a computed column in the expression language (reference A, APPLY
 * SCHEMA). The batch operators (@concatjson, @sql_union…) expand a row template over a PUSH batch.
 */
function bindOperator(part: CallPart, env: Env): Bound {
  const name = part.def.names[0];
  if (!env.batch) {
    if (name === 'sql') return bindSqlExpression(part, env);
    throw new ScriptError(
      `${part.sigil}${part.name} joins the rows of a batch: use it in a PUSH payload with BATCH N greater than 1`,
      'runtime',
      part.pos,
    );
  }
  const template = compileTemplate(
    { value: part.raw!, pos: part.rawPos!, form: 'block' },
    { sql: name.startsWith('sql'), fieldStyle: OPERATOR_STYLE[name] },
  );
  const rowFn = template.bind(env.scope, env.dataset, { fxByRow: true });
  const { separator, terminator } = OPERATOR_JOIN[name];
  const batch = env.batch;
  return {
    c: false,
    f: () => {
      let s = '';
      const rows = batch.rows;
      for (let k = 0; k < rows.length; k++) {
        if (k > 0) s += separator;
        s += rowFn(rows[k], batch.firstIndex + k);
      }
      return rows.length ? s + terminator : s;
    },
  };
}

/** How each batch operator joins its per-row texts (documented in operators.ts and docs/functions.md). */
export const OPERATOR_JOIN: Record<string, { separator: string; terminator: string }> = {
  concatjson: { separator: ',', terminator: '' },
  concatjsonarr: { separator: ',', terminator: '' },
  concatxml: { separator: '', terminator: '' },
  sql: { separator: ';\n', terminator: ';' },
  sql_union: { separator: '\nUNION\n', terminator: '' },
  sql_unionall: { separator: '\nUNION ALL\n', terminator: '' },
  sql_concat: { separator: ',\n', terminator: '' },
};

function bindSqlExpression(part: CallPart, env: Env): Bound {
  if (env.noRow) throw new ScriptError('@sql(expression) computes a column: it needs a row', 'runtime', part.pos);
  const expression = expressionEngine().compileExpression(part.raw!, part.rawPos);
  const bound = expression.bind(env.columns, env.scope);
  if (env.reads) {
    for (const name of expression.columns) {
      const ordinal = env.dataset.indexOf(name);
      if (ordinal >= 0) env.reads.add(ordinal);
    }
  }
  return { c: false, f: (row) => bound(row) };
}

// ----------------------------------------------------------------------------- public API

function textOf(text: Text | string): { value: string; pos?: Position } {
  return typeof text === 'string' ? { value: text } : { value: text.value, pos: text.pos };
}

function usesRow(parts: Part[]): boolean {
  return parts.some(
    (p) =>
      p.kind === 'field' ||
      (p.kind === 'call' && (p.sigil === '@' || p.def.raw !== undefined || p.args.some((a) => usesRow(a.parts)))),
  );
}

function fieldsOf(parts: Part[], out: string[]): string[] {
  for (const p of parts) {
    if (p.kind === 'field') out.push(p.name);
    else if (p.kind === 'call') for (const a of p.args) fieldsOf(a.parts, out);
  }
  return out;
}

function hasBatchOperator(parts: Part[]): boolean {
  return parts.some(
    (p) => p.kind === 'call' && (p.def.raw !== undefined || p.args.some((a) => hasBatchOperator(a.parts))),
  );
}

function makeEnv(scope: Scope, dataset: Dataset, options: BindOptions | undefined, sql: boolean): Env {
  return {
    scope,
    dataset,
    columns: dataset.columns,
    fxByRow: options?.fxByRow ?? false,
    sql,
    noRow: false,
    reads: options?.reads,
  };
}

function toRowText(b: Bound, sql: boolean): RowTextFn {
  if (b.c) {
    const s = displayValue(b.v, sql);
    return () => s;
  }
  const { f, show } = b;
  if (show) return (row, i) => show(f(row, i));
  return (row, i) => displayValue(f(row, i), sql);
}

/** The writer of each top-level field of a batch operator's row template. */
function fieldStyles(
  parts: Part[],
  style: FieldStyle,
  stringsOnly = false,
): Map<Part, (type: ColumnType) => (v: Value) => string> {
  const inside = insideStrings(parts, style);
  const out = new Map<Part, (type: ColumnType) => (v: Value) => string>();
  parts.forEach((p, i) => {
    if ((p.kind === 'field' || p.kind === 'variable') && (inside[i] || !stringsOnly))
      out.set(p, (type) => styledField(style, inside[i], type));
  });
  return out;
}

export function compileTemplate(text: Text | string, options: CompileOptions = {}): CompiledTemplate {
  const { value, pos } = textOf(text);
  const parts = parseTemplate(value, pos);
  const sql = options.sql ?? false;
  const styles = options.fieldStyle && fieldStyles(parts, options.fieldStyle, options.stringsOnly);
  return {
    perRow: usesRow(parts),
    batch: hasBatchOperator(parts),
    fields: fieldsOf(parts, []),
    bind(scope, dataset, bindOptions) {
      return toRowText(bindParts(parts, { ...makeEnv(scope, dataset, bindOptions, sql), fieldStyles: styles }), sql);
    },
    bindBatch(scope, dataset, bindOptions) {
      const env: Env = { ...makeEnv(scope, dataset, bindOptions, sql), fieldStyles: styles };
      // The operators read the batch through this holder, set before each call; outside the
      // operators, fields read the batch's first row.
      const holder = { rows: [] as readonly Value[][], firstIndex: 0 };
      env.batch = holder;
      const f = toRowText(bindParts(parts, env), sql);
      return (rows, firstIndex) => {
        holder.rows = rows;
        holder.firstIndex = firstIndex;
        return f(rows[0] ?? [], firstIndex);
      };
    },
  };
}

export function compileValue(text: Text | string, options: CompileOptions = {}): CompiledValue {
  const { value, pos } = textOf(text);
  const trimmed = value.trim();
  // A whole-text call or field keeps its type; anything else is text.
  const lead = value.length - value.trimStart().length;
  const parts = parseTemplate(trimmed, positionIn(pos, value, lead));
  const whole = parts.length === 1 && parts[0].kind !== 'text' ? parts : parseTemplate(value, pos);
  const sql = options.sql ?? false;
  return {
    perRow: usesRow(whole),
    bind(scope, dataset, bindOptions) {
      const b = bindParts(whole, makeEnv(scope, dataset, bindOptions, sql));
      if (b.c) {
        const v = b.v;
        return () => v;
      }
      return b.f;
    },
  };
}

/** One part of a parsed text compiled as a value of its own, with the fields it reads. */
export interface CompiledPart extends CompiledValue {
  readonly fields: string[];
}

/**
 * A `{{field}}` or a call of a parsed text as one value, keeping its type: the SQL of EXEC ON DB and
 * SELECT FROM DB sends each as a bind parameter instead of splicing its text into the statement.
 */
export function compilePart(part: Part, options: CompileOptions = {}): CompiledPart {
  const sql = options.sql ?? false;
  return {
    perRow: usesRow([part]),
    fields: fieldsOf([part], []),
    bind(scope, dataset, bindOptions) {
      const b = bindPart(part, makeEnv(scope, dataset, bindOptions, sql));
      if (b.c) {
        const v = b.v;
        return () => v;
      }
      return b.f;
    },
  };
}

const EMPTY = Dataset.empty();
const cache = new Map<string, Part[]>();
const CACHE_LIMIT = 500;
/**
 * Parsed texts by their node, for a script's texts (a job's parsed script runs once per webhook
 * call): looked up without making a key of the text. Parsing does not depend on the options.
 */
const parsedNodes = new WeakMap<Text, Part[]>();
/** The text of a template without any field, variable or function, or null: nothing to evaluate. */
const literals = new WeakMap<Part[], string | null>();

function partsOf(text: Text | string, sql: boolean): Part[] {
  const node = typeof text === 'string' ? undefined : text;
  let parts = node && parsedNodes.get(node);
  if (parts) return parts;
  const { value, pos } = textOf(text);
  const key = `${sql ? 1 : 0}${pos ? `${pos.offset}:${pos.line}:${pos.column}` : ''}|${value}`;
  parts = cache.get(key);
  if (!parts) {
    parts = parseTemplate(value, pos);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, parts);
  }
  if (node) parsedNodes.set(node, parts);
  return parts;
}

function literalOf(parts: Part[]): string | null {
  let literal = literals.get(parts);
  if (literal === undefined) {
    literal = parts.every((p) => p.kind === 'text') ? parts.map((p) => (p as { text: string }).text).join('') : null;
    literals.set(parts, literal);
  }
  return literal;
}

/**
 * A text evaluated once, outside any row (PRINT, URLs, settings): `#f()` and `@f()` both run once.
 * Parsed texts are cached by content, as APPLY PIPELINE runs the same statements once per page.
 */
export function evaluateText(text: Text | string, scope: Scope, options: CompileOptions = {}): string {
  const sql = options.sql ?? false;
  const parts = partsOf(text, sql);
  // Field styles only change how fields and variables are written: a literal is its own value.
  const literal = literalOf(parts);
  if (literal !== null) return literal;
  const env: Env = { scope, dataset: EMPTY, columns: [], fxByRow: false, sql, noRow: true };
  if (options.fieldStyle) env.fieldStyles = fieldStyles(parts, options.fieldStyle, options.stringsOnly);
  return toRowText(bindParts(parts, env), sql)([], 0);
}

export { FunctionError };
