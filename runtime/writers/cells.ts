import { formatDateTime, formatValue, toJsonValue } from '../dataset/format-value';
import type { ColumnType, Value } from '../dataset/types';
import { formatDate } from '../functions/dotnet-format/date';
import type { BytesEncoding, CellOptions } from './options';

/**
 * Per-column writers of non-null cells, chosen once from the column type and the options: `text`
 * for CSV and XML content, `json` for JSON values (numbers, booleans, longs and decimals unquoted
 * with exact digits; dates, bytes and guids as strings). A cell whose JS value does not match its
 * column type falls back to the generic form, so output stays well-formed.
 */
export type CellWriter = (v: Exclude<Value, null>) => string;

export function encodeBytes(bytes: Uint8Array, encoding: BytesEncoding): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (encoding) {
    case 'hex':
      return b.toString('hex');
    case 'base64':
      return b.toString('base64');
    case 'utf8':
      return b.toString('utf8');
    case 'unicode':
      return b.toString('utf16le');
    case 'ascii':
      // .NET Encoding.ASCII: bytes above 0x7F read as '?'.
      return b.toString('latin1').replace(/[\u0080-\u00ff]/g, '?');
    case 'utf32': {
      let s = '';
      for (let i = 0; i + 3 < b.length; i += 4) {
        const cp = b.readUInt32LE(i);
        s += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
      }
      return s;
    }
  }
}

/** What the text options do to string content (trim, flatten). */
function stringShaper(options: CellOptions): ((s: string) => string) | undefined {
  const { trim, flatten } = options;
  if (!trim && !flatten) return undefined;
  return (s) => {
    let t = flatten ? s.replace(/\r\n|\r|\n/g, ' ') : s;
    if (trim) t = t.trim();
    return t;
  };
}

/** True when the text writer gives a string cell unchanged (no trim, no flatten). */
export function keepsStrings(options: CellOptions): boolean {
  return !options.trim && !options.flatten;
}

export function textWriter(type: ColumnType, options: CellOptions): CellWriter {
  const shape = stringShaper(options);
  const date = options.date;
  const bytes = options.bytes;
  return (v) => {
    if (typeof v === 'string') return shape ? shape(v) : v;
    if (v instanceof Date) return date === undefined ? formatDateTime(v) : formatDate(v, date, 'unspecified');
    if (v instanceof Uint8Array) return encodeBytes(v, bytes);
    return formatValue(v, type);
  };
}

export function jsonWriter(type: ColumnType, options: CellOptions): CellWriter {
  const text = textWriter(type, options);
  switch (type.base) {
    case 'tinyint':
    case 'short':
    case 'int':
    case 'double':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : generic(v, type, text));
    case 'float':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? formatValue(v, type) : generic(v, type, text));
    case 'bool':
      return (v) => (v === true ? 'true' : v === false ? 'false' : generic(v, type, text));
    case 'long':
      return (v) => (typeof v === 'bigint' ? v.toString() : generic(v, type, text));
    case 'string':
    case 'char':
    case 'guid':
      return (v) => (typeof v === 'string' ? JSON.stringify(text(v)) : generic(v, type, text));
    default:
      return (v) => generic(v, type, text);
  }
}

function generic(v: Exclude<Value, null>, type: ColumnType, text: CellWriter): string {
  if (typeof v === 'string' || v instanceof Date || v instanceof Uint8Array) return JSON.stringify(text(v));
  return toJsonValue(v, type);
}
