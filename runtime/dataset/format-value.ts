import Decimal from 'decimal.js';
import { decimalText } from './decimal-scale';
import type { Column, ColumnType, Value } from './types';

/**
 * Invariant-culture text and JSON forms of cell values (docs/types.md). Dispatch is on the value's JS
 * representation; the column type only refines it (float's shortest form, a decimal's scale), so a
 * value that does not match its column still prints sensibly.
 */

/** How renderers show null in a table; formatValue itself gives '' (CSV, templates). */
export const NULL_DISPLAY = 'NULL';

/** A cell as text: '' for null, `yyyy-MM-ddTHH:mm:ss[.fff]` for dates, lowercase hex for bytes. */
export function formatValue(v: Value, type: ColumnType): string {
  if (v === null) return '';
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return type.base === 'float' ? formatFloat32(v) : String(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof Date) return formatDateTime(v);
  if (v instanceof Uint8Array) return toHex(v);
  return formatDecimal(v, type);
}

/** The JSON text of a cell: exact digits for long and decimal, strings for dates, bytes and NaN/±Infinity. */
export function toJsonValue(v: Value, type: ColumnType): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      if (!Number.isFinite(v)) return `"${v}"`;
      return type.base === 'float' ? formatFloat32(v) : String(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof Date) return `"${formatDateTime(v)}"`;
  if (v instanceof Uint8Array) return `"${toHex(v)}"`;
  return formatDecimal(v, type);
}

/**
 * A plain JS value for JSON.stringify-based consumers (Jupyter's data resource): numbers stay
 * numbers while exact, otherwise their digits become a string so nothing is silently rounded.
 */
export function toPlainValue(v: Value, type: ColumnType): string | number | boolean | null {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return String(v);
    return type.base === 'float' ? Number(formatFloat32(v)) : v;
  }
  if (typeof v === 'bigint') {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  }
  const text = formatValue(v, type);
  if (v instanceof Date || v instanceof Uint8Array) return text;
  const n = Number(text);
  return new Decimal(n).equals(v) ? n : text;
}

/** Compiles the JSON object writer for rows of these columns (keys escaped once, not per row). */
export function jsonRowWriter(columns: readonly Column[]): (row: readonly Value[]) => string {
  const prefixes = columns.map((c, i) => `${i === 0 ? '{' : ','}${JSON.stringify(c.name)}:`);
  const types = columns.map((c) => c.type);
  const n = columns.length;
  return (row) => {
    if (n === 0) return '{}';
    let out = '';
    for (let i = 0; i < n; i++) out += prefixes[i] + toJsonValue(row[i], types[i]);
    return out + '}';
  };
}

/** `yyyy-MM-ddTHH:mm:ss`, with `.fff` when there are milliseconds (the `s` format, UTC wall clock). */
export function formatDateTime(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString();
  return d.getUTCMilliseconds() === 0 ? iso.slice(0, 19) : iso.slice(0, 23);
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Exact digits, never an exponent; the column's scale (decimal(10,2) shows 1.50), else the value's (12.50 stays 12.50). */
function formatDecimal(v: Decimal, type: ColumnType): string {
  return type.base === 'decimal' && type.scale !== undefined ? v.toFixed(type.scale) : decimalText(v);
}

/**
 * The shortest decimal that reads back as the same float32 (what .NET prints for a Single): a float
 * column stores Math.fround(0.1) = 0.10000000149011612, which must still show as 0.1.
 */
function formatFloat32(v: number): string {
  if (!Number.isFinite(v) || Number.isInteger(v)) return String(v);
  for (let p = 1; p <= 9; p++) {
    const shorter = Number(v.toPrecision(p));
    if (Math.fround(shorter) === v) return String(shorter);
  }
  return String(v);
}
