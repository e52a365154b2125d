import { withWritten, type Position } from '../errors';
import { linesOf } from '../util/lines';
import type { HttpCommand, HttpVerb, SchemaColumnSpec, Text } from './ast';

/**
 * The small syntaxes that live inside one string or block token: `(GET /path)`, `'[type] name=default'`,
 * `(name='default')`, the column lines of APPLY SCHEMA and RETRY's `(n,p)`. Each works on the raw text
 * with its cell offset so errors point at the exact character.
 */

/** Reports a problem at a cell offset; never returns. */
export type Fail = (message: string, offset: number) => never;
export type Locate = (offset: number) => Position;

const VERBS: readonly HttpVerb[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function httpCommand(block: Text, at: Locate, fail: Fail): HttpCommand {
  const text = block.value;
  const start = block.pos.offset;
  const lead = /^\s*/.exec(text)![0].length;
  const verb = /^[A-Za-z]*/.exec(text.slice(lead))![0];
  const upper = verb.toUpperCase() as HttpVerb;
  if (!VERBS.includes(upper)) {
    const found = verb || text.slice(lead).split(/\s/)[0] || 'nothing';
    fail(`expected an HTTP verb (GET, POST, PUT, PATCH or DELETE) but found '${found}'`, start + lead);
  }
  const rest = text.slice(lead + verb.length);
  const gap = /^\s*/.exec(rest)![0].length;
  const target = rest.slice(gap).trimEnd();
  if (!target) fail(`missing the path or URL after ${upper}`, start + lead + verb.length);
  const targetOffset = start + lead + verb.length + gap;
  return { pos: at(start + lead), verb: upper, target: { value: target, form: 'block', pos: at(targetOffset) } };
}

/** Index of the first of `chars` outside ( ) and [ ], from `from`; -1 if none. */
function topLevelIndex(text: string, chars: string, from = 0): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0 && chars.includes(c)) return i;
  }
  return -1;
}

/**
 * `{ type } name`: the name is the last whitespace-separated part (outside parentheses/brackets, so
 * `decimal(10, 2) price` and `[my col]` work), the type is everything before it as written.
 */
export function typeAndName(head: string, offset: number, fail: Fail): { typeName?: string; name: string } {
  const trimmed = head.trim();
  if (!trimmed) fail('missing the column name', offset);
  let depth = 0;
  let lastGap = -1;
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0 && /\s/.test(c)) lastGap = i;
  }
  const name = unbracket(trimmed.slice(lastGap + 1));
  if (!name) fail('missing the column name', offset);
  if (lastGap < 0) return { name };
  return { typeName: unbracket(trimmed.slice(0, lastGap).trimEnd()), name };
}

function unbracket(s: string): string {
  return s.startsWith('[') && s.endsWith(']') ? s.slice(1, -1).trim() : s;
}

function unescapeQuotes(s: string): string {
  return s.includes("''") ? s.replace(/''/g, "'") : s;
}

export interface ColumnSpec {
  typeName?: string;
  name: string;
  default: Text;
}

/**
 * ADD COLUMN's `'[type] name=default'` (`raw` is the string's content before unescaping) or the
 * `(name='default')` block. The default is everything after the first `=`, trimmed, up to a second
 * column's `, name=` (refused, `secondColumn`); in the block form a quoted default is unquoted. No `=`:
 * the default is ''.
 */
export function columnSpec(raw: string, offset: number, form: 'quoted' | 'block', at: Locate, fail: Fail): ColumnSpec {
  const eq = raw.indexOf('=');
  const head = eq < 0 ? raw : raw.slice(0, eq);
  const { typeName, name } = typeAndName(form === 'quoted' ? unescapeQuotes(head) : head, offset, fail);
  const spec: ColumnSpec = { name, default: { value: '', form: 'bare', pos: at(offset + raw.length) } };
  if (typeName !== undefined) spec.typeName = typeName;
  if (eq < 0) return spec;
  const after = raw.slice(eq + 1);
  const lead = /^\s*/.exec(after)![0].length;
  const value = after.slice(lead).trimEnd();
  const valueOffset = offset + eq + 1 + lead;
  // The quoted form's default is never itself quoted, so it is scanned as a bare one; on the raw
  // text, so that the caret stays on the comma whatever doubled quotes come before it.
  const quoted = form === 'block' && value.length >= 2 && value.startsWith("'") && value.endsWith("'");
  const second = secondColumn(value, quoted);
  if (second) {
    const escape = form === 'quoted' ? `; a default holding ', name=' is written (${name}='…')` : '';
    fail(
      `one column per ADD COLUMN; write two statements (a second column '${second.head}' starts after this comma)${escape}`,
      valueOffset + second.comma,
    );
  }
  if (form === 'quoted') {
    spec.default = { value: unescapeQuotes(value), form: 'quoted', pos: withWritten(at(valueOffset), value) };
    return spec;
  }
  spec.default = quoted
    ? {
        value: unescapeQuotes(value.slice(1, -1)),
        form: 'quoted',
        pos: withWritten(at(valueOffset + 1), value.slice(1, -1)),
      }
    : { value, form: 'bare', pos: at(valueOffset) };
  return spec;
}

/** `, [type] name =` (or `, [name] =`): what starts another column after a default. */
const NEXT_COLUMN = /^\s*,\s*((?:[^\s=',()]+(?:\([^)]*\))?\s+)?(?:\[[^\]]+\]|[^\s=',()[\]]+))\s*=/;

