import { positionIn, ScriptError, type Position } from '../errors';
import { formatDate } from '../functions/dotnet-format/date';
import type { DocFormat } from '../script/ast';
import { writerOptions, type BytesEncoding, type WriterOptions } from './options';

/**
 * FORMAT … OPTIONS 'key:value key:value' (spec 4.2, FORMAT option keys). Pairs are separated by
 * blanks; a word that does not start with a known key continues the previous value, so a date
 * pattern may contain spaces (`date:yyyy-MM-dd HH:mm`). A word shaped `word:…` whose word is not a
 * key is a mistyped key, unless it continues a date pattern and its word is date pattern letters
 * (`HH:mm:ss`). `delimiter:` with nothing after it is a blank, and `\t` is a tab.
 */
export interface FormatOptions extends WriterOptions {
  /** The first N rows (of those WHEN selects) are not formatted. */
  skip: number;
}

const KEYS = [
  'headers',
  'skip',
  'delimiter',
  'quoted',
  'trim',
  'fields',
  'flatten',
  'comments',
  'date',
  'bytes',
  'element',
] as const;
type Key = (typeof KEYS)[number];
const CSV_ONLY = new Set<Key>(['headers', 'delimiter', 'quoted', 'fields', 'comments']);
const BYTES = new Set<BytesEncoding>(['ascii', 'utf8', 'utf32', 'unicode', 'base64', 'hex']);
/** An XML Name restricted to what element names sensibly use (no colon: no namespaces here). */
const XML_NAME = /^[\p{L}_][\p{L}\p{N}_.-]*$/u;

/**
 * Whether the text before a word's colon can be part of a .NET date pattern: only its format letters
 * (d f F g h H K m M s t y z), other characters, and literals in quotes or after a backslash.
 */
function datePatternWord(word: string): boolean {
  return !/[A-Za-z]/.test(word.replace(/'[^']*'|"[^"]*"|\\.|[dfFghHKmMstyz]/g, ''));
}

export function parseFormatOptions(text: string | undefined, format: DocFormat, pos?: Position): FormatOptions {
  const options: FormatOptions = { ...writerOptions(), skip: 0 };
  if (!text || !text.trim()) return options;
  // Each error points at the word it is about.
  const fail = (reason: string, at: number) =>
    new ScriptError(`OPTIONS '${text}': ${reason}`, 'semantic', positionIn(pos, text, at));
  const pairs: [key: Key, value: string, at: number][] = [];
  for (const { 0: word, index } of text.matchAll(/\S+/g)) {
    const colon = word.indexOf(':');
    const written = word.slice(0, colon);
    const key = written.toLowerCase() as Key;
    const previous = pairs.at(-1);
    if (colon > 0 && (KEYS as readonly string[]).includes(key)) pairs.push([key, word.slice(colon + 1), index]);
    else if (colon > 0 && !(previous?.[0] === 'date' && datePatternWord(written)))
      throw fail(`unknown key '${written}' (keys: ${KEYS.join(', ')})`, index);
    else if (previous) previous[1] += ` ${word}`;
    else throw fail(`'${word}' is not key:value (keys: ${KEYS.join(', ')})`, index);
  }
  for (const [key, raw, at] of pairs) {
    const wrong = (reason: string) => fail(reason, at);
    const flag = (v: string) => {
      if (v !== '0' && v !== '1') throw wrong(`${key} must be 0 or 1, not '${v}'`);
      return v === '1';
    };
    if (CSV_ONLY.has(key) && format !== 'CSV') throw wrong(`${key} applies to FORMAT CSV only`);
    if (key === 'element' && format !== 'XML') throw wrong('element applies to FORMAT XML only');
    const v = raw.replace(/\\t/g, '\t');
    switch (key) {
      case 'headers':
        options.header = flag(v);
        break;
      case 'trim':
        options.trim = flag(v);
        break;
      case 'flatten':
        options.flatten = flag(v);
        break;
      case 'skip':
        if (!/^\d+$/.test(v)) throw wrong(`skip must be an integer >= 0, not '${v}'`);
        options.skip = Number(v);
        break;
      case 'delimiter':
        options.delimiter = v === '' ? ' ' : v;
        break;
      case 'quoted':
        if (v === '0') options.quoting = 'never';
        else if (v === '1' || [...v].length === 1) {
          options.quoting = 'always';
          options.quote = v === '1' ? '"' : v;
        } else throw wrong(`quoted must be one character, 1 or 0, not '${v}'`);
        break;
      case 'fields':
        if (!/^\d+(,\d+)*$/.test(v) || v.split(',').some((w) => Number(w) === 0)) {
          throw wrong(`fields must be positive widths separated by commas without spaces (e.g. 5,15,25), not '${v}'`);
        }
        options.widths = v.split(',').map(Number);
        options.widthsFrom = { name: 'OPTIONS fields', pos: positionIn(pos, text, at) };
        break;
      case 'comments':
        options.comments = v.split(',').filter((c) => c !== '');
        break;
      case 'date':
        try {
          formatDate(new Date(0), v, 'unspecified');
        } catch (e) {
          throw wrong(`date: ${e instanceof Error ? e.message : String(e)}`);
        }
        options.date = v;
        break;
      case 'bytes':
        if (!BYTES.has(v.toLowerCase() as BytesEncoding))
          throw wrong(`bytes must be one of ${[...BYTES].join(', ')}, not '${v}'`);
        options.bytes = v.toLowerCase() as BytesEncoding;
        break;
      case 'element':
        if (!XML_NAME.test(v)) throw wrong(`element '${v}' is not a valid XML element name`);
        options.element = v;
        break;
    }
  }
  return options;
}
