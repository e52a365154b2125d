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
  const keys = ordinals.map((o, k) => `${k === 0 ? '{' : ','}${JSON.stringify(columns[o].name)}:`);
  const cells = ordinals.map((o, k) => jsonCell(columns[o], options, texts?.[k] ?? false));
  const writers = ordinals.map((o) => jsonWriter(columns[o].type, options));
  const concatenated: RowWriter = (row) => {
    let s = '';
    for (let k = 0; k < n; k++) {
      const v = row[ordinals[k]];
      if (v === null) s += `${keys[k]}null`;
      else if (cells[k] === JsonCell.Number && typeof v === 'number' && Number.isFinite(v)) s += keys[k] + v;
      else if (cells[k] === JsonCell.Text && typeof v === 'string') s += keys[k] + JSON.stringify(v);
      else if (cells[k] === JsonCell.DecimalText && typeof v === 'string') s += keys[k] + v;
      else if (cells[k] === JsonCell.DateText && typeof v === 'string') s += `${keys[k]}"${v}"`;
      else s += keys[k] + writers[k](v);
    }
    return flat(`${s}}`);
  };
  return objectRowWriter(columns, ordinals, options, concatenated, texts) ?? concatenated;
}
