import Decimal from 'decimal.js';
import type { Dataset } from '../dataset/dataset';
import { scaleOf } from '../dataset/decimal-scale';
import type { Column, Value } from '../dataset/types';
import type { Vector } from '../dataset/vector';
import { ScriptError } from '../errors';

/** A Parquet schema element as hyparquet-writer takes it (the thrift SchemaElement, loosely typed). */
export interface SchemaElement {
  name: string;
  type?: 'BOOLEAN' | 'INT32' | 'INT64' | 'FLOAT' | 'DOUBLE' | 'BYTE_ARRAY' | 'FIXED_LEN_BYTE_ARRAY';
  type_length?: number;
  repetition_type?: 'OPTIONAL';
  converted_type?: string;
  logical_type?: Record<string, unknown>;
  scale?: number;
  precision?: number;
  num_children?: number;
}

/** How one column is written: its schema element and how a slice of its cells becomes Parquet values. */
export interface ParquetColumn {
  element: SchemaElement;
  /** Cells → the values hyparquet-writer encodes (null stays null: every column is OPTIONAL). */
  convert(values: Value[], start: number, end: number): unknown[];
}

/** Parquet DECIMAL holds at most 38 digits in 16 bytes; up to 18 fit an INT64. */
const MAX_PRECISION = 38;
const INT64_PRECISION = 18;

const same = (values: Value[], start: number, end: number): unknown[] => values.slice(start, end);

/**
 * The Parquet column of a dataset column (docs/drives.md, "Parquet types"): integers as INT32 (tinyint
 * UINT_8, short INT_16), long INT64, float/double, bool, string/char UTF8, guid UUID, datetime
 * TIMESTAMP(MILLIS, UTC), byte[] BYTE_ARRAY, decimal DECIMAL(p, s) with its exact unscaled digits.
 */
export function parquetColumn(ds: Dataset, c: number): ParquetColumn {
  const column = ds.columns[c];
  const name = column.name;
  const base = { name, repetition_type: 'OPTIONAL' as const };
  switch (column.type.base) {
    case 'tinyint':
      return { element: { ...base, type: 'INT32', converted_type: 'UINT_8' }, convert: same };
    case 'short':
      return { element: { ...base, type: 'INT32', converted_type: 'INT_16' }, convert: same };
    case 'int':
      return { element: { ...base, type: 'INT32' }, convert: same };
    case 'long':
      return { element: { ...base, type: 'INT64' }, convert: same };
    case 'float':
      return { element: { ...base, type: 'FLOAT' }, convert: same };
    case 'double':
      return { element: { ...base, type: 'DOUBLE' }, convert: same };
    case 'bool':
      return { element: { ...base, type: 'BOOLEAN' }, convert: same };
    case 'string':
    case 'char':
      return { element: { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8' }, convert: same };
    case 'guid':
      return {
        element: { ...base, type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, logical_type: { type: 'UUID' } },
        convert: same,
      };
    case 'datetime':
      return {
        element: {
          ...base,
          type: 'INT64',
          converted_type: 'TIMESTAMP_MILLIS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        },
        convert: same,
      };
    case 'bytes':
      return { element: { ...base, type: 'BYTE_ARRAY' }, convert: same };
    case 'decimal':
      return decimalColumn(column, ds.vector(c));
  }
}

/**
 * DECIMAL(p, s): the declared decimal(p, s), or the smallest that holds every value exactly. Cells
 * are written as their unscaled integer (an INT64 up to 18 digits, a big-endian two's complement
 * FIXED_LEN_BYTE_ARRAY beyond), so no digit goes through a float.
 */
function decimalColumn(column: Column, values: Vector): ParquetColumn {
  let scale = column.type.scale ?? 0;
  let integerDigits = 1;
  const declared = column.type.scale !== undefined;
  for (let r = 0; r < values.length; r++) {
    const v = values.get(r);
    if (v === null) continue;
    const d = v as Decimal;
    if (!declared) scale = Math.max(scale, scaleOf(d));
    integerDigits = Math.max(integerDigits, d.toFixed(0, Decimal.ROUND_DOWN).replace('-', '').length);
  }
  const precision = column.type.precision ?? integerDigits + scale;
  if (precision > MAX_PRECISION) {
    throw new ScriptError(
      `column '${column.name}': a Parquet DECIMAL holds at most ${MAX_PRECISION} digits, the values need ${precision}`,
      'runtime',
    );
  }
  const limit = 10n ** BigInt(precision);
  // Digits by text, never by arithmetic: decimal.js rounds products to its precision (20 digits).
  const unscaled = (d: Decimal): bigint => {
    if (d.decimalPlaces() > scale)
      throw new ScriptError(
        `column '${column.name}': ${d.toFixed()} has more than ${scale} decimals (decimal(${precision},${scale})); no digit is dropped silently`,
        'runtime',
      );
    const n = BigInt(d.toFixed(scale).replace('.', ''));
    if (n >= limit || -n >= limit)
      throw new ScriptError(
        `column '${column.name}': ${d.toFixed()} does not fit decimal(${precision},${scale})`,
        'runtime',
      );
    return n;
  };
  const element: SchemaElement =
    precision <= INT64_PRECISION
      ? { name: column.name, repetition_type: 'OPTIONAL', type: 'INT64', converted_type: 'DECIMAL', precision, scale }
      : {
          name: column.name,
          repetition_type: 'OPTIONAL',
          type: 'FIXED_LEN_BYTE_ARRAY',
          type_length: bytesFor(precision),
          converted_type: 'DECIMAL',
          precision,
          scale,
        };
  element.logical_type = { type: 'DECIMAL', precision, scale };
  return {
    element,
    convert(cells, start, end) {
      const out = new Array<bigint | null>(end - start);
      for (let r = start; r < end; r++) {
        const v = cells[r];
        out[r - start] = v === null ? null : unscaled(v as Decimal);
      }
      return out;
    },
  };
}

/** The fewest bytes whose two's complement holds every integer of `precision` digits. */
function bytesFor(precision: number): number {
  const max = 10n ** BigInt(precision) - 1n;
  let bytes = 1;
  while (max >= 1n << BigInt(bytes * 8 - 1)) bytes++;
  return bytes;
}
