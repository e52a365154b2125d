import type { IToken, Lexer as ChevrotainLexer, TokenType } from 'chevrotain';
import { createToken, Lexer } from './chevrotain';
import type { SourceText } from './source';
import { lineEnd } from '../util/lines';

/**
 * The SQL CDC lexer. Strings, `[connection]` names, `( … )` blocks and `#f(…)` calls are single tokens,
 * so the parser never sees the inside of a payload, a native SQL query or a pipeline: their text stays
 * verbatim and `;`, `--` or quotes inside them cannot end a statement. Words are lexed as one token
 * type and then retyped to their keyword (one map lookup instead of a hundred case-insensitive
 * patterns); a word that is not a keyword stays an Identifier.
 */

const KEYWORD_NAMES = [
  'SELECT',
  'FROM',
  'HTTP',
  'DB',
  'DRIVE',
  'LOAD',
  'APPLY',
  'TX',
  'SCHEMA',
  'PIPELINE',
  'FILTER',
  'ADD',
  'OR',
  'ALTER',
  'COLUMN',
  'ZIP',
  'EXEC',
  'ON',
  'CAPTURE',
  'PUSH',
  'INTO',
  'SINK',
  'MERGE',
  'PRINT',
  'EXIT',
  'UPSERTS',
  'UPSERT',
  'INSERTS',
  'INSERT',
  'UPDATES',
  'UPDATE',
  'DELETES',
  'DELETE',
  'WITH',
  'PATH',
  'KEY_COLUMNS',
  'KEY',
  'COLUMNS',
  'CHECK_SIGNATURE',
  'PREVIEW_FILE',
  'INITIAL_ID',
  'CONTINUE_ON_ERROR',
  'STRICT_COLUMNS',
  'FX_BY_ROW',
  'BREAK_ON_EMPTY',
  'BYPASS',
  'PAGING',
  'PAGING_PARAM',
  'PAGING_PATH',
  'TIMEOUT',
  'HEADERS',
  'PAYLOAD',
  'CONTENT_TYPE',
  'RETURN_BYTES',
  'PROCESSING',
  'WHEN',
  'SHIFT_ROWS',
  'CONTINUE_ON_ERRORS',
  'CONTINUE_ON_HTTPERROR',
  'RETRY_ON',
  'RETRY_ONREGEX',
  'RETRY_PATH',
  'RETRY_INTERVAL',
  'RETRY_COUNT',
  'TRACE',
  'TABLE',
  'WITH_PAYLOAD',
  'ADD_TRACKING_FIELDS',
  'TRUNCATE',
  'TRUNCATE_APPEND',
  'STAGE',
  'CREDENTIALS',
  'LIMIT',
  'ORDER',
  'BY',
  'KEEP_EMPTY',
  'KEEP_INVALID',
  'CASE_INSENSITIVE',
  'SINGLE_LINE',
  'RAWCOL',
  'FORMAT',
  'INCLUDE',
  'NOT',
  'EXCLUDE',
  'COLLAPSE',
  'OPTIONS',
  'IGNORE_IF_EXISTS',
  'EXPRESSION',
  'BATCH',
  'PER_ROW',
  'KEYS',
  'OBSERVE',
  'INIT_ON_FIRST_RUN',
  'IGNORE_DUPS',
  'CDCMARKER',
  'ENCRYPT_CERT',
  'SIGN_CERT',
  'ON_UPSERT',
  'ON_DELETE',
  'CONTINUE_ON_HTTP',
  'THROW_ON_REGEX',
  'DISCARD_ON_SUCCESS',
  'DISCARD_ON_ERROR',
  'DLQ_ON_ERROR',
  'RETRY',
  'RECREATE',
  'RECREATE_APPEND',
  'REPLACE',
  'AUTO_CLEAN',
  'DATE_FIELD',
  'CONTAINER',
  'FILE',
  'COMPRESSION',
  'ROWS_PER_GROUP',
  'DELIMITER',
  'COMMENT_TOKENS',
  'FIXED_LENGTH',
  'DATE_FORMAT',
  'ADD_HEADER',
  'FORCE_QUOTED',
  'FLATTEN',
  'TRIM',
  'FILE_PER_ROW',
  'ROOT_NODE',
  'ELEMENT',
  'AUTO_MERGE',
  'ON_INIT',
  'ON_COMPLETION',
  'SCHEMA_DRIFT',
  'KEEP',
] as const;

export type KeywordName = (typeof KEYWORD_NAMES)[number];

/** Unquoted words that are values, not keywords (format names, filter modes, retry kinds, verbs). */
export const VALUE_WORDS = [
  'CSV',
  'JSON',
  'NDJSON',
  'XML',
  'RAW',
  'PARQUET',
  'SQL',
  'REGEX',
  'XPATH',
  'LINEAR',
  'EXPONENTIAL',
  'GET',
  'POST',
  'PUT',
  'PATCH',
];

