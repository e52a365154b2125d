import type { Value } from '../dataset/types';

/**
 * A record writer: compiled once for a schema, the selected fields and the options (keys, tags,
 * cell writers and quoting decided up front), then called once per row. The row is indexed by
 * column ordinal, as `Dataset.reader()` fills it.
 */
export type RowWriter = (row: readonly Value[]) => string;

/**
 * A record built by `+=` is a rope of small pieces; kept by the million (ADD COLUMN … FORMAT) they
 * cost more in garbage collection than building them did. Reading a character makes V8 flatten it.
 */
export function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}
