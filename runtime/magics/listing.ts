import { Dataset } from '../dataset/dataset';
import { STRING, type ColumnType } from '../dataset/types';
import type { Result } from '../results';

const INT: ColumnType = Object.freeze({ base: 'int' });

/**
 * A small table, as magics list things: text, and an int column where the magic gives numbers (call
 * numbers, row counts, statuses), so that they read, align and sort as numbers.
 */
export function listing(columns: string[], rows: (string | number | null)[][], title?: string): Result {
  return {
    kind: 'table',
    dataset: Dataset.fromRows(
      columns.map((name, c) => ({
        name,
        type: rows.length > 0 && rows.every((r) => typeof r[c] === 'number') ? INT : STRING,
      })),
      rows,
    ),
    limit: Math.max(rows.length, 1),
    title,
  };
}
