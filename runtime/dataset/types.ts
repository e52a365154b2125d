import type Decimal from 'decimal.js';

/**
 * The column types of spec 2.6. Each base type has one JS representation (see `Value`), so code that
 * reads a cell knows what it holds from the schema alone.
 */
export type BaseType =
  | 'string' // string            (string, string[N], string[max], XML, TEXT, NVARCHAR(N)…, SYSNAME = 256)
  | 'char' // string            (char, char[N], CHAR)
  | 'bool' // boolean           (bool, boolean, BIT, BOOL)
  | 'tinyint' // number 0..255     (tinyint, BYTE)
  | 'short' // number            (short, int16, SMALLINT)
  | 'int' // number            (int, int32, INT)
  | 'long' // bigint            (long, int64, BIGINT): exact beyond 2^53
  | 'decimal' // Decimal           (decimal(p,s), DECIMAL): exact digits end to end
  | 'double' // number            (double, DOUBLE)
  | 'float' // number            (float, single, FLOAT, SINGLE, REAL): rounded to float32 on store
  | 'datetime' // Date              (datetime, DATE, DATETIME, DATETIME2)
  | 'guid' // string, lowercase canonical 8-4-4-4-12
  | 'bytes'; // Uint8Array        (byte[], byte[N], image, binary(N), varbinary(N|max))

export interface ColumnType {
  base: BaseType;
  /** string[N] / char[N] / byte[N] / VARCHAR(N): maximum length; 'max' when written so. */
  size?: number | 'max';
  /** decimal(p, s) */
  precision?: number;
  scale?: number;
}

/** A cell value. null is the only missing marker (no undefined in rows). */
export type Value = string | number | bigint | boolean | Date | Uint8Array | Decimal | null;

export interface Column {
  name: string;
  type: ColumnType;
  /** APPLY SCHEMA's `|description`: documentation only (shown as the HTML header's tooltip). */
  description?: string;
  /**
   * Set by ADD COLUMN … FORMAT when every non-null text of the column is a record it wrote in that
   * format, well-formed by construction: ZIP COLUMN joins those without parsing each again. Copies of
   * the column that keep its values keep it (a filter's); a statement that puts other values in the
   * column builds it without.
   */
  writtenAs?: 'CSV' | 'JSON' | 'XML';
}

export const STRING: ColumnType = Object.freeze({ base: 'string' });
