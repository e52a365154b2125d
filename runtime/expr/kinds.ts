import Decimal from 'decimal.js';
import type { BaseType, Value } from '../dataset/types';
import type { BinaryOp } from './ast';

/**
 * The runtime kind of a non-null value is one of the dataset's base types. An expression's static
 * type adds 'null' (the literal null) and 'any' (only known per row: IIF/ISNULL mixing types).
 */
export type Kind = BaseType;
export type StaticType = Kind | 'null' | 'any';

/**
 * .NET's data type precedence (BinaryNode.DataTypePrecedence) restricted to our types: the operand
 * types of a binary operator meet at the higher one, so a string compared with a number is converted
 * to the number's type, an int meets a double as double, and anything meets a date as a date.
 */
const PRECEDENCE: Record<Kind, number> = {
  bytes: -10,
  char: -8,
  string: -5,
  guid: -3,
  bool: -2,
  tinyint: 3,
  short: 4,
  int: 7,
  long: 10,
  decimal: 14,
  float: 16,
  double: 18,
  datetime: 23,
};

const NUMERIC = new Set<Kind>(['tinyint', 'short', 'int', 'long', 'decimal', 'float', 'double']);
const INTEGER = new Set<Kind>(['tinyint', 'short', 'int', 'long']);
/** Kinds held as a JS number (compared and added natively). */
const JS_NUMBER = new Set<Kind>(['tinyint', 'short', 'int', 'float', 'double']);

export const isNumeric = (k: Kind) => NUMERIC.has(k);
export const isInteger = (k: Kind) => INTEGER.has(k);
export const isJsNumber = (k: Kind) => JS_NUMBER.has(k);
export const isText = (k: Kind) => k === 'string' || k === 'char';

/** The kind of a non-null cell value from its JS representation (used where the static type is 'any'). */
export function kindOf(v: Value): Kind {
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? 'int' : 'double';
    case 'bigint':
      return 'long';
    case 'boolean':
      return 'bool';
  }
  if (v instanceof Date) return 'datetime';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Decimal) return 'decimal';
  return 'string';
}

export type OpClass = 'relational' | 'arithmetic' | 'logical';

export function opClass(op: BinaryOp): OpClass {
  if (op === 'AND' || op === 'OR') return 'logical';
  if (op === '+' || op === '-' || op === '*' || op === '/' || op === '%') return 'arithmetic';
  return 'relational';
}

/**
 * The type both operands are converted to before `op` runs (.NET's BinaryNode.ResultType), or
 * undefined when the operator does not apply to these types (a type mismatch error).
 */
export function resultKind(op: BinaryOp, left: Kind, right: Kind): Kind | undefined {
  const cls = opClass(op);
  if (cls === 'logical') return left === 'bool' && right === 'bool' ? 'bool' : undefined;
  if (left === 'bytes' || right === 'bytes') return undefined;
  if (cls === 'relational' && (left === 'guid' || right === 'guid')) {
    if (left === right) return 'guid';
    return isText(left) || isText(right) ? 'string' : undefined;
  }
  if (op === '+' && (isText(left) || isText(right))) return 'string';
  const kind = PRECEDENCE[left] >= PRECEDENCE[right] ? left : right;
  if (cls === 'arithmetic') {
    if (!isNumeric(left) || !isNumeric(right)) return undefined;
    if (op === '/' && isInteger(kind)) return 'double';
    if (op === '%' && !isInteger(kind)) return undefined;
    return kind;
  }
  if (kind === 'bool' && op !== '=' && op !== '<>') return undefined;
  return kind;
}
