import { Dataset } from '../dataset/dataset';
import { formatValue } from '../dataset/format-value';
import { profileColumn } from '../dataset/profile';
import { typeName } from '../dataset/type-names';
import { STRING, type Column, type ColumnType, type Value } from '../dataset/types';
import type { Result } from '../results';
import { atMagicArgument, splitArgs } from './args';
import type { Magic } from './magic';
import { thousands } from '../util/words';

/** How many of the most frequent values the profile names. */
const TOP_VALUES = 3;
/** A top value is cut to this many characters: one long document must not widen the whole table. */
const TOP_VALUE_WIDTH = 30;
const INT: ColumnType = { base: 'int' };

const PROFILE_COLUMNS: Column[] = [
  { name: 'column', type: STRING },
  { name: 'type', type: STRING },
  { name: 'nulls', type: INT },
  { name: 'distinct', type: INT },
  { name: 'min', type: STRING },
  { name: 'max', type: STRING },
  {
    name: 'top',
    type: STRING,
    description: `the ${TOP_VALUES} most frequent values with their counts; NULL when no value repeats`,
  },
];

function shown(v: Value, type: ColumnType): string | null {
  return v === null ? null : formatValue(v, type);
}

function topText(top: { value: Value; count: number }[], type: ColumnType): string | null {
  if (top.length === 0 || top[0].count < 2) return null;
  return top
    .map(({ value, count }) => {
      const text = formatValue(value, type);
      return `${text.length > TOP_VALUE_WIDTH ? `${text.slice(0, TOP_VALUE_WIDTH)}…` : text} (${thousands(count)})`;
    })
    .join(', ');
}

/**
 * The profile of the pipeline dataset (or of the columns named) as a table, one row per column.
 * It reads the column arrays, never rows, so it costs one pass over each column.
 */
export function describeDataset(ds: Dataset, names: string[]): Result {
  const ordinals = names.length ? names.map((n) => ds.require(n)) : ds.columns.map((_, i) => i);
  const rows = ordinals.map((c) => {
    const { name, type } = ds.columns[c];
    const p = profileColumn(ds.column(c), type.base, TOP_VALUES);
    return [name, typeName(type), p.nulls, p.distinct, shown(p.min, type), shown(p.max, type), topText(p.top, type)];
  });
  const size = `${thousands(ds.rowCount)} ${ds.rowCount === 1 ? 'row' : 'rows'}, ${ds.columns.length} ${ds.columns.length === 1 ? 'column' : 'columns'}`;
  return {
    kind: 'table',
    dataset: Dataset.fromRows(PROFILE_COLUMNS, rows),
    limit: Math.max(rows.length, 1),
    title: `Profile of the pipeline dataset (${size})`,
  };
}

/** %describe (describe-info.ts): the profile of the pipeline dataset or of the columns named. */
export const run: Magic['run'] = (session, args): Result[] => {
  const ds = session.dataset;
  if (ds.columns.length === 0)
    return [{ kind: 'message', text: 'the pipeline dataset has no columns yet: load data first' }];
  const names = splitArgs(args);
  for (const name of names) atMagicArgument(name, () => ds.require(name));
  return [describeDataset(ds, names)];
};
