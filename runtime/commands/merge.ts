import type { Dataset } from '../dataset/dataset';
import { formatValue } from '../dataset/format-value';
import { engineFor } from '../db/engine-for';
import { addColumns, allColumns, createTable, matchColumns, requireColumns, showTable, tableName } from '../db/tables';
import { isPrimaryKey, mergeByKeys, tableKeys, upsertRows, type MergeCounts } from '../db/upsert';
import { positionIn, ScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import type { Merge, Text } from '../script/ast';
import { atArgument } from '../at-argument';
import type { Command } from './command';

/**
 * MERGE INTO [CONN] TABLE '…' { WITH { KEY COLUMNS '…' } { INSERTS } { UPDATES } { DELETES }
 * { SCHEMA_DRIFT } } (docs/databases.md). Compares the dataset with the table by the key columns, in
 * one transaction: INSERTS adds the rows whose key the table lacks, UPDATES rewrites the matching rows
 * that differ, DELETES removes the table's rows whose key the dataset lacks (the dataset must then
 * hold every record). None of the three named means all three. Without key columns the rows are
 * appended. A missing table is created from the dataset's types, with the keys as primary key; an
 * existing one gains the dataset's new columns only with SCHEMA_DRIFT (else they are not written).
 * The table's rows are matched through a staging table typed like the target (db/upsert.ts).
 */
export const merge: Command<Merge> = async (stmt, input, ctx) => {
  requireColumns(input, stmt.keyword);
  const engine = engineFor(ctx, stmt.connection);
  const table = atArgument(stmt.table, () => tableName(evaluateText(stmt.table, ctx), engine.dialect));
  const keys = stmt.keyColumns ? keyColumns(stmt.keyColumns, input) : [];
  const all = !stmt.inserts && !stmt.updates && !stmt.deletes;
  const ops = { inserts: all || stmt.inserts, updates: all || stmt.updates, deletes: all || stmt.deletes };
  if (keys.length === 0 && (stmt.updates || stmt.deletes)) {
    ctx.emit({
      kind: 'warning',
      text: 'MERGE without KEY COLUMNS appends every row: UPDATES and DELETES need key columns to match rows by',
    });
  }
  const counts = await engine.transaction(async (db): Promise<MergeCounts> => {
    let columns = await db.columns(table);
    if (!columns) {
      await createTable(db, table, input, keys);
      const inserted = ops.inserts || keys.length === 0 ? await db.insert(table.sql, allColumns(input), ctx.signal) : 0;
      return { inserted, updated: 0, deleted: 0 };
    }
    const { missing } = matchColumns(input, columns);
    if (missing.length && stmt.schemaDrift) columns = columns.concat(await addColumns(db, table, input, missing));
    else if (missing.length) {
      const names = missing.map((o) => input.columns[o].name).join(', ');
      ctx.emit({
        kind: 'warning',
        text: `MERGE: ${showTable(table)} has no column ${names}: not written (SCHEMA_DRIFT adds them)`,
      });
    }
    const { rows } = matchColumns(input, columns);
    if (keys.length === 0) return { inserted: await db.insert(table.sql, rows, ctx.signal), updated: 0, deleted: 0 };
    const matched = { inserts: ops.inserts, updates: ops.updates, deletesMissing: ops.deletes };
    const names = tableKeys(table, columns, keys);
    // By the primary key the engine's own upsert is the faster way (the dataset has no repeated keys).
    if (ops.inserts && ops.updates && !ops.deletes && isPrimaryKey(names, columns))
      return { ...(await upsertRows(db, table, rows, names, true, ctx.signal)), deleted: 0 };
    return mergeByKeys(db, table, rows, names, matched, ctx.signal);
  }, ctx.signal);
  ctx.emit({
    kind: 'message',
    text: `MERGE INTO ${showTable(table)}: ${counts.inserted} inserted, ${counts.updated} updated, ${counts.deleted} deleted`,
  });
};

/**
 * The key columns, spelt as the dataset spells them. Each must be a column, and together they must
 * identify each row: a null or repeated key would match nothing, or two rows, in the table.
 */
function keyColumns(text: Text, data: Dataset): string[] {
  const ordinals: number[] = [];
  for (const m of text.value.matchAll(/[^,]+/g)) {
    const name = m[0].trim();
    if (name === '') continue;
    const at = positionIn(text.pos, text.value, m.index + m[0].indexOf(name));
    ordinals.push(atArgument(at && { pos: at }, () => data.require(name)));
  }
  if (ordinals.length === 0) throw new ScriptError('KEY COLUMNS lists no column', 'semantic', text.pos);
  const values = ordinals.map((o) => data.vector(o));
  const types = ordinals.map((o) => data.columns[o].type);
  const seen = new Map<string, number>();
  for (let r = 0; r < data.rowCount; r++) {
    let key = '';
    for (let k = 0; k < values.length; k++) {
      const v = values[k].get(r);
      if (v === null)
        throw new ScriptError(`key column '${data.columns[ordinals[k]].name}' is null in row ${r + 1}`, 'runtime');
      key += (k ? '\u0000' : '') + formatValue(v, types[k]);
    }
    const before = seen.get(key);
    if (before !== undefined)
      throw new ScriptError(
        `rows ${before + 1} and ${r + 1} have the same key (${key.split('\u0000').join(', ')})`,
        'runtime',
      );
    seen.set(key, r);
  }
  return ordinals.map((o) => data.columns[o].name);
}
