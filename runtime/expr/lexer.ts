import { exprError, type ErrorContext } from './errors';

/**
 * Tokens of the DataColumn.Expression language. Offsets are 0-based into the expression text so
 * errors can point at the exact character (mapped to the cell by `exprError`).
 */
export type TokenType =
  | 'number' // text kept as written: the parser picks Int32/Int64/Decimal/Double from it
  | 'string' // 'text', value unescaped
  | 'date' // #...#, value is the text between the hashes
  | 'name' // bare identifier (also keywords: the parser decides by context)
  | 'column' // [name] or `name`, value unescaped
  | 'op' // = <> != < > <= >= + - * / %
  | '('
  | ')'
  | ','
  | 'eof';

export interface Token {
  type: TokenType;
  value: string;
  offset: number;
}

const isDigit = (c: number) => c >= 48 && c <= 57;
// .NET accepts letters (any script) and '_' in bare names; digits after the first character.
const isNameStart = (ch: string) => ch === '_' || /\p{L}/u.test(ch);
const isNamePart = (ch: string) => ch === '_' || /[\p{L}\p{N}]/u.test(ch);

export function tokenize(source: string, context: ErrorContext): Token[] {
  const tokens: Token[] = [];
  const n = source.length;
  let i = 0;
  while (i < n) {
    const ch = source[i];
    const c = source.charCodeAt(i);
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n') {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c) || (ch === '.' && i + 1 < n && isDigit(source.charCodeAt(i + 1)))) {
      i = scanNumber(source, i);
      if (i < n && isNamePart(source[i]))
        throw exprError(`invalid number '${source.slice(start, i + 1)}'`, start, context);
      tokens.push({ type: 'number', value: source.slice(start, i), offset: start });
      continue;
    }
    if (ch === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= n) throw exprError('unterminated string literal', start, context);
        if (source[i] === "'") {
          if (source[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += source[i++];
      }
      tokens.push({ type: 'string', value, offset: start });
      continue;
    }
    if (ch === '#') {
      const end = source.indexOf('#', i + 1);
      if (end < 0) throw exprError('unterminated date literal (missing closing #)', start, context);
      tokens.push({ type: 'date', value: source.slice(i + 1, end), offset: start });
      i = end + 1;
      continue;
    }
    if (ch === '[' || ch === '`') {
      const close = ch === '[' ? ']' : '`';
      let value = '';
      i++;
      for (;;) {
        if (i >= n) throw exprError(`unterminated column name (missing ${close})`, start, context);
        const d = source[i];
        if (d === '\\' && i + 1 < n && (source[i + 1] === close || source[i + 1] === '\\')) {
          value += source[i + 1];
          i += 2;
          continue;
        }
        if (d === close) {
          i++;
          break;
        }
        value += d;
        i++;
      }
      if (value === '') throw exprError('empty column name', start, context);
      tokens.push({ type: 'column', value, offset: start });
      continue;
    }
    if (isNameStart(ch)) {
      i++;
      while (i < n && isNamePart(source[i])) i++;
      tokens.push({ type: 'name', value: source.slice(start, i), offset: start });
      continue;
    }
    if (ch === '(' || ch === ')' || ch === ',') {
      tokens.push({ type: ch, value: ch, offset: start });
      i++;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === '<>' || two === '<=' || two === '>=' || two === '!=') {
      tokens.push({ type: 'op', value: two === '!=' ? '<>' : two, offset: start });
      i += 2;
      continue;
    }
    if ('=<>+-*/%'.includes(ch)) {
      tokens.push({ type: 'op', value: ch, offset: start });
      i++;
      continue;
    }
    throw exprError(`unexpected character '${ch}'`, start, context);
  }
  tokens.push({ type: 'eof', value: '', offset: n });
  return tokens;
}

/** Digits, an optional fraction and an optional exponent (invariant culture: '.' only). */
function scanNumber(s: string, i: number): number {
  const n = s.length;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  if (s[i] === '.') {
    i++;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
  }
  if ((s[i] === 'e' || s[i] === 'E') && i + 1 < n) {
    let j = i + 1;
    if (s[j] === '+' || s[j] === '-') j++;
    if (j < n && isDigit(s.charCodeAt(j))) {
      i = j;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
    }
  }
  return i;
}
