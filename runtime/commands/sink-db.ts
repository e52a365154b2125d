import type { BulkRows, DbSession, TableColumn, TableName } from '../db/engine';
import { engineFor } from '../db/engine-for';
import {
  addColumns,
  createTable,
  dropTable,
  matchColumns,
  primaryKeyOf,
  requireColumns,
  showTable,
  stagingFor,
  tableName,
} from '../db/tables';
import { ScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import type { RunState } from '../scope';
import type { SinkDb, Text } from '../script/ast';
import type { Dataset } from '../dataset/dataset';
import { cellShaper } from '../sources/files/shape-thread';
import { compileTx, transformColumn } from '../sources/tx';
import { floatsAsDecimal } from '../functions/json-format';
import { atArgument } from '../at-argument';
import type { Command, CommandContext } from './command';

/**
 * What already happened in a run: the SINK statements that ran (TRUNCATE_APPEND and RECREATE_APPEND
 * reset the table only the first time) and the tables AUTO_CLEAN drops at its end.
 */
const ran = new WeakMap<RunState, WeakSet<SinkDb>>();
const cleaned = new WeakMap<RunState, Set<string>>();

/**
 * SINK INTO DB [CONN] TABLE '<table>' { WITH { TRUNCATE | RECREATE | TRUNCATE_APPEND | RECREATE_APPEND }
 * { REPLACE } { AUTO_CLEAN } } (docs/databases.md). Writes the whole dataset to the table in one
 * transaction, creating the table from the dataset's types when missing and adding the columns it
 * lacks. TRUNCATE/RECREATE reset the table each time the statement runs (in an inline pipeline: each
 * page); the _APPEND forms only the first time in the run, then append. REPLACE replaces the rows
 * whose primary key matches; AUTO_CLEAN drops the table when the run ends (a staging table). ON COLUMN
 * writes the records of the documents a column holds instead of the rows (`shredded`).
 */
export const sinkDb: Command<SinkDb> = async (stmt, given, ctx) => {
  const input = stmt.onColumn ? await shredded(stmt.onColumn, given, ctx) : given;
  requireColumns(input, stmt.keyword);
  const engine = engineFor(ctx, stmt.connection);
  const table = atArgument(stmt.table, () => tableName(evaluateText(stmt.table, ctx), engine.dialect));
  const first = firstRun(ctx.run, stmt);
  const reset = stmt.mode === 'TRUNCATE' || stmt.mode === 'RECREATE' || (first && stmt.mode !== undefined);
  const recreate = reset && stmt.mode!.startsWith('RECREATE');
  const truncate = reset && stmt.mode!.startsWith('TRUNCATE');
  const written = await engine.transaction(async (db) => {
    let columns = await db.columns(table);
    if (columns && recreate) {
      await dropTable(db, table.sql);
      columns = undefined;
    }
    if (!columns) {
      if (stmt.replace) throw noPrimaryKey(table);
      columns = await createTable(db, table, input);
    } else {
      if (truncate) await db.script(db.dialect.truncate(table.sql));
      // SINK follows the dataset's columns (MERGE only with SCHEMA_DRIFT).
      const { missing } = matchColumns(input, columns);
      if (missing.length) columns = columns.concat(await addColumns(db, table, input, missing));
    }
    const { rows } = matchColumns(input, columns);
    return stmt.replace ? replaceRows(db, table, columns, rows, ctx) : db.insert(table.sql, rows, ctx.signal);
  }, ctx.signal);
  if (stmt.autoClean && once(ctx.run, `${stmt.connection.name}\u0000${table.sql}`)) {
    // Its own signal: the drop must happen after a Ctrl-C too.
    ctx.run.atEnd(() => engine.session((db) => dropTable(db, table.sql), new AbortController().signal));
  }
  ctx.emit({
    kind: 'message',
    text: `SINK INTO DB: ${written.toLocaleString('en-US')} row${written === 1 ? '' : 's'} written to ${showTable(table)}`,
  });
};

/**
 * ON COLUMN '<column>': the XML or JSON document each row holds there is shredded as APPLY TX '$' ON
 * '<column>' does — its records become rows, the row's other columns repeated on each — and those rows
 * are what the table receives. A row whose document is null, blank or has no records adds none.
 */
function shredded(column: Text, input: Dataset, ctx: CommandContext): Promise<Dataset> {
  const floatDecimal = floatsAsDecimal(ctx.session);
  return atArgument(column, () =>
    transformColumn(input, column.value, ROOT, { floatDecimal }, true, false, cellShaper(ROOT, ctx.signal)),
  );
}

const ROOT = compileTx('$');

/** Whether `key` is new to the run (and records it). */
function once(run: RunState, key: string): boolean {
  let seen = cleaned.get(run);
  if (!seen) cleaned.set(run, (seen = new Set()));
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
}

/** Whether this is the statement's first run in the run (and records that it ran). */
function firstRun(run: RunState, stmt: SinkDb): boolean {
  let done = ran.get(run);
  if (!done) ran.set(run, (done = new WeakSet()));
  if (done.has(stmt)) return false;
  done.add(stmt);
  return true;
}

function noPrimaryKey(table: TableName): ScriptError {
  return new ScriptError(
    `REPLACE replaces the rows of ${showTable(table)} whose primary key matches, and it has no primary key: ` +
      "create it with one, or use MERGE INTO … WITH KEY COLUMNS '…' to match rows by columns you name",
    'runtime',
  );
}

/** The rows staged, then upserted on the primary key: a matching row takes the new values. */
async function replaceRows(
  db: DbSession,
  table: TableName,
  columns: TableColumn[],
  rows: BulkRows,
  ctx: CommandContext,
): Promise<number> {
  const key = primaryKeyOf(columns);
  if (key.length === 0) throw noPrimaryKey(table);
  const lower = new Set(rows.columns.map((c) => c.toLowerCase()));
  const absent = key.filter((k) => !lower.has(k.toLowerCase()));
  if (absent.length)
    throw new ScriptError(
      `REPLACE matches rows by the primary key of ${showTable(table)}, and the dataset has no column ${absent.join(', ')}`,
      'runtime',
    );
  const { quote } = db.dialect;
  const stage = await stagingFor(db, table, rows, ctx.signal);
  const list = rows.columns.map(quote).join(', ');
  const keys = new Set(key);
  const others = rows.columns.filter((c) => !keys.has(c));
  const action = others.length
    ? `DO UPDATE SET ${others.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(', ')}`
    : 'DO NOTHING';
  // `WHERE true`: without it SQLite would read ON CONFLICT as part of the SELECT's join.
  await db.script(
    `INSERT INTO ${table.sql} (${list}) SELECT ${list} FROM ${stage} WHERE true ON CONFLICT (${key.map(quote).join(', ')}) ${action}`,
  );
  await dropTable(db, stage);
  return rows.data.rowCount;
}
