import Decimal from 'decimal.js';
import { Dataset } from '../dataset/dataset';
import { parseDecimal } from '../dataset/decimal-scale';
import { STRING, type Column, type ColumnType, type Value } from '../dataset/types';
import { exactText, isExact, stringifyJson } from './json';

/**
 * Records (plain objects, one per row) → a typed dataset. Columns appear in order of first sight;
 * names differing only in case get a suffix (`id`, `Id_2`), as dataset names are case-insensitive.
 * Each column gets the best type its values allow (reference "Document paths": dates stay strings,
 * numbers get the best numeric type):
 *   all booleans → bool; integers within int32 → int, within int64 → long, beyond → decimal;
 *   numbers with a fraction → double, or decimal when one would lose digits as a double (16+
 *   significant digits) or #setjsonsettings floatparsehandling:decimal is set;
 *   anything else, mixed kinds, objects and arrays (as JSON text) → string.
 * XML text is typed too (`inferText`): a value is a number only in canonical form (no leading zeros,
 * no '+'), so codes such as 007 stay strings.
 */

export interface BuildOptions {
  /** Strings may be numbers in text form (XML): type them like JSON numbers. */
  inferText: boolean;
  /** Fractions as decimal rather than double (#setjsonsettings floatparsehandling:decimal). */
  floatDecimal?: boolean;
  /** An extra string column holding each record's raw text (RAWCOL). */
  raw?: { name: string; values: string[] };
}

// Kinds of values seen in a column, as bits.
const TEXT = 1;
const OBJECT = 2;
const BOOL = 4;
const INT = 8;
const LONG = 16; // beyond int32, exact as a double (15 digits at most)
const WIDE_LONG = 32; // within int64 but with 16+ digits
const HUGE = 64; // integers beyond int64
const FRACTION = 128; // exact as a double
const WIDE_FRACTION = 256; // 16+ significant digits
const NUMBER = INT | LONG | WIDE_LONG | HUGE | FRACTION | WIDE_FRACTION;

const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;
const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function classifyNumber(n: number): number {
  if (Number.isInteger(n)) {
    if (n >= -2147483648 && n <= 2147483647) return INT;
    return Number.isSafeInteger(n) ? LONG : FRACTION;
  }
  return FRACTION;
}

function classifyNumberText(s: string): number {
  if (INTEGER_TEXT.test(s)) {
    const digits = s.length - (s.charCodeAt(0) === 0x2d ? 1 : 0);
    if (digits <= 15) return classifyNumber(Number(s));
    const b = BigInt(s);
    return b >= INT64_MIN && b <= INT64_MAX ? WIDE_LONG : HUGE;
  }
  if (NUMBER_TEXT.test(s)) {
    const mantissa = s
      .replace(/[eE].*$/, '')
      .replace(/[-.]/g, '')
      .replace(/^0+/, '');
    return mantissa.length <= 15 ? FRACTION : WIDE_FRACTION;
  }
  return TEXT;
}

function classify(v: unknown, inferText: boolean): number {
  switch (typeof v) {
    case 'string':
      if (isExact(v)) return classifyNumberText(exactText(v));
      return inferText ? classifyNumberText(v) : TEXT;
    case 'number':
      return classifyNumber(v);
    case 'boolean':
      return BOOL;
    case 'object':
      return v === null ? 0 : OBJECT;
    default:
      return 0;
  }
}

function numberTextOf(v: unknown): string {
  return typeof v === 'string' ? (isExact(v) ? exactText(v) : v) : String(v);
}

type Convert = (v: unknown) => Value;

const toText: Convert = (v) =>
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- not an object: a JSON number or boolean
  typeof v === 'string' ? (isExact(v) ? exactText(v) : v) : typeof v === 'object' ? stringifyJson(v) : String(v);
const toNumber: Convert = (v) => (typeof v === 'number' ? v : Number(numberTextOf(v)));
const toLong: Convert = (v) => BigInt(typeof v === 'number' ? v : numberTextOf(v));
const toDecimal: Convert = (v) => (typeof v === 'number' ? new Decimal(v) : parseDecimal(numberTextOf(v)));
const toBool: Convert = (v) => v as boolean;

/** A column's type and how its cells become values: shared, frozen, as typing makes thousands of columns (a listener, per call). */
type Typing = readonly [ColumnType, Convert];
const typing = (base: ColumnType['base'], convert: Convert): Typing =>
  Object.freeze([base === 'string' ? STRING : Object.freeze({ base }), convert] as const);
const AS_TEXT = typing('string', toText);
const AS_BOOL = typing('bool', toBool);
const AS_DECIMAL = typing('decimal', toDecimal);
const AS_DOUBLE = typing('double', toNumber);
const AS_LONG = typing('long', toLong);
const AS_INT = typing('int', toNumber);

function typeOf(kinds: number, floatDecimal: boolean): Typing {
  if (kinds === 0 || kinds & (TEXT | OBJECT) || (kinds & BOOL && kinds & NUMBER)) return AS_TEXT;
  if (kinds === BOOL) return AS_BOOL;
  if (kinds & (FRACTION | WIDE_FRACTION)) {
    return floatDecimal || kinds & (WIDE_FRACTION | WIDE_LONG | HUGE) ? AS_DECIMAL : AS_DOUBLE;
  }
  if (kinds & HUGE) return AS_DECIMAL;
  if (kinds & (LONG | WIDE_LONG)) return AS_LONG;
  return AS_INT;
}

export function recordsToDataset(records: ArrayLike<Record<string, unknown>>, options: BuildOptions): Dataset {
  const ordinals = new Map<string, number>();
  const names: string[] = [];
  const taken = new Set<string>();
  const kinds: number[] = [];
  const n = records.length;
  // One array per column as soon as a record has it; records without the key leave it unset (null).
  const cells: unknown[][] = [];
  const inferText = options.inferText;
  for (let r = 0; r < n; r++) {
    const record = records[r];
    for (const key in record) {
      let ordinal = ordinals.get(key);
      if (ordinal === undefined) {
        ordinal = names.length;
        ordinals.set(key, ordinal);
        names.push(uniqueName(key, taken));
        kinds.push(0);
        cells.push(new Array(n));
      }
      const v = record[key];
      cells[ordinal][r] = v;
      kinds[ordinal] |= classify(v, inferText);
    }
  }
  const columns: Column[] = [];
  const data: Value[][] = [];
  for (let c = 0; c < names.length; c++) {
    const [type, convert] = typeOf(kinds[c], options.floatDecimal ?? false);
    columns.push({ name: names[c], type });
    const values = cells[c];
    for (let r = 0; r < n; r++) {
      const v = values[r];
      values[r] = v === undefined || v === null ? null : convert(v);
    }
    data.push(values as Value[]);
  }
  if (options.raw) {
    columns.push({ name: uniqueName(options.raw.name, taken), type: STRING });
    data.push(Array.from(options.raw.values));
  }
  return new Dataset(columns, data, n);
}

/** The name itself, or with `_2`, `_3`… when a column with that name (any case) exists. */
export function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let i = 2; taken.has(candidate.toLowerCase()); i++) candidate = `${name}_${i}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}
