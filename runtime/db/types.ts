import { parseTypeName } from '../dataset/type-names';
import { STRING, type ColumnType } from '../dataset/types';

/**
 * Spec 2.6's column types in each engine (docs/databases.md, "Types"): the DDL a table created from a
 * dataset declares, and the dataset type a result column gets.
 */

/**
 * SQLite decides a column's storage by substrings of its declared type ("affinity"): DECIMAL or
 * NUMERIC would turn the text '12.50' into the REAL 12.5. Decimals are declared with this name, whose
 * TEXT gives them text affinity, and read back as decimal(p,s).
 */
export const SQLITE_DECIMAL = 'DECIMAL_TEXT';

/**
 * The SQLite column type a dataset column is created with. Every name keeps its affinity from
 * changing the value: the integer names have INTEGER affinity, DOUBLE/FLOAT REAL, CHAR/TEXT text; the
 * NUMERIC-affinity ones (BOOLEAN, DATETIME, GUID) only ever hold 0/1 or text that is not a number.
 */
export function sqliteDdl(t: ColumnType): string {
  switch (t.base) {
    case 'string':
      return typeof t.size === 'number' ? `VARCHAR(${t.size})` : 'TEXT';
    case 'char':
      return `CHAR(${typeof t.size === 'number' ? t.size : 1})`;
    case 'bool':
      return 'BOOLEAN';
    case 'tinyint':
      return 'TINYINT';
    case 'short':
      return 'SMALLINT';
    case 'int':
      return 'INT';
    case 'long':
      return 'BIGINT';
    case 'decimal':
      return t.precision === undefined ? SQLITE_DECIMAL : `${SQLITE_DECIMAL}(${t.precision},${t.scale ?? 0})`;
    case 'double':
      return 'DOUBLE';
    case 'float':
      return 'FLOAT';
    case 'datetime':
      return 'DATETIME';
    case 'guid':
      return 'GUID';
    case 'bytes':
      return 'BLOB';
  }
}

/** The PostgreSQL column type a dataset column is created with (it has no tinyint: smallint holds 0..255). */
export function postgresDdl(t: ColumnType): string {
  switch (t.base) {
    case 'string':
      return typeof t.size === 'number' ? `varchar(${t.size})` : 'text';
    case 'char':
      return `char(${typeof t.size === 'number' ? t.size : 1})`;
    case 'bool':
      return 'boolean';
    case 'tinyint':
    case 'short':
      return 'smallint';
    case 'int':
      return 'integer';
    case 'long':
      return 'bigint';
    case 'decimal':
      return t.precision === undefined ? 'numeric' : `numeric(${t.precision},${t.scale ?? 0})`;
    case 'double':
      return 'double precision';
    case 'float':
      return 'real';
    case 'datetime':
      return 'timestamp';
    case 'guid':
      return 'uuid';
    case 'bytes':
      return 'bytea';
  }
}

const SQLITE_DECIMAL_TYPE = new RegExp(`^${SQLITE_DECIMAL}\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?$`, 'i');
const NUMERIC_TYPE = /^(?:numeric|decimal)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$/i;

/** SQLite names outside spec 2.6's list, and those whose SQLite meaning differs from it. */
const SQLITE_NAMES: ReadonlyMap<string, ColumnType> = new Map<string, ColumnType>([
  // INTEGER is SQLite's 64-bit integer (the rowid's type); REAL is an 8-byte float.
  ['integer', { base: 'long' }],
  ['real', { base: 'double' }],
  ['double precision', { base: 'double' }],
  ['boolean', { base: 'bool' }],
  ['timestamp', { base: 'datetime' }],
  ['clob', STRING],
  ['blob', { base: 'bytes' }],
  ['uuid', { base: 'guid' }],
]);

/**
 * The dataset type of a SQLite column from its declared type, or undefined when it says nothing
 * (an expression, a column declared without a type or with a name of no known meaning): the values
 * then decide. Unknown names fall back on SQLite's own affinity rules.
 */
export function sqliteColumnType(declared: string | null | undefined): ColumnType | undefined {
  const d = declared?.trim();
  if (!d) return undefined;
  const known = SQLITE_NAMES.get(d.toLowerCase());
  if (known) return known;
  const decimal = SQLITE_DECIMAL_TYPE.exec(d) ?? NUMERIC_TYPE.exec(d);
  if (decimal) return decimalType(decimal[1], decimal[2]);
  try {
    return parseTypeName(d);
  } catch {
    return affinityType(d.toUpperCase());
  }
}

function decimalType(precision: string | undefined, scale: string | undefined): ColumnType {
  return precision === undefined
    ? { base: 'decimal' }
    : { base: 'decimal', precision: Number(precision), scale: Number(scale ?? 0) };
}

/** https://sqlite.org/datatype3.html#determination_of_column_affinity, in its order. */
function affinityType(upper: string): ColumnType | undefined {
  if (upper.includes('INT')) return { base: 'long' };
  if (upper.includes('CHAR') || upper.includes('CLOB') || upper.includes('TEXT')) return STRING;
  if (upper.includes('BLOB')) return { base: 'bytes' };
  if (upper.includes('REAL') || upper.includes('FLOA') || upper.includes('DOUB')) return { base: 'double' };
  return undefined;
}

/** PostgreSQL type OIDs (pg_type.oid) that have a dataset type of their own; every other type reads as text. */
export const PG = {
  bool: 16,
  bytea: 17,
  char: 18,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  json: 114,
  xml: 142,
  float4: 700,
  float8: 701,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
  uuid: 2950,
  jsonb: 3802,
} as const;

/** A varchar(n)/char(n) length from the type modifier (n + 4, or -1 when unbounded). */
function lengthOf(typmod: number): number | undefined {
  return typmod >= 4 ? typmod - 4 : undefined;
}

/** The dataset type of a PostgreSQL result column (its type OID and modifier). */
export function postgresColumnType(oid: number, typmod: number): ColumnType {
  switch (oid) {
    case PG.bool:
      return { base: 'bool' };
    case PG.bytea:
      return { base: 'bytes' };
    case PG.int2:
      return { base: 'short' };
    case PG.int4:
      return { base: 'int' };
    case PG.int8:
    case PG.oid:
      return { base: 'long' };
    case PG.float4:
      return { base: 'float' };
    case PG.float8:
      return { base: 'double' };
    case PG.numeric:
      // The modifier packs ((precision << 16) | scale) + 4.
      return typmod >= 4
        ? decimalType(String(((typmod - 4) >> 16) & 0xffff), String((typmod - 4) & 0xffff))
        : { base: 'decimal' };
    case PG.date:
    case PG.timestamp:
    case PG.timestamptz:
      return { base: 'datetime' };
    case PG.uuid:
      return { base: 'guid' };
    case PG.bpchar: {
      const n = lengthOf(typmod);
      return n === undefined ? { base: 'char' } : { base: 'char', size: n };
    }
    case PG.varchar: {
      const n = lengthOf(typmod);
      return n === undefined ? STRING : { base: 'string', size: n };
    }
    default:
      return STRING;
  }
}
