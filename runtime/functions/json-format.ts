import type { SessionEnv } from '../scope';
import { cultureOf } from './dates';
import { cultureFor } from './dotnet-format/culture';
import {
  formatDate,
  localInstant,
  localOffsetAt,
  localWall,
  parseDateLoose,
  type DateKind,
} from './dotnet-format/date';
import { FunctionError } from './types';

/**
 * #setjsonsettings / #jsonformat: a JSON text re-written with Json.NET-style settings (spec 4.4).
 * The reader keeps number literals as written, so floatparsehandling:decimal and long integers
 * lose no digits.
 */
export const JSON_SETTINGS: Record<string, string[] | 'any'> = {
  nullvaluehandling: ['ignore', 'include'],
  culture: 'any',
  dateformatstring: 'any',
  dateformathandling: ['isodateformat', 'microsoftdateformat'],
  dateparsehandling: ['datetime', 'datetimeoffset', 'none'],
  datetimezonehandling: ['local', 'roundtripkind', 'utc', 'unspecified'],
  floatparsehandling: ['double', 'decimal'],
  formatting: ['none', 'indented'],
  stringescapehandling: ['default', 'escapehtml', 'escapenonascii'],
};

/** Records `key:value` pairs (several per argument, comma-separated) after checking them. */
export function setJsonSettings(pairs: string[], env: SessionEnv): void {
  const parsed: [string, string][] = [];
  for (const pair of pairs.flatMap((p) => p.split(','))) {
    if (pair.trim() === '') continue;
    const colon = pair.indexOf(':');
    if (colon < 0)
      throw new FunctionError(`'${pair.trim()}' is not key:value (keys: ${Object.keys(JSON_SETTINGS).join(', ')})`);
    const key = pair.slice(0, colon).trim().toLowerCase();
    const value = pair.slice(colon + 1).trim();
    // Own keys only: `constructor` or `__proto__` would find Object's members.
    const allowed = Object.hasOwn(JSON_SETTINGS, key) ? JSON_SETTINGS[key] : undefined;
    if (!allowed) throw new FunctionError(`unknown setting '${key}' (keys: ${Object.keys(JSON_SETTINGS).join(', ')})`);
    if (allowed !== 'any' && !allowed.includes(value.toLowerCase()))
      throw new FunctionError(`${key} must be one of ${allowed.join(', ')}, got '${value}'`);
    // A culture is checked before anything is stored: a bad one kept would fail every later format.
    if (key === 'culture') checkCulture(value);
    parsed.push([key, allowed === 'any' ? value : value.toLowerCase()]);
  }
  for (const [k, v] of parsed) env.jsonSettings.set(k, v);
}

/** #setjsonsettings floatparsehandling:decimal: readers type fractional JSON numbers as decimals. */
export function floatsAsDecimal(session: SessionEnv): boolean {
  return session.jsonSettings.get('floatparsehandling') === 'decimal';
}

function checkCulture(name: string): void {
  try {
    cultureFor(name);
  } catch (e) {
    throw new FunctionError((e as Error).message);
  }
}

// ------------------------------------------------------------------------------ reading

class JsonNumber {
  constructor(readonly literal: string) {}
}
type Json = null | boolean | string | JsonNumber | Json[] | { [k: string]: Json };

class Reader {
  i = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new FunctionError(`not valid JSON: ${what} at character ${this.i + 1}`);
  }

  ws(): void {
    while (this.i < this.s.length && ' \t\r\n'.includes(this.s[this.i])) this.i++;
  }

  value(): Json {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (m && m[0]) {
      this.i += m[0].length;
      return new JsonNumber(m[0]);
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    return this.fail(c === undefined ? 'unexpected end' : `unexpected '${c}'`);
  }

  string(): string {
    const start = this.i;
    this.i++;
    while (this.i < this.s.length && this.s[this.i] !== '"') this.i += this.s[this.i] === '\\' ? 2 : 1;
    if (this.i >= this.s.length) this.fail('unclosed string');
    this.i++;
    return JSON.parse(this.s.slice(start, this.i)) as string;
  }

  array(): Json[] {
    this.i++;
    const out: Json[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }

  object(): { [k: string]: Json } {
    this.i++;
    // Without a prototype, a "__proto__" key is data, as JSON.parse makes it, not the object's prototype.
    const out = Object.create(null) as { [k: string]: Json };
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('expected a property name');
      const key = this.string();
      this.ws();
      if (this.s[this.i++] !== ':') this.fail("expected ':'");
      out[key] = this.value();
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }
}

function readJson(text: string): Json {
  const r = new Reader(text);
  const v = r.value();
  r.ws();
  if (r.i < text.length) r.fail('unexpected text after the value');
  return v;
}

// ------------------------------------------------------------------------------ writing

interface Settings {
  ignoreNulls: boolean;
  indent: string;
  escape: 'default' | 'escapehtml' | 'escapenonascii';
  parseDates: boolean;
  keepOffset: boolean;
  microsoft: boolean;
  dateFormat?: string;
  zone: 'local' | 'roundtripkind' | 'utc' | 'unspecified';
  decimal: boolean;
}

function settingsOf(env: SessionEnv): Settings {
  const s = env.jsonSettings;
  const parse = s.get('dateparsehandling') ?? 'datetime';
  return {
    ignoreNulls: s.get('nullvaluehandling') === 'ignore',
    indent: s.get('formatting') === 'indented' ? '  ' : '',
    escape: (s.get('stringescapehandling') ?? 'default') as Settings['escape'],
    parseDates: parse !== 'none',
    keepOffset: parse === 'datetimeoffset',
    microsoft: s.get('dateformathandling') === 'microsoftdateformat',
    dateFormat: s.get('dateformatstring'),
    zone: (s.get('datetimezonehandling') ?? 'roundtripkind') as Settings['zone'],
    decimal: s.get('floatparsehandling') === 'decimal',
  };
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};
const hex4 = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;

/** A JSON string literal with Json.NET's StringEscapeHandling. */
function quote(s: string, settings: Settings): string {
  const html = settings.escape === 'escapehtml';
  const ascii = settings.escape === 'escapenonascii';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    if (html && '<>&\'"'.includes(ch)) out += hex4(code);
    else if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else if (code < 0x20 || (ascii && code > 0x7e)) out += hex4(code);
    else out += ch;
  }
  return out + '"';
}

