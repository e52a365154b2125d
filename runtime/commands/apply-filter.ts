import { Dataset } from '../dataset/dataset';
import { ScriptError } from '../errors';
import { compileFilter } from '../expr';
import { comparer, type Compare } from '../expr/operations';
import { bitAt, DictionaryVector, orderedNumbers, type Vector } from '../dataset/vector';
import type { ApplyFilter } from '../script/ast';
import type { Scope } from '../scope';
import { cellText, regexTest, txTest, xpathTest, type CellTest } from './filter-documents';
import type { Command } from './command';
import { splitList } from '../writers/fields';

/**
 * APPLY FILTER [SQL|REGEX|XPATH|TX] '<expression>' [ON '<col>'] [LIMIT n] [ORDER BY '…'] [KEEP_EMPTY]
 * [KEEP_INVALID] [CASE_INSENSITIVE] [SINGLE_LINE] (spec 4.2, docs/transformations.md). Rows are
 * filtered, then ordered (stable, typed), then cut to LIMIT. An empty SQL expression keeps every
 * row, so ORDER BY and LIMIT can be used alone. The input is never modified.
 */
export function filterDataset(stmt: ApplyFilter, input: Dataset, scope: Scope): Dataset {
  checkOptions(stmt);
  let kept: ArrayLike<number> | undefined;
  if (stmt.mode === 'SQL') {
    if (stmt.expression.value.trim() !== '') kept = filterRows(stmt, input, scope);
  } else {
    kept = filterDocuments(stmt, input);
  }
  if (stmt.orderBy) kept = sorted(kept ?? allRows(input.rowCount), stmt, input);
  if (kept === undefined) return input.slice(0, stmt.limit ?? input.rowCount);
  if (stmt.limit !== undefined && stmt.limit < kept.length)
    kept = Array.prototype.slice.call(kept, 0, stmt.limit) as number[];
  return input.pick(kept);
}

/** The indices of the rows the SQL filter keeps, computed a column at a time. */
function filterRows(stmt: ApplyFilter, input: Dataset, scope: Scope): Uint32Array {
  return compileFilter(stmt.expression.value, stmt.expression.pos).select(input, scope);
}

function allRows(count: number): number[] {
  return Array.from({ length: count }, (_, r) => r);
}

function checkOptions(stmt: ApplyFilter): void {
  const fail = (reason: string) => new ScriptError(reason, 'semantic', stmt.pos);
  if (stmt.mode === 'SQL') {
    if (stmt.on)
      throw fail('ON applies to REGEX, XPATH and TX filters; a SQL filter names its columns in the expression');
    if (stmt.keepEmpty || stmt.keepInvalid)
      throw fail('KEEP_EMPTY and KEEP_INVALID apply to REGEX, XPATH and TX filters');
  } else if (!stmt.on) {
    throw fail(`APPLY FILTER ${stmt.mode} needs ON '<column>': the column holding the text or document to test`);
  }
  if (stmt.mode !== 'REGEX' && (stmt.caseInsensitive || stmt.singleLine)) {
    throw fail('CASE_INSENSITIVE and SINGLE_LINE apply to REGEX filters');
  }
  if (stmt.limit !== undefined && (!Number.isInteger(stmt.limit) || stmt.limit < 0)) {
    throw fail(`LIMIT must be a whole number of rows (0 or more), not ${stmt.limit}`);
  }
}

function filterDocuments(stmt: ApplyFilter, input: Dataset): number[] {
  const on = stmt.on!;
  const ordinal = input.indexOf(on.value);
  if (ordinal < 0) {
    const known = input.columns.map((c) => c.name).join(', ') || '(none)';
    throw new ScriptError(`ON: unknown column '${on.value}' (columns: ${known})`, 'runtime', on.pos);
  }
  const text = cellText(input.columns[ordinal]);
  let test: CellTest;
  let finish = () => {};
  if (stmt.mode === 'REGEX') test = regexTest(stmt);
  else if (stmt.mode === 'XPATH') test = xpathTest(stmt);
  else ({ test, finish } = txTest(stmt));
  const values = input.vector(ordinal);
  const out: number[] = [];
  for (let r = 0; r < input.rowCount; r++) {
    const s = text(values.get(r));
    const verdict = s === undefined ? 'empty' : test(s);
    if (verdict === true || (verdict === 'empty' && stmt.keepEmpty) || (verdict === 'invalid' && stmt.keepInvalid))
      out.push(r);
  }
  finish();
  return out;
}

