import type { Session } from '../session';
import { typeNames } from '../dataset/type-names';
import type { FlagSpec } from '../magics/args';
import { splitArgs } from '../magics/args';
import type { MagicTable } from '../magics/magic';
import { cursorContext, magicBlockEnd, wordBefore, wordEnd, type CursorContext } from './context';
import { expectedAt } from './expected';
import { functionNames } from './vocabulary';

export interface Completion {
  /** Candidates that replace code[start, end). */
  matches: string[];
  start: number;
  end: number;
}

/**
 * The word before a quoted string that makes the string a list of existing columns
 * (ON KEYS 'a,b', OBSERVE, INCLUDE [NOT], EXCLUDE, ORDER BY, KEY_COLUMNS, ZIP COLUMN, ON COLUMN…).
 */
const COLUMN_LIST_WORDS = new Set([
  'ON',
  'KEYS',
  'OBSERVE',
  'INCLUDE',
  'NOT',
  'EXCLUDE',
  'BY',
  'KEY_COLUMNS',
  'COLUMNS',
  'COLUMN',
  'DATE_FIELD',
]);
/** The word before a quoted string that makes it a filter/calculation expression over the columns. */
const EXPRESSION_WORDS = new Set(['FILTER', 'SQL', 'WHEN']);

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function startsWithCi(candidate: string, prefix: string): boolean {
  return candidate.length >= prefix.length && candidate.slice(0, prefix.length).toLowerCase() === prefix.toLowerCase();
}

/** Keywords follow the case the user is typing in: `sel` → `select`, `Sel`/`SEL`/nothing → `SELECT`. */
function inUserCase(keyword: string, typed: string): string {
  return /[a-z]/.test(typed) && !/[A-Z]/.test(typed) ? keyword.toLowerCase() : keyword.toUpperCase();
}

function columnNames(session: Session): string[] {
  return session.dataset.columns.map((c) => c.name);
}

function filter(candidates: Iterable<string>, prefix: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of candidates) {
    const key = c.toLowerCase();
    if (!seen.has(key) && startsWithCi(c, prefix)) {
      seen.add(key);
      out.push(c);
    }
  }
  return out;
}

/** Whether a string region holds column names, given the words of the statement before it. */
function stringHoldsColumns(ctx: CursorContext): 'list' | 'expression' | undefined {
  const last = ctx.words[ctx.words.length - 1];
  const before = ctx.words[ctx.words.length - 2];
  if (last === undefined) return undefined;
  if (EXPRESSION_WORDS.has(last)) return 'expression';
  // ADD COLUMN '<name>=…' defines a new column; ADD OR ALTER COLUMN names an existing one.
  if (last === 'COLUMN' && before === 'ADD') return undefined;
  return COLUMN_LIST_WORDS.has(last) ? 'list' : undefined;
}

function completeMagic(magics: MagicTable, code: string, cursor: number, ctx: CursorContext): Completion {
  const line = code.slice(ctx.regionStart, cursor);
  const m = /^%(%?)(\S*)(?:(\s.*?)(\S*))?$/.exec(line);
  if (!m) return { matches: [], start: cursor, end: cursor };
  const [, cellForm, name, between, typed] = m;
  if (between === undefined) {
    // `%%name` on a cell's first line is a cell magic: only those with a cell form.
    const names = cellForm
      ? magics
          .all()
          .filter((g) => g.cell !== undefined)
          .map((g) => `%%${g.name}`)
      : magics.all().map((g) => `%${g.name}`);
    return { matches: filter(names, `%${cellForm}${name}`), start: ctx.regionStart, end: wordEnd(code, cursor) };
  }
  const magic = magics.find(name);
  const before = splitArgs(between);
  const words = !magic
    ? []
    : cellForm
      ? magic.cellArgs && argumentWords(magic.cellArgs.positional, magic.cellArgs.options, before, typed)
      : before.length === 0
        ? magic.words
        : argumentWords([], magic.options?.[before[0].toLowerCase()] ?? {}, before.slice(1), typed);
  // An argument is a word up to the next blank, `-` included.
  const end = cursor + /^\S*/.exec(code.slice(cursor))![0].length;
  return { matches: filter(words ?? [], typed), start: cursor - typed.length, end };
}

/**
 * What may come next among a magic's arguments, from the table it parses them with: its options
 * not given yet once a `-` is typed, else the words of the position reached (`reader|writer`); none
 * after an option that takes a value (that value is the user's).
 */
function argumentWords(
  positional: readonly (readonly string[] | undefined)[],
  options: FlagSpec,
  before: string[],
  typed: string,
): readonly string[] {
  const given = before.filter((w) => w.startsWith('--')).map((w) => w.slice(2).replace(/=.*/s, ''));
  const last = before.at(-1);
  if (
    last?.startsWith('--') &&
    !last.includes('=') &&
    options[last.slice(2)] !== undefined &&
    options[last.slice(2)] !== 'switch'
  )
    return [];
  if (typed.startsWith('-'))
    return Object.keys(options)
      .filter((o) => options[o] === 'list' || !given.includes(o))
      .map((o) => `--${o}`);
  // Positions count the words that are not options or their values.
  let position = 0;
  for (let i = 0; i < before.length; i++) {
    const w = before[i];
    if (!w.startsWith('--')) position++;
    else if (!w.includes('=') && options[w.slice(2)] !== 'switch') i++;
  }
  return positional[position] ?? [];
}

