import Decimal from 'decimal.js';
import { parseDecimal } from '../dataset/decimal-scale';
import type { Value } from '../dataset/types';
import { formatValue } from '../dataset/format-value';
import { encodeBytes } from '../writers/cells';
import { STRING } from '../dataset/types';
import { FunctionError, type BinaryPrefix } from './types';

/**
 * Conversions between cell values and the text functions work on. Every function receives typed
 * values (a field keeps its type, a nested call returns its own) and converts what it needs here, so
 * `#increment({{qty}})` works on a number and `#toupper({{qty}})` on its text.
 */

/**
 * The text of a value as inserted into a template: the dataset's invariant form (formatValue, as
 * tables show it), null as '' — or NULL in SQL texts.
 */
export function displayValue(v: Value, sql = false): string {
  if (typeof v === 'string') return v;
  if (v === null) return sql ? 'NULL' : '';
  return formatValue(v, STRING);
}

/** `{{prefix:field}}` (spec 4.3): a binary value decoded or encoded as asked; other values as text. */
export function fieldText(v: Value, prefix: BinaryPrefix): string {
  if (v === null) return '';
  if (v instanceof Uint8Array) return encodeBytes(v, prefix);
  const s = displayValue(v);
  if (prefix === 'base64') return Buffer.from(s, 'utf8').toString('base64');
  if (prefix === 'hex') return Buffer.from(s, 'utf8').toString('hex');
  return s;
}

export type TextEncoding = 'utf8' | 'ascii' | 'unicode';

/** Text to bytes the .NET way: UTF-8, ASCII (non-ASCII characters become '?') or Unicode (UTF-16LE). */
export function encodeText(text: string, encoding: TextEncoding): Buffer {
  if (encoding === 'utf8') return Buffer.from(text, 'utf8');
  if (encoding === 'unicode') return Buffer.from(text, 'utf16le');
  const out = Buffer.allocUnsafe(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[i] = c < 0x80 ? c : 0x3f;
  }
  return out;
}

/** Bytes to text the .NET way, the inverse of encodeText. */
export function decodeText(bytes: Buffer, encoding: TextEncoding): string {
  return encodeBytes(bytes, encoding);
}

/** A value's bytes: binary as is, anything else as the text's bytes in the given encoding. */
export function bytesOf(v: Value, encoding: TextEncoding): Buffer {
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return encodeText(displayValue(v), encoding);
}

export function text(v: Value): string {
  return typeof v === 'string' ? v : displayValue(v);
}

function shown(v: Value): string {
  const s = displayValue(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

const INTEGER = /^\s*[+-]?\d+\s*$/;

/** An integer argument; `what` names it in the error ("n", "the start index"). */
export function integer(v: Value, what: string): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && INTEGER.test(v)) return parseInt(v, 10);
  if (Decimal.isDecimal(v) && v.isInteger()) return v.toNumber();
  throw new FunctionError(`${what} must be an integer, got '${shown(v)}'`);
}

const NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A numeric argument (invariant culture: '.' decimal point). */
export function numeric(v: Value, what: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && NUMBER.test(v)) {
    // Text beyond a double ('1e999') would go on as Infinity and fail later with a stranger message.
    const n = Number(v);
    if (Number.isFinite(n)) return n;
    throw new FunctionError(`${what} is beyond a double, got '${shown(v)}'`);
  }
  if (Decimal.isDecimal(v)) return v.toNumber();
  throw new FunctionError(`${what} must be a number, got '${shown(v)}'`);
}

/** A number kept exact when it can be: bigint/Decimal stay, integral text beyond 2^53 becomes bigint. */
export function exactNumber(v: Value, what: string): number | bigint | Decimal {
  if (typeof v === 'bigint' || Decimal.isDecimal(v)) return v;
  if (typeof v === 'string' && INTEGER.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : BigInt(v.trim());
  }
  if (typeof v === 'string' && NUMBER.test(v) && v.includes('.')) return parseDecimal(v.trim());
  return numeric(v, what);
}

/** #iif's condition: false for null, '', 0, false and the texts 0/false. */
export function truthy(v: Value): boolean {
  if (v === null || v === false || v === 0 || v === 0n) return false;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    return !(s === '' || s === '0' || s === 'false');
  }
  if (Decimal.isDecimal(v)) return !v.isZero();
  return true;
}

/** A boolean flag argument: 1/true/yes. */
export function flag(v: Value): boolean {
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  const s = text(v).trim().toLowerCase();
  return s === '1' || s === 'true' || s === 'yes';
}

export function isNullOrEmpty(v: Value): boolean {
  return v === null || (typeof v === 'string' && v.length === 0);
}
