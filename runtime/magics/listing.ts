import { Dataset } from '../dataset/dataset';
import { STRING } from '../dataset/types';
import type { Result } from '../results';

/** A small all-string table, as magics list things. */
export function listing(columns: string[], rows: string[][], title?: string): Result {
  return {
    kind: 'table',
    dataset: Dataset.fromRows(
      columns.map((name) => ({ name, type: STRING })),
      rows,
    ),
    limit: Math.max(rows.length, 1),
    title,
  };
}
