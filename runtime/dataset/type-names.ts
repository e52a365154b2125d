import { ScriptError } from '../errors';
import type { BaseType, ColumnType } from './types';

/**
 * Type names of spec 2.6 (type notation and SQL notation, case-insensitive) and the .NET names
 * CONVERT(expr, 'System.Int32') uses, parsed into a ColumnType; `typeName` gives the display form.
 */

/** What a name accepts after it: nothing, a size ([N], (N), max), or a decimal's (p[, s]). */
type Shape = 'plain' | 'sized' | 'decimal';

interface NameRule {
  base: BaseType;
  shape: Shape;
  /** The size when none is written (SYSNAME). */
  size?: number;
  /** Whether `max` is a valid size. */
  max?: boolean;
}

const plain = (base: BaseType): NameRule => ({ base, shape: 'plain' });
const sized = (base: BaseType, max: boolean): NameRule => ({ base, shape: 'sized', max });

const NAMES: ReadonlyMap<string, NameRule> = new Map<string, NameRule>([
  ['bool', plain('bool')],
  ['boolean', plain('bool')],
  ['bit', plain('bool')],
  ['tinyint', plain('tinyint')],
  ['byte', plain('tinyint')],
  ['byte[]', sized('bytes', true)],
  ['image', plain('bytes')],
  ['binary', sized('bytes', true)],
  ['varbinary', sized('bytes', true)],
  ['char', sized('char', false)],
  ['datetime', plain('datetime')],
  ['date', plain('datetime')],
  ['datetime2', plain('datetime')],
  ['decimal', { base: 'decimal', shape: 'decimal' }],
  ['double', plain('double')],
  ['float', plain('float')],
  ['single', plain('float')],
  ['real', plain('float')],
  ['guid', plain('guid')],
  ['int', plain('int')],
  ['int32', plain('int')],
  ['long', plain('long')],
  ['int64', plain('long')],
  ['bigint', plain('long')],
  ['short', plain('short')],
  ['int16', plain('short')],
  ['smallint', plain('short')],
  ['string', sized('string', true)],
  ['xml', plain('string')],
  ['text', plain('string')],
  ['ntext', plain('string')],
  ['nvarchar', sized('string', true)],
  ['varchar', sized('string', true)],
  ['sysname', { base: 'string', shape: 'plain', size: 256 }],
  // .NET type names (CONVERT); System.Char is one character, System.Byte[] any length.
  ['system.boolean', plain('bool')],
  ['system.byte', plain('tinyint')],
  ['system.byte[]', plain('bytes')],
  ['system.char', plain('char')],
  ['system.datetime', plain('datetime')],
  ['system.decimal', plain('decimal')],
  ['system.double', plain('double')],
  ['system.single', plain('float')],
  ['system.guid', plain('guid')],
  ['system.int16', plain('short')],
  ['system.int32', plain('int')],
  ['system.int64', plain('long')],
  ['system.string', plain('string')],
]);

/** The largest precision of decimal(p, s), as in SQL Server and .NET's 28–29 significant digits. */
/** Every type name parseTypeName accepts (lowercase, sizes left out), for completion. */
export function typeNames(): string[] {
  return [...NAMES.keys()];
}

export const MAX_DECIMAL_PRECISION = 38;

/** `name`, then an optional `[…]` or `(…)` argument list. `byte[]` is its own name. */
const SYNTAX = /^\s*([a-z][a-z0-9_.]*(?:\[\])?)\s*(?:([[(])\s*([^\])]*?)\s*([\])]))?\s*$/i;

const VALID_NAMES =
  'bool, boolean, BIT, tinyint, BYTE, byte[], byte[N], image, binary(N|max), varbinary(N|max), char, char[N], ' +
  'datetime, DATE, DATETIME2, decimal, decimal(p), decimal(p, s), double, float, single, REAL, guid, int, int32, ' +
  'long, int64, BIGINT, short, int16, SMALLINT, string, string[N], string[max], XML, TEXT, NTEXT, NVARCHAR(N|max), ' +
  'VARCHAR(N|max), SYSNAME, System.Int32 and the other .NET names';

function invalid(text: string, why?: string): ScriptError {
  const reason = why ? `: ${why}` : '';
  return new ScriptError(`unknown type '${text.trim()}'${reason} (valid types: ${VALID_NAMES})`, 'semantic');
}

/** Parses a type name of spec 2.6 or a .NET type name; a 'semantic' ScriptError when it is not one. */
export function parseTypeName(text: string): ColumnType {
  const m = SYNTAX.exec(text);
  if (!m) throw invalid(text);
  const [, name, open, args, close] = m;
  // `byte` alone is tinyint, but `byte[N]` is a byte array of N bytes.
  const key = name.toLowerCase() === 'byte' && open === '[' ? 'byte[]' : name.toLowerCase();
  const rule = NAMES.get(key);
  if (!rule) throw invalid(text);
  if (open === undefined) {
    if (rule.shape === 'decimal') return { base: 'decimal' };
    return rule.size === undefined ? { base: rule.base } : { base: rule.base, size: rule.size };
  }
  if (rule.shape === 'plain' || (open === '[') !== (close === ']') || name.endsWith('[]')) {
    throw invalid(text, `'${name}' takes no ${open}${close} argument here`);
  }
  if (rule.shape === 'decimal') return decimalType(text, open, args);
  return { base: rule.base, size: sizeArgument(text, args, rule.max === true) };
}

function sizeArgument(text: string, arg: string, allowMax: boolean): number | 'max' {
  if (allowMax && arg.toLowerCase() === 'max') return 'max';
  const n = positiveInteger(arg);
  if (n === undefined) throw invalid(text, `the size must be a positive integer${allowMax ? ' or max' : ''}`);
  return n;
}

function decimalType(text: string, open: string, args: string): ColumnType {
  const parts = args.split(',').map((s) => s.trim());
  const precision = positiveInteger(parts[0]);
  const scale = parts.length === 2 ? nonNegativeInteger(parts[1]) : 0;
  if (open !== '(' || parts.length > 2 || precision === undefined || scale === undefined) {
    throw invalid(text, 'write decimal(p) or decimal(p, s) with integers');
  }
  if (precision > MAX_DECIMAL_PRECISION) throw invalid(text, `the precision must be 1..${MAX_DECIMAL_PRECISION}`);
  if (scale > precision) throw invalid(text, 'the scale cannot exceed the precision');
  return { base: 'decimal', precision, scale };
}

function nonNegativeInteger(s: string | undefined): number | undefined {
  if (s === undefined || !/^\d{1,9}$/.test(s)) return undefined;
  return Number(s);
}

function positiveInteger(s: string | undefined): number | undefined {
  const n = nonNegativeInteger(s);
  return n === undefined || n === 0 ? undefined : n;
}

/** The display name of a type in type notation: `long`, `string[50]`, `decimal(10,2)`, `byte[]`. */
export function typeName(t: ColumnType): string {
  switch (t.base) {
    case 'bytes':
      return t.size === undefined ? 'byte[]' : `byte[${t.size}]`;
    case 'string':
    case 'char':
      return t.size === undefined ? t.base : `${t.base}[${t.size}]`;
    case 'decimal':
      return t.precision === undefined ? 'decimal' : `decimal(${t.precision},${t.scale ?? 0})`;
    default:
      return t.base;
  }
}

/** Whether two column types are the same (base and every parameter). */
export function sameType(a: ColumnType, b: ColumnType): boolean {
  return a.base === b.base && a.size === b.size && a.precision === b.precision && (a.scale ?? 0) === (b.scale ?? 0);
}
