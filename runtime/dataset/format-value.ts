import Decimal from 'decimal.js';
import { decimalText } from './decimal-scale';
import type { ColumnType, Value } from './types';

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
 * A plain JS value for JSON.stringify-based consumers (Jupyter's data resource). Integers stay
 * numbers while exact, otherwise their digits become a string so nothing is silently rounded. A
 * decimal is always its text with the column's scale (`230.00`): a JSON number cannot keep the scale,
 * and Table Schema readers parse a number field's string as an exact decimal (docs/jupyter.md).
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
  return formatValue(v, type);
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
