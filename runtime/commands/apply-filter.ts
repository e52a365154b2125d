import { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { compileFilter } from '../expr';
import { comparer } from '../expr/operations';
import type { ApplyFilter } from '../script/ast';
import type { RuntimeState } from '../state';
import { cellText, regexTest, txTest, xpathTest, type CellTest } from './filter-documents';
import { registerCommand } from './registry';

/**
 * APPLY FILTER [SQL|REGEX|XPATH|TX] '<expression>' [ON '<col>'] [LIMIT n] [ORDER BY '…'] [KEEP_EMPTY]
 * [KEEP_INVALID] [CASE_INSENSITIVE] [SINGLE_LINE] (spec 4.2, docs/transformations.md). Rows are
 * filtered, then ordered (stable, typed), then cut to LIMIT. An empty SQL expression keeps every
 * row, so ORDER BY and LIMIT can be used alone. Rows are shared with the input, never modified.
 */
export function applyFilter(stmt: ApplyFilter, state: RuntimeState): Dataset {
  const input = state.dataset;
  checkOptions(stmt);
  let rows = input.rows;
  if (stmt.mode === 'SQL') {
    if (stmt.expression.value.trim() !== '') {
      const keep = compileFilter(stmt.expression.value, stmt.expression.pos).bind(input.columns, state);
      const out: Value[][] = [];
      for (let i = 0; i < rows.length; i++) if (keep(rows[i])) out.push(rows[i]);
      rows = out;
    }
  } else {
    rows = filterDocuments(stmt, input);
  }
  if (stmt.orderBy) rows = sorted(rows, stmt, input);
  if (stmt.limit !== undefined) rows = rows.slice(0, stmt.limit);
  return new Dataset(input.columns.map((c) => ({ ...c })), rows === input.rows ? rows.slice() : rows);
}

function checkOptions(stmt: ApplyFilter): void {
  const fail = (reason: string) => new ScriptError(reason, 'semantic', stmt.pos);
  if (stmt.mode === 'SQL') {
    if (stmt.on) throw fail('ON applies to REGEX, XPATH and TX filters; a SQL filter names its columns in the expression');
    if (stmt.keepEmpty || stmt.keepInvalid) throw fail('KEEP_EMPTY and KEEP_INVALID apply to REGEX, XPATH and TX filters');
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

function filterDocuments(stmt: ApplyFilter, input: Dataset): Value[][] {
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
  const out: Value[][] = [];
  for (const row of input.rows) {
    const s = text(row[ordinal]);
    const verdict = s === undefined ? 'empty' : test(s);
    if (verdict === true || (verdict === 'empty' && stmt.keepEmpty) || (verdict === 'invalid' && stmt.keepInvalid)) out.push(row);
  }
  finish();
  return out;
}

/** ORDER BY 'a, b DESC': typed comparisons (strings case-insensitive), nulls first ascending, stable. */
function sorted(rows: Value[][], stmt: ApplyFilter, input: Dataset): Value[][] {
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
    return { ordinal, cmp, sign: m[2]?.toUpperCase() === 'DESC' ? -1 : 1 };
  });
  return rows.slice().sort((a, b) => {
    for (const { ordinal, cmp, sign } of keys) {
      const x = a[ordinal];
      const y = b[ordinal];
      if (x === y) continue;
      const c = x === null ? -1 : y === null ? 1 : cmp(x, y);
      if (c !== 0) return c * sign;
    }
    return 0;
  });
}

registerCommand('ApplyFilter', async (stmt, ctx) => applyFilter(stmt, ctx.state));