/**
 * A default runs to the end of its string or block (in the block form its quotes are not doubled, so
 * `@sql(IIF(x, 'a', 'b'))` reads as written). `(a='1', b='2')` or `'a=1, b=2'` would therefore be one
 * column `a` holding `1', b='2` or `1, b=2`: a comma outside parentheses that follows a block default's
 * closing quote (or, for any other default, any such comma) and is followed by `name=` starts a second
 * column, which the spec's shape does not have. Any other comma is the default's text (`'note=a, b'`).
 * Parentheses are counted over the whole text: a quote inside `@sql(…)` is never a default's end.
 */
function secondColumn(value: string, quoted: boolean): { comma: number; head: string } | undefined {
  let depth = 0;
  for (let i = quoted ? 1 : 0; i < value.length; i++) {
    const c = value[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && c === (quoted ? "'" : ',')) {
      const rest = value.slice(quoted ? i + 1 : i);
      const m = NEXT_COLUMN.exec(rest);
      if (m) return { comma: (quoted ? i + 1 : i) + rest.indexOf(','), head: m[1] };
    }
  }
  return undefined;
}

/**
 * APPLY SCHEMA's block: one column per line (several per line when separated by top-level commas),
 * `{ type } name { |description { |default } }` or `{ type } name = default`. A quoted default runs to
 * the last quote of its line, so `'@sql(CONVERT([id], 'System.Int32') * 2)'` keeps its inner quotes.
 * `--` after whitespace starts a comment; empty lines are skipped.
 */
export function schemaColumns(block: Text, at: Locate, fail: Fail): SchemaColumnSpec[] {
  const columns: SchemaColumnSpec[] = [];
  for (const { text, start } of linesOf(block.value)) {
    const lineOffset = block.pos.offset + start;
    const line = stripComment(text);
    let i = 0;
    while (i < line.length) {
      i += /^[\s,]*/.exec(line.slice(i))![0].length;
      if (i >= line.length) break;
      const stop = topLevelIndex(line, '|=,', i);
      const headEnd = stop < 0 ? line.length : stop;
      const column: SchemaColumnSpec = {
        pos: at(lineOffset + i),
        ...typeAndName(line.slice(i, headEnd), lineOffset + i, fail),
      };
      columns.push(column);
      if (stop < 0 || line[stop] === ',') {
        i = headEnd + 1;
        continue;
      }
      if (line[stop] === '|') {
        const parts = line.slice(stop + 1).split('|');
        const description = parts[0].trim();
        if (description) column.description = description;
        const defaultOffset = lineOffset + stop + 1 + parts[0].length + 1;
        if (parts.length > 1) column.default = pipeDefault(parts.slice(1).join('|'), defaultOffset, at);
      } else {
        column.default = defaultAfterEquals(line.slice(stop + 1), lineOffset + stop + 1, at, fail);
      }
      break;
    }
  }
  if (!columns.length) fail('APPLY SCHEMA needs at least one column', block.pos.offset);
  return columns;
}

function stripComment(line: string): string {
  const m = /(^|\s)--(?!>)/.exec(line);
  if (!m) return line;
  const quote = line.indexOf("'");
  // A `--` inside a quoted default is text, not a comment.
  if (quote >= 0 && quote < m.index && line.lastIndexOf("'") > m.index) return line;
  return line.slice(0, m.index);
}

/** A default's text at its place in the script: quoted (its `''` one quote each) or bare. */
function defaultText(value: string, offset: number, quoted: boolean, at: Locate): Text {
  if (!quoted) return { value, form: 'bare', pos: at(offset) };
  const inner = value.slice(1, -1);
  return { value: unescapeQuotes(inner), form: 'quoted', pos: withWritten(at(offset + 1), inner) };
}

/** `|description|default`: the default is the rest of the line, trimmed; quoted when it is in quotes. */
function pipeDefault(rest: string, offset: number, at: Locate): Text {
  const value = rest.trim();
  const quoted = value.length >= 2 && value.startsWith("'") && value.endsWith("'");
  return defaultText(value, offset + rest.indexOf(value), quoted, at);
}

function defaultAfterEquals(rest: string, offset: number, at: Locate, fail: Fail): Text {
  const value = rest.trim();
  const start = offset + rest.indexOf(value);
  if (!value.startsWith("'")) return defaultText(value.replace(/,$/, '').trimEnd(), start, false, at);
  const close = value.lastIndexOf("'");
  if (close === 0) fail("unterminated default: the closing quote (') is missing", offset + rest.indexOf("'"));
  const trailing = value.slice(close + 1).trim();
  if (trailing && trailing !== ',')
    fail(`unexpected '${trailing}' after the default`, offset + rest.lastIndexOf(trailing));
  return defaultText(value.slice(0, close + 1), start, true, at);
}

/** RETRY LINEAR|EXPONENTIAL (n,p): the retry count and the wait in seconds. */
export function retryPair(block: Text, fail: Fail): { count: number; seconds: number } {
  const m = /^\s*(\d+)\s*,\s*(\d+(?:\.\d+)?)\s*$/.exec(block.value);
  if (!m) fail(`expected (count, seconds) with two numbers but found '(${block.value})'`, block.pos.offset);
  return { count: Number(m[1]), seconds: Number(m[2]) };
}
