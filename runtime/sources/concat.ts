import { converterTo } from '../dataset/convert';
import { Dataset } from '../dataset/dataset';
import { sameType } from '../dataset/type-names';
import { STRING, type Column, type ColumnType, type Value } from '../dataset/types';

/**
 * Stacks datasets read in parts (files of a glob, pages of an HTTP call). Columns are matched by name
 * (case-insensitive) in order of first appearance; a column missing from a part is null there. When
 * parts typed a column differently (int on one page, long on the next) it takes the type both fit:
 * the wider integer, double for an int with a double, decimal for a long or decimal with a fraction,
 * and string for anything else. A part that lacks a column does not change what the column says.
 */
export function concatDatasets(parts: Dataset[]): Dataset {
  if (parts.length === 0) return new Dataset();
  if (parts.length === 1) return parts[0];
  const columns: Column[] = [];
  const index = new Map<string, number>();
  for (const part of parts) {
    for (const c of part.columns) {
      const key = c.name.toLowerCase();
      const at = index.get(key);
      if (at === undefined) {
        index.set(key, columns.length);
        columns.push({ ...c });
      } else {
        columns[at] = joinedColumn(columns[at], c);
      }
    }
  }
  const total = parts.reduce((n, part) => n + part.rowCount, 0);
  const data = columns.map((c) => {
    const out = new Array<Value>(total);
    let at = 0;
    for (const part of parts) {
      const s = part.indexOf(c.name);
      const values = s < 0 ? undefined : part.column(s);
      const from = s < 0 ? undefined : part.columns[s].type;
      const convert = from && !sameType(from, c.type) ? converterTo(c.type, from) : undefined;
      for (let r = 0; r < part.rowCount; r++) {
        const v = values === undefined ? null : values[r];
        out[at++] = convert && v !== null ? convert(v) : v;
      }
    }
    return out;
  });
  return Dataset.encoded(columns, data, total);
}

/**
 * A column of the stack and the same column of a further part: the type both fit. The stack keeps
 * what the column says of its values (a description, FORMAT's mark) only while every part says it,
 * so ZIP does not judge again the fragments each page's inline ADD COLUMN … FORMAT wrote.
 */
function joinedColumn(stacked: Column, part: Column): Column {
  const joined: Column = { ...stacked, type: widenType(stacked.type, part.type) };
  if (part.writtenAs !== stacked.writtenAs) delete joined.writtenAs;
  if (part.description !== stacked.description) delete joined.description;
  return joined;
}

const INTEGER_RANK: Partial<Record<ColumnType['base'], number>> = { tinyint: 1, short: 2, int: 3, long: 4 };

/** The type values of both types fit in without losing digits. */
export function widenType(a: ColumnType, b: ColumnType): ColumnType {
  if (sameType(a, b)) return a;
  if (a.base === b.base && (a.base === 'string' || a.base === 'char')) return { base: 'string' };
  const ra = INTEGER_RANK[a.base];
  const rb = INTEGER_RANK[b.base];
  if (ra && rb) return ra >= rb ? a : b;
  const floating = (t: ColumnType) => t.base === 'double' || t.base === 'float';
  if (a.base === 'decimal' || b.base === 'decimal') {
    return (a.base === 'decimal' || ra || floating(a)) && (b.base === 'decimal' || rb || floating(b))
      ? { base: 'decimal' }
      : STRING;
  }
  if ((ra && floating(b)) || (rb && floating(a)))
    return a.base === 'long' || b.base === 'long' ? { base: 'decimal' } : { base: 'double' };
  if (floating(a) && floating(b)) return { base: 'double' };
  return STRING;
}
