import { ScriptError } from '../errors';
import type { BulkRows, DbSession, TableColumn, TableName, Upserted } from './engine';
import { dropTable, primaryKeyOf, showTable, stagingFor } from './tables';

/**
 * Rows matched with a table's rows by key columns, through a staging table typed like the target (so
 * a text '10' matches a bigint key): what MERGE and PUSH INTO DB's AUTO_MERGE run. Plain UPDATE … FROM,
 * INSERT … WHERE NOT EXISTS and DELETE … WHERE [NOT] EXISTS need no unique index on the keys (INSERT …
 * ON CONFLICT would) and run the same on both engines.
 */

export interface MergeCounts extends Upserted {
  deleted: number;
}

export interface MergeOps {
  inserts: boolean;
  updates: boolean;
  /** Deletes the table's rows whose key the rows lack (MERGE … DELETES: the rows are every record). */
  deletesMissing: boolean;
}

/** The key columns under the table's spelling; a key the table lacks is an error. */
export function tableKeys(table: TableName, columns: readonly TableColumn[], keys: readonly string[]): string[] {
  const byName = new Map(columns.map((c) => [c.name.toLowerCase(), c.name]));
  return keys.map((k) => {
    const name = byName.get(k.toLowerCase());
    if (name === undefined)
      throw new ScriptError(`key column '${k}' is not a column of ${showTable(table)}`, 'runtime');
    return name;
  });
}

/** Upserts `rows` by `keys` (the table's spelling, tableKeys): inserts new keys, updates rows that differ. */
export async function mergeByKeys(
  db: DbSession,
  table: TableName,
  rows: BulkRows,
  keys: readonly string[],
  ops: MergeOps,
  signal: AbortSignal,
): Promise<MergeCounts> {
  const { quote, differs } = db.dialect;
  const stage = await stagingFor(db, table, rows, signal);
  const target = table.sql;
  const keySet = new Set(keys);
  const others = rows.columns.filter((c) => !keySet.has(c));
  const counts: MergeCounts = { inserted: 0, updated: 0, deleted: 0 };
  if (ops.deletesMissing) {
    counts.deleted = await db.exec(
      `DELETE FROM ${target} AS t WHERE NOT EXISTS (SELECT 1 FROM ${stage} AS s WHERE ${matches(db, keys, 's', 't')})`,
      [],
    );
  }
  if (ops.updates && others.length) {
    const set = others.map((c) => `${quote(c)} = s.${quote(c)}`).join(', ');
    const changed = others.map((c) => differs(`t.${quote(c)}`, `s.${quote(c)}`)).join(' OR ');
    counts.updated = await db.exec(
      `UPDATE ${target} AS t SET ${set} FROM ${stage} AS s WHERE ${matches(db, keys, 't', 's')} AND (${changed})`,
      [],
    );
  }
  if (ops.inserts) {
    const list = rows.columns.map(quote);
    counts.inserted = await db.exec(
      `INSERT INTO ${target} (${list.join(', ')}) SELECT ${list.map((c) => `s.${c}`).join(', ')} FROM ${stage} AS s ` +
        `WHERE NOT EXISTS (SELECT 1 FROM ${target} AS t WHERE ${matches(db, keys, 't', 's')})`,
      [],
    );
  }
  await dropTable(db, stage);
  return counts;
}

/** Whether `keys` (the table's spelling) are the table's primary key, in any order. */
export function isPrimaryKey(keys: readonly string[], columns: readonly TableColumn[]): boolean {
  const primary = primaryKeyOf(columns);
  return keys.length === primary.length && keys.every((k) => primary.includes(k));
}

/**
 * Upserts `rows` by `keys`: inserts new keys, updates rows that differ. When the keys are the table's
 * primary key, the engine's own way (DbSession.upsertByPrimaryKey); else through a staging table
 * (mergeByKeys).
 */
export async function upsertRows(
  db: DbSession,
  table: TableName,
  rows: BulkRows,
  keys: readonly string[],
  primaryKey: boolean,
  signal: AbortSignal,
): Promise<Upserted> {
  if (primaryKey && db.upsertByPrimaryKey) return db.upsertByPrimaryKey(table.sql, rows, keys, signal);
  return mergeByKeys(db, table, rows, keys, { inserts: true, updates: true, deletesMissing: false }, signal);
}

/** Deletes the table's rows whose key is one of `rows`' (their other columns are not read); resolves how many. */
export async function deleteByKeys(
  db: DbSession,
  table: TableName,
  rows: BulkRows,
  keys: readonly string[],
  signal: AbortSignal,
): Promise<number> {
  const stage = await stagingFor(db, table, rows, signal);
  const deleted = await db.exec(
    `DELETE FROM ${table.sql} AS t WHERE EXISTS (SELECT 1 FROM ${stage} AS s WHERE ${matches(db, keys, 's', 't')})`,
    [],
  );
  await dropTable(db, stage);
  return deleted;
}

function matches(db: DbSession, keys: readonly string[], a: string, b: string): string {
  const { quote } = db.dialect;
  return keys.map((k) => `${a}.${quote(k)} = ${b}.${quote(k)}`).join(' AND ');
}
