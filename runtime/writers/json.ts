import type { Column } from '../dataset/types';
import { jsonWriter, keepsStrings } from './cells';
import { objectRowWriter } from './json-object';
import type { CellOptions } from './options';
import { flat, type RowWriter } from './row-writer';

const enum JsonCell {
  Number,
  Text,
  /** A decimal given as its text (records.ts): written as it is. */
  DecimalText,
  /** A datetime given as its text: quoted (the text never needs escaping). */
  DateText,
  Other,
}

/**
 * The kind of cell a JSON field holds, so the row loop can write plain numbers and strings inline
 * (the bulk of real rows) and call a column's writer only for the other types.
 */
function jsonCell(column: Column, options: CellOptions, text: boolean): JsonCell {
  switch (column.type.base) {
    case 'tinyint':
    case 'short':
    case 'int':
    case 'double':
      return JsonCell.Number;
    case 'string':
    case 'char':
    case 'guid':
      return keepsStrings(options) ? JsonCell.Text : JsonCell.Other;
    case 'decimal':
      return text ? JsonCell.DecimalText : JsonCell.Other;
    case 'datetime':
      return text ? JsonCell.DateText : JsonCell.Other;
    default:
      return JsonCell.Other;
  }
}

/** The expression of a non-null cell `v` of field `k`'s kind, its column's writer for a cell of another JS type. */
function cellCode(cell: JsonCell, v: string, k: number): string {
  const other = `write[${k}](${v})`;
  switch (cell) {
    case JsonCell.Number:
      return `typeof ${v} === 'number' && ${v} - ${v} === 0 ? ${v} : ${other}`;
    case JsonCell.Text:
      return `typeof ${v} === 'string' ? stringify(${v}) : ${other}`;
    case JsonCell.DecimalText:
      return `typeof ${v} === 'string' ? ${v} : ${other}`;
    case JsonCell.DateText:
      return `typeof ${v} === 'string' ? '"' + ${v} + '"' : ${other}`;
    case JsonCell.Other:
      return other;
  }
}

/**
 * A JSON object per row, keys the column names: types kept (longs and decimals with their exact
 * digits, null as null; dates, bytes and guids as strings, docs/types.md). Through JSON.stringify
 * of a generated object when the schema allows it (json-object.ts), else cell by cell.
 */
export function jsonObjectWriter(
  columns: readonly Column[],
  ordinals: readonly number[],
  options: CellOptions,
  texts?: readonly boolean[],
): RowWriter {
  const n = ordinals.length;
  if (n === 0) return () => '{}';
  const cells = ordinals.map((o, k) => jsonCell(columns[o], options, texts?.[k] ?? false));
  const writers = ordinals.map((o) => jsonWriter(columns[o].type, options));
  const reads = ordinals.map((o, k) => `v${k} = row[${o}]`).join(', ');
  const fields = ordinals.map((o, k) => {
    const key = JSON.stringify(`${k === 0 ? '{' : ','}${JSON.stringify(columns[o].name)}:`);
    return `${key} + (v${k} === null ? 'null' : ${cellCode(cells[k], `v${k}`, k)})`;
  });
  const source = `return function jsonRow(row) {
  const ${reads};
  return flat(${fields.join(' + ')} + '}');
};`;
  // One concatenation per row, no per-cell dispatch: generated from column ordinals and JSON-escaped
  // names (as JS string literals) only, so no user text reaches it unquoted.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled once per schema, run per row
  const compile = new Function('write', 'stringify', 'flat', source) as (...args: unknown[]) => RowWriter;
  const concatenated = compile(writers, JSON.stringify, flat);
  return objectRowWriter(columns, ordinals, options, concatenated, texts) ?? concatenated;
}
