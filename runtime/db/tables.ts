import type { Dataset } from '../dataset/dataset';
import { ScriptError } from '../errors';
import type { BulkRows, DbSession, Dialect, TableColumn, TableName } from './engine';

/**
 * Tables the write statements (SINK INTO DB, MERGE, @pipelinedata()) name, create and widen: shared
 * SQL built from a Dialect, so both engines create the same table from the same dataset.
 */

/** One part of a table name: bare, or in "double quotes" (then it may hold dots; "" is a quote). */
const NAME_PART = /\s*(?:"((?:[^"]|"")*)"|([^".]+))\s*/y;

/**
 * A table named in a statement: `name` or `schema.name`, each part bare or in double quotes. The name
 * is quoted in the SQL, so its case is kept: 'Orders' is another table than 'orders' in PostgreSQL.
 */
export function tableName(text: string, dialect: Dialect): TableName {
  const parts: string[] = [];
  NAME_PART.lastIndex = 0;
  for (;;) {
    const m = NAME_PART.exec(text);
    const part = m ? (m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2].trim()) : '';
    if (!m || part === '')
      throw new ScriptError(`'${text}' is not a table name: write 'table' or 'schema.table'`, 'runtime');
    parts.push(part);
    if (NAME_PART.lastIndex === text.length) break;
    if (text[NAME_PART.lastIndex] !== '.' || parts.length === 2) {
      throw new ScriptError(`'${text}' is not a table name: write 'table' or 'schema.table'`, 'runtime');
    }
    NAME_PART.lastIndex++;
  }
  const name = parts[parts.length - 1];
  const schema = parts.length === 2 ? parts[0] : undefined;
  return { schema, name, sql: parts.map(dialect.quote).join('.') };
}

/** How a table is shown in messages. */
export function showTable(table: TableName): string {
  return table.schema === undefined ? `'${table.name}'` : `'${table.schema}.${table.name}'`;
}

export function requireColumns(data: Dataset, statement: string): void {
  if (data.columns.length === 0)
    throw new ScriptError(`${statement} needs a dataset with columns to write: the pipeline has none`, 'runtime');
}

/** CREATE TABLE with the dataset's columns typed for the engine (types.ts), and a primary key when given. */
export async function createTable(
  db: DbSession,
  table: TableName,
  data: Dataset,
  primaryKey: readonly string[] = [],
): Promise<TableColumn[]> {
  const { quote, ddl } = db.dialect;
  const columns = data.columns.map((c) => `${quote(c.name)} ${ddl(c.type)}`);
  if (primaryKey.length) columns.push(`PRIMARY KEY (${primaryKey.map(quote).join(', ')})`);
  await db.script(`CREATE TABLE ${table.sql} (${columns.join(', ')})`);
  return data.columns.map((c) => ({ name: c.name, declared: ddl(c.type), primaryKey: primaryKey.indexOf(c.name) + 1 }));
}

/** Adds the dataset's columns `ordinals` to the table (schema drift), typed as a new table would have them. */
export async function addColumns(
  db: DbSession,
  table: TableName,
  data: Dataset,
  ordinals: readonly number[],
): Promise<TableColumn[]> {
  const { quote, ddl } = db.dialect;
  const added: TableColumn[] = [];
  for (const o of ordinals) {
    const c = data.columns[o];
    await db.script(`ALTER TABLE ${table.sql} ADD COLUMN ${quote(c.name)} ${ddl(c.type)}`);
    added.push({ name: c.name, declared: ddl(c.type), primaryKey: 0 });
  }
  return added;
}

/** The dataset's columns against a table's, matched by name without regard to case (as dataset columns are). */
export interface ColumnMatch {
  /** The rows to write: dataset columns that have a table column, under the table's spelling. */
  rows: BulkRows;
  /** Ordinals of the dataset columns the table lacks. */
  missing: number[];
}

export function matchColumns(data: Dataset, table: readonly TableColumn[]): ColumnMatch {
  const byName = new Map(table.map((c) => [c.name.toLowerCase(), c.name]));
  const columns: string[] = [];
  const ordinals: number[] = [];
  const missing: number[] = [];
  data.columns.forEach((c, o) => {
    const name = byName.get(c.name.toLowerCase());
    if (name === undefined) missing.push(o);
    else {
      columns.push(name);
      ordinals.push(o);
    }
  });
  return { rows: { columns, data, ordinals }, missing };
}

/** Every column of the dataset, under its own names (a table just created from it). */
export function allColumns(data: Dataset): BulkRows {
  return { columns: data.columns.map((c) => c.name), data, ordinals: data.columns.map((_, o) => o) };
}

let temporaries = 0;

/** A name for a temporary table, unique in the process (temporary tables live per connection). */
export function temporaryName(purpose: string): string {
  return `sqlcdc_${purpose}_${process.pid}_${++temporaries}`;
}

/** A temporary table with the dataset's columns, filled with its rows (@pipelinedata()). */
export async function temporaryFrom(db: DbSession, name: string, data: Dataset, signal: AbortSignal): Promise<string> {
  if (data.columns.length === 0)
    throw new ScriptError(
      "@pipelinedata() is a table of the pipeline's rows, and the pipeline has no columns",
      'runtime',
    );
  const { quote, ddl } = db.dialect;
  const sql = quote(name);
  await db.script(
    `CREATE TEMP TABLE ${sql} (${data.columns.map((c) => `${quote(c.name)} ${ddl(c.type)}`).join(', ')})`,
  );
  await db.insert(sql, allColumns(data), signal);
  return sql;
}

/**
 * A temporary table with the types of the target's `rows.columns`, filled with the rows: what MERGE
 * and SINK … REPLACE compare and copy from, so both sides of each comparison have one type.
 */
export async function stagingFor(
  db: DbSession,
  table: TableName,
  rows: BulkRows,
  signal: AbortSignal,
): Promise<string> {
  const sql = db.dialect.quote(temporaryName('stage'));
  await db.script(
    `CREATE TEMP TABLE ${sql} AS SELECT ${rows.columns.map(db.dialect.quote).join(', ')} FROM ${table.sql} WHERE 1 = 0`,
  );
  await db.insert(sql, rows, signal);
  return sql;
}

export async function dropTable(db: DbSession, table: string): Promise<void> {
  await db.script(`DROP TABLE IF EXISTS ${table}`);
}

/** The table's primary key columns, in key order. */
export function primaryKeyOf(columns: readonly TableColumn[]): string[] {
  return columns
    .filter((c) => c.primaryKey > 0)
    .sort((a, b) => a.primaryKey - b.primaryKey)
    .map((c) => c.name);
}