/** ORDER BY 'a, b DESC': typed comparisons (strings case-insensitive), nulls first ascending, stable. */
function sorted(rows: ArrayLike<number>, stmt: ApplyFilter, input: Dataset): number[] {
  const text = stmt.orderBy!;
  const keys = splitList(text.value).map((part) => {
    const m = /^\s*(.*?)(?:\s+(ASC|DESC))?\s*$/i.exec(part)!;
    const name = m[1].startsWith('[') && m[1].endsWith(']') ? m[1].slice(1, -1) : m[1];
    if (name === '') throw new ScriptError(`ORDER BY '${text.value}': a column name is missing`, 'semantic', text.pos);
    const ordinal = input.indexOf(name);
    if (ordinal < 0) {
      const known = input.columns.map((c) => c.name).join(', ') || '(none)';
      throw new ScriptError(`ORDER BY: unknown column '${name}' (columns: ${known})`, 'runtime', text.pos);
    }
    const kind = input.columns[ordinal].type.base;
    const cmp = comparer(kind);
    if (!cmp) throw new ScriptError(`ORDER BY: ${kind} column '${name}' has no order`, 'runtime', text.pos);
    return { order: rowOrder(input.vector(ordinal), cmp), sign: m[2]?.toUpperCase() === 'DESC' ? -1 : 1 };
  });
  return Array.from(rows).sort((a, b) => {
    for (const { order, sign } of keys) {
      const c = order(a, b);
      if (c !== 0) return c * sign;
    }
    return 0;
  });
}

/**
 * The order of two rows by one column, nulls first, read from its storage as `cmp` orders the values:
 * typed numbers, datetimes and decimals of one scale compared as stored, dictionary text by the rank
 * of its entries (ranked once), anything else by its values. No Date or Decimal is made per row.
 */
function rowOrder(vector: Vector, cmp: Compare): (a: number, b: number) => number {
  const ordered = orderedNumbers(vector);
  if (ordered) {
    const { numbers, nulls } = ordered;
    return (a, b) => {
      if (nulls) {
        const x = bitAt(nulls, a);
        const y = bitAt(nulls, b);
        if (x || y) return x === y ? 0 : x ? -1 : 1;
      }
      return numbers[a] < numbers[b] ? -1 : numbers[a] > numbers[b] ? 1 : 0;
    };
  }
  if (vector instanceof DictionaryVector) {
    const { codes } = vector;
    const rank = ranks(vector.table, cmp);
    return (a, b) => rank[codes[a]] - rank[codes[b]];
  }
  const values = vector.values();
  return (a, b) => {
    const x = values[a];
    const y = values[b];
    if (x === y) return 0;
    return x === null ? -1 : y === null ? 1 : cmp(x, y);
  };
}

/** The rank of each dictionary entry in `cmp`'s order, null (entry 0) lowest; entries `cmp` finds equal share one. */
function ranks(table: readonly (string | null)[], cmp: Compare): Int32Array {
  const order = Array.from({ length: table.length - 1 }, (_, k) => k + 1).sort((a, b) => cmp(table[a], table[b]));
  const rank = new Int32Array(table.length);
  order.forEach((entry, k) => {
    const previous = order[k - 1];
    rank[entry] = k > 0 && cmp(table[previous], table[entry]) === 0 ? rank[previous] : k + 1;
  });
  return rank;
}

export const applyFilter: Command<ApplyFilter> = async (stmt, input, ctx) => filterDataset(stmt, input, ctx);