/** Json.NET reads ISO 8601 date strings as dates when DateParseHandling is DateTime/DateTimeOffset. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * A date string re-written as Json.NET would: Z is UTC, another offset becomes local time (or is kept
 * with datetimeoffset), no offset is unspecified; DateTimeZoneHandling then re-labels or converts.
 */
function writeDate(s: string, settings: Settings, env: SessionEnv): string | undefined {
  if (!ISO_DATE.test(s)) return undefined;
  let parsed;
  try {
    parsed = parseDateLoose(s);
  } catch {
    return undefined;
  }
  let wall = parsed.wall;
  let kind: DateKind | 'offset' = 'unspecified';
  if (parsed.offset !== undefined) {
    const instant = new Date(wall.getTime() - parsed.offset * 60000);
    if (/Z$/i.test(s)) [wall, kind] = [instant, 'utc'];
    else if (settings.keepOffset) kind = 'offset';
    else [wall, kind] = [localWall(instant), 'local'];
  }
  if (kind !== 'offset') {
    if (settings.zone === 'utc') [wall, kind] = [kind === 'local' ? localInstant(wall) : wall, 'utc'];
    else if (settings.zone === 'local') [wall, kind] = [kind === 'utc' ? localWall(wall) : wall, 'local'];
    else if (settings.zone === 'unspecified') kind = 'unspecified';
  }
  const offset = kind === 'offset' ? parsed.offset! : kind === 'utc' ? 0 : localOffsetAt(wall);
  if (settings.microsoft) {
    const ms = wall.getTime() - offset * 60000;
    return `"\\/Date(${ms}${kind === 'utc' ? '' : offsetText(offset).replace(':', '')})\\/"`;
  }
  const format = settings.dateFormat ?? "yyyy'-'MM'-'dd'T'HH':'mm':'ss.FFFFFFFK";
  const culture = cultureOf(env);
  if (kind === 'offset')
    return quote(formatDate(wall, format.replace(/K/g, `'${offsetText(offset)}'`), 'unspecified', culture), settings);
  return quote(formatDate(wall, format, kind, culture), settings);
}

function offsetText(minutes: number): string {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

function numberText(n: JsonNumber, settings: Settings): string {
  if (settings.decimal || /^-?\d+$/.test(n.literal)) return n.literal;
  const v = Number(n.literal);
  const s = String(v);
  // A literal beyond a double reads as ±Infinity; Json.NET's default FloatFormatHandling.String quotes it.
  if (!Number.isFinite(v)) return `"${s}"`;
  // Json.NET writes a double with a fraction part (1.0, not 1).
  return Number.isInteger(v) && !/e/i.test(s) ? `${s}.0` : s;
}

function write(v: Json, settings: Settings, env: SessionEnv, depth: number): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof JsonNumber) return numberText(v, settings);
  if (typeof v === 'string') return (settings.parseDates && writeDate(v, settings, env)) || quote(v, settings);
  const ind = settings.indent;
  const nl = ind ? '\n' : '';
  const inner = ind.repeat(depth + 1);
  const outer = ind.repeat(depth);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[${nl}${v.map((x) => inner + write(x, settings, env, depth + 1)).join(`,${nl}`)}${nl}${outer}]`;
  }
  const entries = Object.entries(v).filter(([, x]) => !(settings.ignoreNulls && x === null));
  if (entries.length === 0) return '{}';
  const sep = ind ? ': ' : ':';
  return `{${nl}${entries.map(([k, x]) => inner + quote(k, settings) + sep + write(x, settings, env, depth + 1)).join(`,${nl}`)}${nl}${outer}}`;
}

/** #jsonformat: parses a JSON text and writes it with the session's #setjsonsettings. */
export function jsonFormat(text: string, env: SessionEnv): string {
  return write(readJson(text), settingsOf(env), env, 0);
}