export const KW = Object.fromEntries(
  KEYWORD_NAMES.map((name) => [name, createToken({ name, pattern: Lexer.NA, label: name })]),
) as Record<KeywordName, TokenType>;

const KEYWORDS = new Map<string, TokenType>(KEYWORD_NAMES.map((name) => [name, KW[name]]));

export function keywordNames(): readonly KeywordName[] {
  return KEYWORD_NAMES;
}

export function isKeyword(word: string): word is KeywordName {
  return KEYWORDS.has(word.toUpperCase());
}

// ------------------------------------------------------------------ block scanning

export type BlockScan = { end: number } | { unclosed: 'paren' | 'quote'; at: number };

/**
 * Finds the `)` closing the `(` at `open`: nested parentheses balance, `'…'` (with `''`) and `"…"`
 * (with `\"`) are skipped, and so is a `--` comment (at the block start or after whitespace, not
 * `-->`) so that `don't` in a SQL comment cannot open a string. So are a C-style comment (slash-star to
 * star-slash) and a PostgreSQL dollar-quoted string (`$$ … $$`, `$tag$ … $tag$`: function bodies), when
 * they are closed: an unclosed one is other text (a `$` or a slash-star in a payload). The text itself
 * stays verbatim.
 */
export function scanBlock(text: string, open: number): BlockScan {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') {
      if (--depth === 0) return { end: i + 1 };
    } else if (c === "'" || c === '"') {
      const close = closingQuote(text, i);
      if (close < 0) return { unclosed: 'quote', at: i };
      i = close;
    } else if (c === '-' && text[i + 1] === '-' && text[i + 2] !== '>' && /[\s(]/.test(text[i - 1])) {
      const eol = lineEnd(text, i);
      if (eol === text.length) break;
      i = eol;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close > 0) i = close + 1;
    } else if (c === '$') {
      const close = closingDollarQuote(text, i);
      if (close > 0) i = close;
    }
  }
  return { unclosed: 'paren', at: open };
}

const DOLLAR_TAG = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;

/** The last character of the dollar quote opening at `open`, or -1 (not one: `$1`, `a$b`, or never closed). */
function closingDollarQuote(text: string, open: number): number {
  if (/[\w$]/.test(text[open - 1] ?? '')) return -1;
  DOLLAR_TAG.lastIndex = open;
  const tag = DOLLAR_TAG.exec(text)?.[0];
  if (!tag) return -1;
  const end = text.indexOf(tag, open + tag.length);
  return end < 0 ? -1 : end + tag.length - 1;
}

