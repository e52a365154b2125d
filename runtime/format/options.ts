import { ScriptError, type Position } from '../errors';
import { formatDate } from '../functions/dotnet-format/date';
import type { DocFormat } from '../script/ast';

/**
 * FORMAT … OPTIONS 'key:value key:value' (spec 4.2, FORMAT option keys). Pairs are separated by
 * blanks; a word that does not start with a known key continues the previous value, so a date
 * pattern may contain spaces (`date:yyyy-MM-dd HH:mm`). `delimiter:` with nothing after it is a
 * blank, and `\t` is a tab.
 */
export type BytesEncoding = 'ascii' | 'utf8' | 'utf32' | 'unicode' | 'base64' | 'hex';

export interface FormatOptions {
  /** CSV: a header line precedes each fragment. */
  headers: boolean;
  /** The first N rows (of those WHEN selects) are not formatted. */
  skip: number;
  /** CSV field delimiter. */
  delimiter: string;
  /** CSV quoting: undefined = RFC 4180 (quote only when needed, with "); '' = never; a character = always. */
  quote: string | undefined;
  trim: boolean;
  /** CSV fixed widths: each field padded or cut to its width, no delimiter. */
  widths?: number[];
  /** Line feeds inside values become a blank. */
  flatten: boolean;
  /** CSV: a line that would start with one of these is quoted so readers do not skip it as a comment. */
  comments: string[];
  /** .NET date format for datetime fields; undefined = `s` with milliseconds when present. */
  date?: string;
  /** How byte[] fields are written (default hex, as {{field}} does, spec 2.1). */
  bytes: BytesEncoding;
  /** XML: each fragment is wrapped in this element. */
  element?: string;
}

const KEYS = ['headers', 'skip', 'delimiter', 'quoted', 'trim', 'fields', 'flatten', 'comments', 'date', 'bytes', 'element'] as const;
type Key = (typeof KEYS)[number];
const CSV_ONLY = new Set<Key>(['headers', 'delimiter', 'quoted', 'fields', 'comments']);
const BYTES = new Set<BytesEncoding>(['ascii', 'utf8', 'utf32', 'unicode', 'base64', 'hex']);
/** An XML Name restricted to what element names sensibly use (no colon: no namespaces here). */
export const XML_NAME = /^[\p{L}_][\p{L}\p{N}_.-]*$/u;

export function defaultOptions(): FormatOptions {
  return { headers: false, skip: 0, delimiter: ',', quote: undefined, trim: false, flatten: false, comments: [], bytes: 'hex' };
}

export function parseFormatOptions(text: string | undefined, format: DocFormat, pos?: Position): FormatOptions {
  const options = defaultOptions();
  if (!text || !text.trim()) return options;
  const fail = (reason: string) => new ScriptError(`OPTIONS '${text}': ${reason}`, 'semantic', pos);
  const pairs: [Key, string][] = [];
  for (const word of text.trim().split(/\s+/)) {
    const colon = word.indexOf(':');
    const key = word.slice(0, colon).toLowerCase() as Key;
    if (colon > 0 && (KEYS as readonly string[]).includes(key)) pairs.push([key, word.slice(colon + 1)]);
    else if (pairs.length > 0) pairs[pairs.length - 1][1] += ` ${word}`;
    else throw fail(`'${word}' is not key:value (keys: ${KEYS.join(', ')})`);
  }
  const flag = (key: Key, v: string) => {
    if (v !== '0' && v !== '1') throw fail(`${key} must be 0 or 1, not '${v}'`);
    return v === '1';
  };
  for (const [key, raw] of pairs) {
    if (CSV_ONLY.has(key) && format !== 'CSV') throw fail(`${key} applies to FORMAT CSV only`);
    if (key === 'element' && format !== 'XML') throw fail('element applies to FORMAT XML only');
    const v = raw.replace(/\\t/g, '\t');
    switch (key) {
      case 'headers':
        options.headers = flag(key, v);
        break;
      case 'trim':
        options.trim = flag(key, v);
        break;
      case 'flatten':
        options.flatten = flag(key, v);
        break;
      case 'skip':
        if (!/^\d+$/.test(v)) throw fail(`skip must be an integer >= 0, not '${v}'`);
        options.skip = Number(v);
        break;
      case 'delimiter':
        options.delimiter = v === '' ? ' ' : v;
        break;
      case 'quoted':
        if (v === '1') options.quote = '"';
        else if (v === '0') options.quote = '';
        else if ([...v].length === 1) options.quote = v;
        else throw fail(`quoted must be one character, 1 or 0, not '${v}'`);
        break;
      case 'fields':
        if (!/^\d+(,\d+)*$/.test(v) || v.split(',').some((w) => Number(w) === 0)) {
          throw fail(`fields must be positive widths separated by commas without spaces (e.g. 5,15,25), not '${v}'`);
        }
        options.widths = v.split(',').map(Number);
        break;
      case 'comments':
        options.comments = v.split(',').filter((c) => c !== '');
        break;
      case 'date':
        try {
          formatDate(new Date(0), v, 'unspecified');
        } catch (e) {
          throw fail(`date: ${e instanceof Error ? e.message : String(e)}`);
        }
        options.date = v;
        break;
      case 'bytes':
        if (!BYTES.has(v.toLowerCase() as BytesEncoding)) throw fail(`bytes must be one of ${[...BYTES].join(', ')}, not '${v}'`);
        options.bytes = v.toLowerCase() as BytesEncoding;
        break;
      case 'element':
        if (!XML_NAME.test(v)) throw fail(`element '${v}' is not a valid XML element name`);
        options.element = v;
        break;
    }
  }
  return options;
}
