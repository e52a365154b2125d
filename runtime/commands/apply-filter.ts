import { Dataset } from '../dataset/dataset';
import { ScriptError } from '../errors';
import { compileFilter } from '../expr';
import { comparer } from '../expr/operations';
import type { ApplyFilter } from '../script/ast';
import type { Scope } from '../scope';
import { cellText, regexTest, txTest, xpathTest, type CellTest } from './filter-documents';
import type { Command } from './command';

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
  const values = input.column(ordinal);
  const out: number[] = [];
  for (let r = 0; r < input.rowCount; r++) {
    const s = text(values[r]);
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
  const keys = text.value.split(',').map((part) => {
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
    return { values: input.column(ordinal), cmp, sign: m[2]?.toUpperCase() === 'DESC' ? -1 : 1 };
  });
  return Array.from(rows).sort((a, b) => {
    for (const { values, cmp, sign } of keys) {
      const x = values[a];
      const y = values[b];
      if (x === y) continue;
      const c = x === null ? -1 : y === null ? 1 : cmp(x, y);
      if (c !== 0) return c * sign;
    }
    return 0;
  });
}

export const applyFilter: Command<ApplyFilter> = async (stmt, input, ctx) => filterDataset(stmt, input, ctx);