function closingQuote(text: string, open: number): number {
  const q = text[open];
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (q === '"' && c === '\\') i++;
    else if (c === q) {
      if (q === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

// ------------------------------------------------------------------ token types

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /\s+/, group: Lexer.SKIPPED, line_breaks: true });
export const Comment = createToken({ name: 'Comment', pattern: /--[^\r\n]*/, group: Lexer.SKIPPED });
export const Semicolon = createToken({ name: 'Semicolon', pattern: /;/, label: "';'" });
export const Star = createToken({ name: 'Star', pattern: /\*/, label: "'*'" });
export const StringLit = createToken({
  name: 'StringLit',
  pattern: /'[^']*(?:''[^']*)*'/,
  line_breaks: true,
  label: "a quoted string ('…')",
});
export const UnclosedString = createToken({ name: 'UnclosedString', pattern: /'[\s\S]*/, line_breaks: true });
export const Bracket = createToken({ name: 'Bracket', pattern: /\[[^\]\r\n]*\]/, label: 'a [connection]' });
export const UnclosedBracket = createToken({ name: 'UnclosedBracket', pattern: /\[[^\]\r\n]*/ });
export const Block = createToken({
  name: 'Block',
  pattern: {
    exec: (text: string, offset: number) => {
      const scan = scanBlock(text, offset);
      return 'end' in scan ? ([text.slice(offset, scan.end)] as [string]) : null;
    },
  },
  start_chars_hint: ['('],
  line_breaks: true,
  label: 'a ( … ) block',
});
export const UnclosedBlock = createToken({ name: 'UnclosedBlock', pattern: /\([\s\S]*/, line_breaks: true });
export const CloseParen = createToken({ name: 'CloseParen', pattern: /\)/, label: "')'" });

const FUNCTION_NAME = /[#@][A-Za-z_][\w.]*/y;
/** `#f(…)` with its balanced arguments, or a bare `@variable`. */
export const Func = createToken({
  name: 'Func',
  pattern: {
    exec: (text: string, offset: number) => {
      FUNCTION_NAME.lastIndex = offset;
      const m = FUNCTION_NAME.exec(text);
      if (!m) return null;
      const nameEnd = offset + m[0].length;
      if (text[nameEnd] !== '(') return [m[0]] as [string];
      const scan = scanBlock(text, nameEnd);
      return 'end' in scan ? ([text.slice(offset, scan.end)] as [string]) : null;
    },
  },
  start_chars_hint: ['#', '@'],
  line_breaks: true,
  label: 'a function',
});
export const FieldRef = createToken({ name: 'FieldRef', pattern: /\{\{[^{}]*\}\}/, label: 'a {{field}}' });
export const UnclosedFieldRef = createToken({ name: 'UnclosedFieldRef', pattern: /\{\{[^{}]*/ });
export const NumberLit = createToken({ name: 'NumberLit', pattern: /-?\d+(?:\.\d+)?/, label: 'a number' });
export const Identifier = createToken({ name: 'Identifier', pattern: /[A-Za-z_][A-Za-z0-9_]*/, label: 'a name' });
/**
 * Any other character (a surrogate pair counts as one): the parser reports it as "found 'x'" with the
 * expected alternatives. Written as a range: chevrotain's first-character optimisation silently drops
 * characters with [\s\S] and refuses [^\s].
 */
// eslint-disable-next-line no-control-regex -- every character, control characters included
export const Other = createToken({ name: 'Other', pattern: /[\ud800-\udbff][\udc00-\udfff]|[\x00-\uffff]/ });

const LEXED = [
  WhiteSpace,
  Comment,
  Semicolon,
  Star,
  StringLit,
  UnclosedString,
  Bracket,
  UnclosedBracket,
  Block,
  UnclosedBlock,
  CloseParen,
  Func,
  FieldRef,
  UnclosedFieldRef,
  NumberLit,
  Identifier,
  Other,
];

/** Every token type the parser may see (keywords only come from retyping). */
export const ALL_TOKENS: TokenType[] = [...LEXED, ...Object.values(KW)];

/**
 * chevrotain's checks of the token patterns cost ~12 ms of CPU at every start of the interpreter and can
 * only fail on a change to this file: the tests build the lexer with them (test/script/grammar.test.ts),
 * the interpreter without, as the grammar.
 */
export function newLexer(options: { validate?: boolean } = {}): ChevrotainLexer {
  return new Lexer(LEXED, {
    positionTracking: 'onlyOffset',
    ensureOptimizations: true,
    skipValidations: !options.validate,
  });
}

const lexer = newLexer();

/**
 * Tokens of `source.text` between `start` and `end`, offsets in cell coordinates. Never throws:
 * the Unclosed*, CloseParen and Other tokens carry the problems to the parser, which reports the first
 * one in statement order (see `problemOf`).
 */
export function lexRange(source: SourceText, start: number, end: number): IToken[] {
  const slice = start === 0 && end === source.text.length ? source.text : source.text.slice(start, end);
  const { tokens } = lexer.tokenize(slice);
  for (const t of tokens) {
    t.startOffset += start;
    if (t.tokenType === Identifier) {
      const kw = KEYWORDS.get(t.image.toUpperCase());
      if (kw) {
        t.tokenType = kw;
        t.tokenTypeIdx = kw.tokenTypeIdx!;
      }
    }
  }
  return tokens;
}

/** Offset just after the token (the lexer tracks start offsets only). */
export function endOf(t: IToken): number {
  return t.startOffset + t.image.length;
}

export interface TokenProblem {
  /** 'open': more text could complete it (REPL continuation); 'invalid': it can never parse. */
  kind: 'open' | 'invalid';
  message: string;
  offset: number;
}

/** What is wrong with a token that cannot be part of any statement, if anything. */
export function problemOf(t: IToken, source: SourceText): TokenProblem | undefined {
  switch (t.tokenType) {
    case UnclosedString:
      return { kind: 'open', message: "unterminated string: the closing quote (') is missing", offset: t.startOffset };
    case UnclosedBlock: {
      const scan = scanBlock(source.text, t.startOffset);
      if ('unclosed' in scan && scan.unclosed === 'quote') {
        const at = source.position(scan.at);
        return {
          kind: 'open',
          message: `missing ')' to close this '(': the quote at line ${at.line}, column ${at.column} inside it is never closed`,
          offset: t.startOffset,
        };
      }
      return { kind: 'open', message: "missing ')' to close this '('", offset: t.startOffset };
    }
    case UnclosedFieldRef:
      return { kind: 'open', message: "missing '}}' to close this '{{'", offset: t.startOffset };
    case UnclosedBracket:
      return { kind: 'invalid', message: "missing ']' to close the connection name", offset: t.startOffset };
    case CloseParen:
      return { kind: 'invalid', message: "')' without a matching '('", offset: t.startOffset };
    default:
      return undefined;
  }
}

/** How a token reads in "… but found X". */
export function describeToken(t: IToken | undefined): string {
  if (!t || t.tokenType.name === 'EOF') return 'the end of the statement';
  const image = t.image.length > 40 ? `${t.image.slice(0, 37)}…` : t.image;
  if (t.tokenType === StringLit) return image;
  return `'${image.replace(/\s+/g, ' ')}'`;
}
