import { positionIn, ScriptError, type Position } from '../../errors';

/** CSV reading options: the FORMAT key table of spec 4.2 that applies to reading. */
export interface CsvOptions {
  /** The first line holds column names (default 1). */
  headers: boolean;
  /** Field separator, one or more characters (default ','). */
  delimiter: string;
  /** Quote character; undefined: fields are not quoted. */
  quote: string | undefined;
  trim: boolean;
  /** Lines skipped from the top before parsing. */
  skip: number;
  /** Lines starting with one of these are ignored. */
  comments: string[];
  /** Fixed-width fields: the width of each column. */
  fields?: number[];
  /** Line feeds inside values are removed. */
  flatten: boolean;
}

export const DEFAULT_CSV: Readonly<CsvOptions> = Object.freeze({
  headers: true,
  delimiter: ',',
  quote: '"',
  trim: false,
  skip: 0,
  comments: [],
  flatten: false,
});

const READ_KEYS = ['headers', 'delimiter', 'quoted', 'trim', 'skip', 'comments', 'fields', 'flatten'];
/** Keys of the same table that shape written documents (ADD COLUMN … FORMAT), not reading. */
const WRITE_KEYS = ['date', 'bytes', 'element'];
const KEY = /([A-Za-z_]+):/y;

/** Whether a text is CSV options ('headers:1 delimiter:;') rather than a document path. */
export function isCsvOptions(text: string): boolean {
  const m = /^\s*([A-Za-z_]+):/.exec(text);
  return m !== null && READ_KEYS.includes(m[1].toLowerCase());
}

/**
 * Parses 'headers:1 delimiter:; quoted:1 trim:1 skip:2 comments:#,// fields:5,15,25 flatten:1'.
 * A value runs to the next blank; `delimiter:` followed by a blank means a blank ("use a space for
 * a blank"); `delimiter:\t` or `delimiter:tab` is a tab.
 */
export function parseCsvOptions(text: string, pos?: Position): CsvOptions {
  const options: CsvOptions = { ...DEFAULT_CSV, comments: [] };
  // Where the key:value word being read starts: the caret of its error.
  let word = 0;
  const fail = (why: string): never => {
    throw new ScriptError(`CSV options '${text}': ${why}`, 'semantic', positionIn(pos, text, word));
  };
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i])) {
      i++;
      continue;
    }
    word = i;
    KEY.lastIndex = i;
    const m = KEY.exec(text);
    if (!m) fail(`expected key:value at '${text.slice(i, i + 12)}'`);
    const key = m![1].toLowerCase();
    let end = KEY.lastIndex;
    while (end < text.length && !/\s/.test(text[end])) end++;
    const value = text.slice(KEY.lastIndex, end);
    i = end;
    const flag = () => {
      if (!/^(0|1|true|false)$/i.test(value)) fail(`${key} takes 0 or 1, not '${value}'`);
      return value === '1' || value.toLowerCase() === 'true';
    };
    switch (key) {
      case 'headers':
        options.headers = flag();
        break;
      case 'trim':
        options.trim = flag();
        break;
      case 'flatten':
        options.flatten = flag();
        break;
      case 'delimiter':
        options.delimiter = value === '' ? ' ' : /^(\\t|tab)$/i.test(value) ? '\t' : value;
        if (value === '') i++; // the blank was the value
        break;
      case 'quoted':
        if (value === '1') options.quote = '"';
        else if (value === '0') options.quote = undefined;
        else if (value.length === 1) options.quote = value;
        else fail(`quoted takes 1, 0 or a single character, not '${value}'`);
        break;
      case 'skip':
        if (!/^\d+$/.test(value)) fail(`skip takes a whole number, not '${value}'`);
        options.skip = Number(value);
        break;
      case 'comments':
        options.comments = value.split(',').filter((c) => c !== '');
        if (options.comments.length === 0) fail('comments takes comma-separated strings');
        break;
      case 'fields':
        if (!/^[1-9]\d*(,[1-9]\d*)*$/.test(value))
          fail(`fields takes comma-separated widths without spaces (5,15,25), not '${value}'`);
        options.fields = value.split(',').map(Number);
        break;
      default:
        if (WRITE_KEYS.includes(key)) fail(`${key} applies to writing documents (ADD COLUMN … FORMAT), not to reading`);
        fail(`unknown key '${key}' (known: ${READ_KEYS.join(', ')})`);
    }
  }
  return options;
}