/** Columns in a filter expression; a name with other characters is written [name] (reference B.1). */
function expressionColumns(
  session: Session,
  code: string,
  word: { start: number; text: string },
  end: number,
): Completion {
  const bracketed = code[word.start - 1] === '[';
  const names = filter(columnNames(session), word.text).map((n) =>
    bracketed || !PLAIN_NAME.test(n) ? `[${n.replace(/[\]\\]/g, '\\$&')}]` : n,
  );
  return {
    matches: names,
    start: bracketed ? word.start - 1 : word.start,
    end: bracketed && code[end] === ']' ? end + 1 : end,
  };
}

/** Inside quotes after an option with a closed list of values (PAGING 'pa…, PROCESSING 'left…): those values. */
function quotedValues(code: string, cursor: number, ctx: CursorContext): Completion | undefined {
  const expected = expectedAt(code, magicBlockEnd(code), ctx.regionStart - 1);
  if (expected.kind !== 'words' || expected.values.length === 0) return undefined;
  const values = expected.values.map((v) => v.replace(/^'(.*)'$/, '$1'));
  const close = code.indexOf("'", cursor);
  const end = close >= 0 && !/[\r\n]/.test(code.slice(cursor, close)) ? close : cursor;
  return { matches: filter(values, code.slice(ctx.regionStart, cursor)), start: ctx.regionStart, end };
}

/** The variables a `{{@…}}` may name: those every run has, then the session's (`%webhook start`'s, #setvar's). */
function variableNames(session: Session): string[] {
  return [...new Set(['executionId', 'highwatermark', 'success', ...session.variables.keys()])];
}

/**
 * Completion candidates at `cursor` in `code` (a REPL entry or notebook cell), following the grammar:
 * statement heads at a statement's start, the words that continue a head (APPLY → TX, SCHEMA…),
 * then the statement's options and the values of an option with a closed list (FORMAT CSV, PAGING
 * 'page'), keywords in the user's case. Also `#`/`@` functions, the live dataset's columns (in `{{…}}`,
 * in column-list strings such as ON KEYS '…', in filter expressions, in APPLY SCHEMA blocks with the
 * type names), connection names after `[`, and magics and their words on `%` lines. The REPL and the
 * Jupyter kernel both call this.
 */
export function complete(session: Session, code: string, cursor: number): Completion {
  const ctx = cursorContext(code, cursor);
  const none: Completion = { matches: [], start: cursor, end: cursor };

  switch (ctx.region) {
    case 'comment':
      return none;
    case 'magic':
      return completeMagic(session.magics, code, cursor, ctx);
    case 'bracket': {
      const prefix = code.slice(ctx.regionStart, cursor);
      const close = code.indexOf(']', cursor);
      const end = close >= 0 && !/[\r\n]/.test(code.slice(cursor, close)) ? close : cursor;
      return { matches: filter(session.connections.names(), prefix.trimStart()), start: ctx.regionStart, end };
    }
    case 'template': {
      // {{base64:field}}: the prefix before ':' is an encoding, the column comes after it.
      const colon = code.lastIndexOf(':', cursor - 1);
      const start = colon >= ctx.regionStart ? colon + 1 : ctx.regionStart;
      const close = code.indexOf('}}', cursor);
      const end = close >= 0 && !/[\r\n]/.test(code.slice(cursor, close)) ? close : cursor;
      const typed = code.slice(start, cursor);
      // {{@name}}: a pipeline variable, not a column.
      const names = typed.startsWith('@') ? variableNames(session).map((n) => `@${n}`) : columnNames(session);
      return { matches: filter(names, typed), start, end };
    }
  }

  const word = wordBefore(code, cursor);
  const end = wordEnd(code, cursor);
  if (word.sigil === '#' || word.sigil === '@') {
    const names = functionNames().map((n) => word.sigil + n);
    return { matches: filter(names, word.sigil + word.text), start: word.start, end };
  }
  if (word.sigil) return none;

  if (ctx.region === 'string') {
    const holds = stringHoldsColumns(ctx);
    if (!holds) return quotedValues(code, cursor, ctx) ?? none;
    if (holds === 'list') {
      // 'a, b, c': the column being typed starts after the last comma.
      const comma = code.lastIndexOf(',', cursor - 1);
      let start = Math.max(comma + 1, ctx.regionStart);
      while (start < cursor && code[start] === ' ') start++;
      return { matches: filter(columnNames(session), code.slice(start, cursor)), start, end };
    }
    return expressionColumns(session, code, word, end);
  }

  const expected = expectedAt(code, magicBlockEnd(code), word.start);
  switch (expected.kind) {
    case 'none':
      return none;
    case 'schema':
      return { matches: filter([...typeNames(), ...columnNames(session)], word.text), start: word.start, end };
    case 'expression':
      return expressionColumns(session, code, word, end);
    case 'words': {
      const bare = [...expected.keywords, ...expected.values.filter((v) => !v.startsWith("'"))].map((k) =>
        inUserCase(k, word.text),
      );
      const quoted = expected.values.filter((v) => v.startsWith("'"));
      return { matches: filter([...bare, ...quoted], word.text), start: word.start, end };
    }
  }
}
