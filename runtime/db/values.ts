import { decimalText, parseDecimal } from '../dataset/decimal-scale';
import { formatValue } from '../dataset/format-value';
import { parseDateTime } from '../dataset/parse-datetime';
import type { ColumnType, Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { PG } from './types';

/**
 * Cell values to and from each driver. A dataset value has one JS form per type (dataset/types.ts);
 * here it becomes what the driver binds or COPY reads, and driver output becomes it again. Per-column
 * encoders are chosen once per statement, so the row loops only call them.
 */

export type SqliteValue = null | number | bigint | string | Buffer;
/** Encodes one non-null cell of a column. */
export type Encoder<T> = (v: Exclude<Value, null>) => T;

/** A driver's Buffer as the plain Uint8Array a byte[] cell holds (the same memory). */
export function bytesView(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function asBuffer(v: Uint8Array): Buffer {
  return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** SQLite's text form of a datetime (what its date functions read): `yyyy-MM-dd HH:mm:ss[.fff]`, UTC wall clock. */
export function sqliteDateTime(d: Date): string {
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, d.getUTCMilliseconds() === 0 ? 19 : 23)}`;
}

/** A value bound as a SQLite parameter, whatever produced it (a field, a function's result). */
export function sqliteValue(v: Value): SqliteValue {
  if (v === null) return null;
  switch (typeof v) {
    case 'number':
      // better-sqlite3 binds every number as a REAL, which a column without a type (or TEXT) keeps as
      // 2.0 (or '2.0'): a whole number goes as a bigint, bound as an INTEGER.
      return Number.isSafeInteger(v) ? BigInt(v) : v;
    case 'string':
    case 'bigint':
      return v;
    case 'boolean':
      // Bigints too: bound as 1, true would be stored 1.0 (or '1.0').
      return v ? 1n : 0n;
  }
  if (v instanceof Date) return sqliteDateTime(v);
  if (v instanceof Uint8Array) return asBuffer(v);
  return decimalText(v);
}

/**
 * How a column of `type` is written to SQLite, or undefined when its values bind as they are (a
 * double as a REAL, a long as an INTEGER). An int is an INTEGER in a column of any affinity. A decimal keeps its column's scale as text (decimal(10,2) writes 1.50), so the stored digits are
 * exactly the dataset's.
 */
export function sqliteEncoder(type: ColumnType): Encoder<SqliteValue> | undefined {
  switch (type.base) {
    case 'bool':
    case 'datetime':
    case 'bytes':
    case 'tinyint':
    case 'short':
    case 'int':
      return sqliteValue;
    case 'decimal':
      return (v) =>
        typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array)
          ? formatValue(v, type)
          : sqliteValue(v);
    default:
      return undefined;
  }
}

/**
 * A value bound as a PostgreSQL parameter: text the server parses for the parameter's type, or
 * bytes for bytea. A datetime is sent in UTC with `Z`, which a timestamp column ignores and a
 * timestamptz column honours, so both hold the dataset's wall clock.
 */
export function postgresValue(v: Value): string | Buffer | null {
  if (v === null) return null;
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return asBuffer(v);
  return decimalText(v);
}

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Text escaped for COPY's text format: backslash, tab, newline and carriage return. */
export function copyText(s: string): string {
  return COPY_SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]) : s;
}

/** How a column of `type` is written as a field of COPY's text format (null is `\N`, written by the caller). */
export function copyEncoder(type: ColumnType): Encoder<string> {
  switch (type.base) {
    case 'string':
    case 'char':
      return copyTextOf(type);
    case 'bool':
      return (v) => (v === true ? 't' : v === false ? 'f' : copyText(formatValue(v, type)));
    case 'datetime':
      return (v) => (v instanceof Date ? v.toISOString() : copyText(formatValue(v, type)));
    case 'bytes':
      // \x hex, its backslash escaped for the text format.
      return (v) => (v instanceof Uint8Array ? `\\\\x${asBuffer(v).toString('hex')}` : copyText(formatValue(v, type)));
    case 'guid':
      return copyTextOf(type);
    default:
      // Numbers print without characters COPY escapes.
      return (v) => (typeof v === 'string' ? copyText(v) : formatValue(v, type));
  }
}

function copyTextOf(type: ColumnType): Encoder<string> {
  return (v) => copyText(typeof v === 'string' ? v : formatValue(v, type));
}

/**
 * PostgreSQL's text output to dataset values, by type OID: the driver calls these per cell (they
 * replace its own parsers, which read timestamps in the machine's time zone and int8 as text). The
 * connection's TimeZone is UTC and bytea_output hex, so the forms are fixed.
 */
export function postgresParser(oid: number): ((text: string) => Value) | undefined {
  switch (oid) {
    case PG.bool:
      return (s) => s === 't';
    case PG.bytea:
      return (s) => bytesView(Buffer.from(s.slice(2), 'hex'));
    case PG.int2:
    case PG.int4:
      return Number;
    case PG.int8:
    case PG.oid:
      return BigInt;
    case PG.float4:
      return (s) => Math.fround(Number(s));
    case PG.float8:
      return Number;
    case PG.numeric:
      return parseNumeric;
    case PG.date:
    case PG.timestamp:
      return parseTimestamp;
    case PG.timestamptz:
      // '2024-01-02 03:04:05.123+00': the offset is always +00 in a UTC session.
      return (s) => parseTimestamp(s.endsWith('+00') ? s.slice(0, -3) : s);
    default:
      return undefined;
  }
}

function parseNumeric(s: string): Value {
  // A decimal is exact digits (as .NET's): PostgreSQL's NaN and infinities would print as bare words in JSON.
  if (s === 'NaN' || s.endsWith('Infinity'))
    throw new ScriptError(
      `PostgreSQL returned the numeric '${s}', which a decimal cannot hold (cast it to float8, or nullif(…, 'NaN'))`,
      'runtime',
    );
  return parseDecimal(s);
}

function parseTimestamp(s: string): Date {
  const d = parseDateTime(s);
  // 'infinity' and BC dates have no datetime.
  if (!d) throw new ScriptError(`PostgreSQL returned the date '${s}', which a datetime cannot hold`, 'runtime');
  return d;
}
