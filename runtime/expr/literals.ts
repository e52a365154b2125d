import Decimal from 'decimal.js';
import { parseDecimal } from '../dataset/decimal-scale';
import type { Value } from '../dataset/types';
import type { Kind } from './kinds';

const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Beyond this .NET's Decimal overflows and the literal becomes a Double. */
const DECIMAL_LIMIT = new Decimal('79228162514264337593543950335');

/**
 * The type of a number literal, as .NET's expression parser gives it: digits only → Int32, then
 * Int64, then Double when too large; a decimal point → Decimal (exact); an exponent → Double.
 * Unary minus is an operator, so literals here are never negative.
 */
export function numberLiteral(text: string): { value: Value; kind: Kind } {
  if (/[eE]/.test(text)) return { value: Number(text), kind: 'double' };
  if (text.includes('.')) {
    const d = parseDecimal(text);
    return d.abs().gt(DECIMAL_LIMIT) ? { value: d.toNumber(), kind: 'double' } : { value: d, kind: 'decimal' };
  }
  const n = Number(text);
  if (n <= INT32_MAX) return { value: n, kind: 'int' };
  const big = BigInt(text);
  if (big >= INT64_MIN && big <= INT64_MAX) return { value: big, kind: 'long' };
  return { value: n, kind: 'double' };
}

/**
 * The text of a `#…#` date literal in the ISO form the dataset converter reads. .NET parses these with
 * the invariant culture, whose short date is month/day/year (`#1/31/2006#`, `#1/31/2006 13:45#`);
 * ISO dates (`#2006-01-31#`) pass through unchanged. Undefined when it is neither.
 */
export function dateLiteralText(text: string): string | undefined {
  const t = text.trim();
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(AM|PM)?)?$/i.exec(t);
  if (us) {
    const [, month, day, year, h, min, sec, ampm] = us;
    let hour = h === undefined ? 0 : Number(h);
    if (ampm) hour = (hour % 12) + (ampm.toUpperCase() === 'PM' ? 12 : 0);
    const two = (s: string | number) => String(s).padStart(2, '0');
    return `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(min ?? 0)}:${two(sec ?? 0)}`;
  }
  return /^\d{4}-\d{2}-\d{2}/.test(t) ? t : undefined;
}
