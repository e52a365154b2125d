import Decimal from 'decimal.js';
import { formatValue } from '../dataset/format-value';
import type { ColumnType, Value } from '../dataset/types';
import { percentEncode } from '../util/percent';
import { xmlEscape } from '../writers';
import type { Part } from './parse';

/**
 * How a `{{field}}` is written inside a batch operator's row template, so the document a batch makes
 * stays valid whatever the data holds (spec 4.3; docs/functions.md):
 * - json (@concatjson, @concatjsonarr): a bare field is a JSON value — a string quoted and escaped, a
 *   number bare, null as null, true/false; inside a JSON string ("…{{f}}…") only the escaped content.
 * - xml (@concatxml): the text with & < > " ' escaped; null as nothing.
 * - sql (@sql, @sql_union, @sql_unionall, @sql_concat): a bare field is a SQL literal — text quoted with
 *   quotes doubled, numbers bare, NULL, booleans 1/0; inside a '…' literal the text with quotes doubled.
 * - url (the target of SELECT/APPLY HTTP and PUSH INTO HTTP): a field after the URL's head is one
 *   component, percent-encoded (urlComponent); in the head it is "inside" nothing and is taken as written.
 */
export type FieldStyle = 'json' | 'xml' | 'sql' | 'url';

export const OPERATOR_STYLE: Record<string, FieldStyle> = {
  concatjson: 'json',
  concatjsonarr: 'json',
  concatxml: 'xml',
  sql: 'sql',
  sql_union: 'sql',
  sql_unionall: 'sql',
  sql_concat: 'sql',
};

/**
 * Per part of a template: does it sit where the style writes a field — inside a string literal of the
 * json/sql language, after the head of a URL?
 */
export function insideStrings(parts: readonly Part[], style: FieldStyle): boolean[] {
  if (style === 'url') return afterUrlHead(parts);
  let inside = false;
  return parts.map((p) => {
    const here = inside;
    if (p.kind === 'text' && style !== 'xml') inside = toggles(p.text, style === 'json' ? '"' : "'", inside);
    return here;
  });
}

/** Whether the text leaves a string literal open, given whether it started inside one. */
function toggles(text: string, quote: string, inside: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    // JSON escapes with a backslash inside strings; SQL doubles the quote, which toggles twice.
    if (c === '\\' && quote === '"' && inside) i++;
    else if (c === quote) inside = !inside;
  }
  return inside;
}

/**
 * A URL's head is what comes before the first `/`, `?` or `#` written in the template after its
 * `scheme://`: a field there is the whole URL, its base (`{{@webhookurl}}`, `{{@baseurl}}/items`) or
 * its host, so it is taken as written. After it, a field is one path segment, query name or value.
 */
function afterUrlHead(parts: readonly Part[]): boolean[] {
  let head = true;
  return parts.map((p) => {
    const after = !head;
    if (head && p.kind === 'text') {
      const scheme = /^[^/?#]*:\/\//.exec(p.text)?.[0].length ?? 0;
      head = !/[/?#]/.test(p.text.slice(scheme));
    }
    return after;
  });
}

/** The writer of one field's values in `style`, inside a string literal or not. */
export function styledField(style: FieldStyle, inString: boolean, type: ColumnType): (v: Value) => string {
  const text = (v: Value) => (v === null ? '' : formatValue(v, type));
  switch (style) {
    case 'xml':
      return (v) => xmlText(text(v));
    case 'json':
      if (inString) return (v) => JSON.stringify(text(v)).slice(1, -1);
      return (v) => {
        // Text and finite numbers first: they are most fields, and need no Decimal check.
        if (typeof v === 'string') return jsonString(v);
        if (typeof v === 'number' && Number.isFinite(v)) return formatValue(v, type);
        if (v === null) return 'null';
        if (typeof v === 'boolean') return v ? 'true' : 'false';
        if (isNumeric(v)) return formatValue(v, type);
        return JSON.stringify(text(v));
      };
    case 'sql':
      if (inString) return (v) => text(v).replace(/'/g, "''");
      return (v) => {
        if (v === null) return 'NULL';
        if (typeof v === 'boolean') return v ? '1' : '0';
        if (isNumeric(v)) return formatValue(v, type);
        return `'${text(v).replace(/'/g, "''")}'`;
      };
    case 'url':
      return (v) => urlComponent(text(v));
  }
}

/** RFC 3986's unreserved characters: the only ones a component keeps as they are. */
const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;

/**
 * A value as one URL component: every character but the unreserved ones percent-encoded as UTF-8, so
 * `/ ? # & = +` cannot change the request's shape. A valid `%XX` already there stays as it is (the
 * rule of Python requests' requote_uri): an API's encoded cursor (`abc%3D%3D`) passes unchanged.
 * A value `.` or `..` is `%2E` or `%2E%2E`, which the request sends as written (http/build.ts):
 * as a path segment it would otherwise go a level up (`/items/..` is `/`).
 */
export function urlComponent(s: string): string {
  if (s === '.' || s === '..') return s.replace(/\./g, '%2E');
  if (UNRESERVED.test(s)) return s;
  return s
    .split(/(%[0-9A-Fa-f]{2})/)
    .map((piece, i) => (i % 2 === 1 ? piece : percentEncode(piece)))
    .join('');
}

/** What JSON.stringify escapes in a string: quotes, backslashes, control characters and surrogates (lone ones). */
// eslint-disable-next-line no-control-regex -- the control characters JSON escapes are what this finds
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify of a string, without its cost for the many strings that need no escape. */
function jsonString(s: string): string {
  return JSON_ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function isNumeric(v: Value): boolean {
  return (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'bigint' || Decimal.isDecimal(v);
}

/** Element content and attribute values alike: a field may sit in either. */
function xmlText(s: string): string {
  return xmlEscape(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}
