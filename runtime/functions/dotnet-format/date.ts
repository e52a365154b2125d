import { INVARIANT, type Culture } from './culture';
import { FormatCache } from './format-cache';
import { FormatError } from './number';

/**
 * .NET date/time formatting and exact parsing (reference.md B.2): standard formats (d D f F g G M o
 * R s t T u U Y) and custom patterns (d…dddd f…fffffff F…FFFFFFF g h hh H HH K m mm M…MMMM s ss t tt
 * y…yyyyy z zz zzz : / '…' "…" \c %c). A JS Date is an instant; it is shown either in the agent's
 * local time zone or in UTC, as the calling function says. Precision is the millisecond (the
 * fraction digits past the third are 0). Format strings are compiled once and cached.
 */
export interface DateParts {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  dow: number; // 0 = Sunday
  /** Minutes east of UTC, shown by z/K/o; undefined for an unspecified kind (K prints nothing). */
  offset: number | undefined;
  utc: boolean;
}

/**
 * How a wall clock relates to UTC, as .NET's DateTimeKind: `local` (the agent's time zone: z and K
 * show its offset at that time), `utc` (K shows Z) or `unspecified` (K shows nothing).
 */
export type DateKind = 'local' | 'utc' | 'unspecified';

/**
 * The agent's offset from UTC, in minutes, at a local wall clock (DST included). A wall clock a DST change
 * makes ambiguous (it happens twice) or skips (it never happens) reads as standard time, as .NET's
 * TimeZoneInfo.GetUtcOffset and DateTime.ToUniversalTime do: of the offsets either side of the change, the
 * smaller (in both hemispheres the standard offset is the one DST adds to). Every local date function
 * goes through here, so a wall clock has one instant in all of them.
 */
export function localOffsetAt(wall: Date): number {
  const t = wall.getTime();
  // Offsets a day either side: no zone changes its offset twice within two days.
  const before = -new Date(t - 86400000).getTimezoneOffset();
  const after = -new Date(t + 86400000).getTimezoneOffset();
  const fits = (offset: number): boolean => -new Date(t - offset * 60000).getTimezoneOffset() === offset;
  if (before === after || fits(before) !== fits(after)) return fits(before) ? before : after;
  return Math.min(before, after);
}

/** The instant of a local wall clock (held in a Date's UTC fields, as datetime cells are). */
export function localInstant(wall: Date): Date {
  return new Date(wall.getTime() - localOffsetAt(wall) * 60000);
}

/** The local wall clock of an instant, held in a Date's UTC fields. */
export function localWall(instant: Date): Date {
  return new Date(instant.getTime() - instant.getTimezoneOffset() * 60000);
}

function partsOf(wall: Date, kind: DateKind): DateParts {
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
    ms: wall.getUTCMilliseconds(),
    dow: wall.getUTCDay(),
    offset: kind === 'utc' ? 0 : kind === 'local' ? localOffsetAt(wall) : undefined,
    utc: kind === 'utc',
  };
}

type Piece = (p: DateParts, c: Culture) => string;

function pad(n: number, width: number): string {
  const s = String(n);
  return s.length >= width ? s : '0'.repeat(width - s.length) + s;
}

function offsetText(minutes: number, style: 'z' | 'zz' | 'zzz'): string {
  const sign = minutes < 0 ? '-' : '+';
  const a = Math.abs(minutes);
  const h = Math.floor(a / 60);
  if (style === 'z') return sign + h;
  if (style === 'zz') return sign + pad(h, 2);
  return `${sign}${pad(h, 2)}:${pad(a % 60, 2)}`;
}

/** Standard format letters that are fixed (culture-independent) patterns. */
const FIXED: Record<string, string> = {
  o: "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
  O: "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
  s: "yyyy'-'MM'-'dd'T'HH':'mm':'ss",
  r: "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'",
  R: "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'",
  u: "yyyy'-'MM'-'dd HH':'mm':'ss'Z'",
};

/** A standard format letter → { pattern, culture-independent?, shown in UTC? }. */
function expandStandard(
  letter: string,
  c: Culture,
): { pattern: string; invariant: boolean; toUtc: boolean } | undefined {
  if (FIXED[letter]) return { pattern: FIXED[letter], invariant: true, toUtc: 'rRu'.includes(letter) };
  const p = c.patterns;
  switch (letter) {
    case 'd':
    case 'D':
    case 't':
    case 'T':
      return { pattern: p[letter], invariant: false, toUtc: false };
    case 'f':
      return { pattern: `${p.D} ${p.t}`, invariant: false, toUtc: false };
    case 'F':
      return { pattern: `${p.D} ${p.T}`, invariant: false, toUtc: false };
    case 'g':
      return { pattern: `${p.d} ${p.t}`, invariant: false, toUtc: false };
    case 'G':
      return { pattern: `${p.d} ${p.T}`, invariant: false, toUtc: false };
    case 'U':
      return { pattern: `${p.D} ${p.T}`, invariant: false, toUtc: true };
    case 'm':
    case 'M':
      return { pattern: p.M, invariant: false, toUtc: false };
    case 'y':
    case 'Y':
      return { pattern: p.Y, invariant: false, toUtc: false };
  }
  return undefined;
}

function run(s: string, i: number): number {
  let n = 1;
  while (s[i + n] === s[i]) n++;
  return n;
}

/** A one-letter numeric field as is, a two-letter one padded to two digits (d dd, h hh, m mm…). */
function numeric(n: number, value: (p: DateParts) => number): Piece {
  return n === 1 ? (p) => String(value(p)) : (p) => pad(value(p), 2);
}

/** A custom pattern → pieces. */
function compileCustom(fmt: string): Piece[] {
  const out: Piece[] = [];
  const lit = (s: string) => out.push(() => s);
  const genitive = /(^|[^d])d{1,2}([^d]|$)/.test(fmt.replace(/'[^']*'|"[^"]*"/g, ''));
  for (let i = 0; i < fmt.length;) {
    const ch = fmt[i];
    const n = run(fmt, i);
    // A letter's case takes its whole run (dddd, HH…); the others say how far they reach.
    switch (ch) {
      case 'd':
        if (n <= 2) out.push(numeric(n, (p) => p.day));
        else if (n === 3) out.push((p, c) => c.abbreviatedDayNames[p.dow]);
        else out.push((p, c) => c.dayNames[p.dow]);
        break;
      case 'f':
      case 'F': {
        if (n > 7) throw new FormatError(`'${fmt}': at most 7 ${ch} fraction digits`);
        if (ch === 'f') out.push((p) => (pad(p.ms, 3) + '0000').slice(0, n));
        else {
          // .NET drops a '.' just before F digits when they are all zero.
          const dot = fmt[i - 1] === '.' && out.length > 0 ? out.pop() !== undefined : false;
          out.push((p) => {
            const digits = (pad(p.ms, 3) + '0000').slice(0, n).replace(/0+$/, '');
            return digits && dot ? `.${digits}` : digits;
          });
        }
        break;
      }
      case 'g':
        out.push(() => 'A.D.');
        break;
      case 'h':
        out.push(numeric(n, (p) => p.hour % 12 || 12));
        break;
      case 'H':
        out.push(numeric(n, (p) => p.hour));
        break;
      case 'K':
        out.push((p) => (p.offset === undefined ? '' : p.utc ? 'Z' : offsetText(p.offset, 'zzz')));
        i += 1;
        continue;
      case 'm':
        out.push(numeric(n, (p) => p.minute));
        break;
      case 'M':
        if (n <= 2) out.push(numeric(n, (p) => p.month));
        else if (n === 3) out.push((p, c) => c.abbreviatedMonthNames[p.month - 1]);
        else out.push(genitive ? (p, c) => c.monthGenitiveNames[p.month - 1] : (p, c) => c.monthNames[p.month - 1]);
        break;
      case 's':
        out.push(numeric(n, (p) => p.second));
        break;
      case 't':
        out.push(n === 1 ? (p, c) => (p.hour < 12 ? c.am : c.pm).slice(0, 1) : (p, c) => (p.hour < 12 ? c.am : c.pm));
        break;
      case 'y':
        out.push(n <= 2 ? numeric(n, (p) => p.year % 100) : (p) => pad(p.year, n));
        break;
      case 'z': {
        const style = n === 1 ? 'z' : n === 2 ? 'zz' : 'zzz';
        out.push((p) => offsetText(p.offset ?? 0, style));
        break;
      }
      case ':':
        out.push((_, c) => c.timeSeparator);
        i += 1;
        continue;
      case '/':
        out.push((_, c) => c.dateSeparator);
        i += 1;
        continue;
      case "'":
      case '"': {
        const end = fmt.indexOf(ch, i + 1);
        if (end < 0) throw new FormatError(`'${fmt}': unclosed ${ch}`);
        lit(fmt.slice(i + 1, end));
        i = end + 1;
        continue;
      }
      case '\\':
        if (i + 1 >= fmt.length) throw new FormatError(`'${fmt}': '\\' at the end`);
        lit(fmt[i + 1]);
        i += 2;
        continue;
      case '%':
        i += 1;
        continue;
      default:
        lit(ch);
        i += 1;
        continue;
    }
    i += n;
  }
  return out;
}

interface CompiledDate {
  pieces: Piece[];
  invariant: boolean;
  toUtc: boolean;
}

const dateFormats = new FormatCache<CompiledDate>();

function compileDate(format: string, c: Culture): CompiledDate {
  if (format.length > 1) return { pieces: compileCustom(format), invariant: false, toUtc: false };
  const std = expandStandard(format, c);
  if (!std)
    throw new FormatError(
      `'${format}' is not a standard date format (d D f F g G M o R s t T u U Y) nor a custom pattern`,
    );
  return { pieces: compileCustom(std.pattern), invariant: std.invariant, toUtc: std.toUtc };
}

/**
 * Formats a wall clock (a Date's UTC fields) of the given kind with a .NET date format ('' = 's',
 * reference C.2). R, u and U print UTC: a local wall clock is converted first, so the text is true.
 */
export function formatDate(wall: Date, format: string, kind: DateKind, culture: Culture = INVARIANT): string {
  if (Number.isNaN(wall.getTime())) throw new FormatError('invalid date');
  const f = format === '' ? 's' : format;
  const key = `${culture.name}\u0000${f}`;
  const compiled = dateFormats.get(key) ?? dateFormats.remember(key, compileDate(f, culture));
  const c = compiled.invariant ? INVARIANT : culture;
  const p =
    compiled.toUtc && kind === 'local'
      ? partsOf(localInstant(wall), 'utc')
      : partsOf(wall, compiled.toUtc ? 'utc' : kind);
  let s = '';
  for (const piece of compiled.pieces) s += piece(p, c);
  return s;
}

// ----------------------------------------------------------------------------- parsing

export class DateParseError extends Error {}

interface Parsed {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  /** Minutes east of UTC when the text carries a zone. */
  offset?: number;
}

/** A parsed date: the wall clock as written (in a Date's UTC fields) and the offset when the text has one. */
export interface ParsedDate {
  wall: Date;
  offset?: number;
}

function toParsed(p: Parsed): ParsedDate {
  if (p.month < 1 || p.month > 12 || p.day < 1 || p.hour > 23 || p.minute > 59 || p.second > 59) {
    throw new DateParseError('a date part is out of range');
  }
  const wall = new Date(0);
  wall.setUTCFullYear(p.year, p.month - 1, p.day);
  wall.setUTCHours(p.hour, p.minute, p.second, p.ms);
  if (wall.getUTCDate() !== p.day) throw new DateParseError(`${p.year}-${p.month}-${p.day} is not a day`);
  return { wall, offset: p.offset };
}

const ISO =
  /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$/i;
const US = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(AM|PM)?)?\s*$/i;
const MS_JSON = /^\s*\/Date\((-?\d+)([+-]\d{4})?\)\/\s*$/;

function zone(z: string | undefined): number | undefined {
  if (!z) return undefined;
  if (z.toUpperCase() === 'Z') return 0;
  const sign = z[0] === '-' ? -1 : 1;
  const digits = z.slice(1).replace(':', '');
  return sign * (parseInt(digits.slice(0, 2), 10) * 60 + (digits.length > 2 ? parseInt(digits.slice(2), 10) : 0));
}

function fraction(f: string | undefined): number {
  return f ? Math.floor(parseInt((f + '00').slice(0, 3), 10)) : 0;
}

/**
 * A date given as text to a date function: ISO 8601 (with or without T, fraction, zone), the
 * invariant MM/dd/yyyy [HH:mm[:ss]] [AM|PM], Microsoft JSON /Date(ms)/, or RFC 1123.
 */
export function parseDateLoose(text: string): ParsedDate {
  let m = ISO.exec(text);
  if (m) {
    return toParsed({
      year: +m[1],
      month: +m[2],
      day: +m[3],
      hour: +(m[4] ?? 0),
      minute: +(m[5] ?? 0),
      second: +(m[6] ?? 0),
      ms: fraction(m[7]),
      offset: zone(m[8]),
    });
  }
  m = US.exec(text);
  if (m) {
    let hour = +(m[4] ?? 0);
    if (m[8]) hour = (hour % 12) + (m[8].toUpperCase() === 'PM' ? 12 : 0);
    return toParsed({
      year: +m[3],
      month: +m[1],
      day: +m[2],
      hour,
      minute: +(m[5] ?? 0),
      second: +(m[6] ?? 0),
      ms: fraction(m[7]),
    });
  }
  m = MS_JSON.exec(text);
  if (m) return { wall: new Date(parseInt(m[1], 10)), offset: 0 };
  if (/^\s*[A-Za-z]{3},\s+\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{2}:\d{2}:\d{2}\s+(GMT|UTC|Z)\s*$/.test(text)) {
    const t = Date.parse(text);
    if (!Number.isNaN(t)) return { wall: new Date(t), offset: 0 };
  }
  throw new DateParseError(
    `'${text}' is not a date (expected ISO 8601 such as 2009-06-15T13:45:30, MM/dd/yyyy, or RFC 1123)`,
  );
}

// Exact parsing: a format compiled to a regular expression with one setter per capture group.
type Setter = (p: Parsed, s: string, c: Culture) => void;
interface CompiledParser {
  re: RegExp;
  setters: Setter[];
}

const parsers = new FormatCache<CompiledParser>();

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function nameIndex(names: string[], s: string): number {
  const i = names.findIndex((n) => n.toLowerCase() === s.toLowerCase());
  if (i < 0) throw new DateParseError(`unknown name '${s}'`);
  return i;
}

function compileParser(format: string, c: Culture): CompiledParser {
  let pattern = format;
  if (format.length === 1) {
    const std = expandStandard(format, c);
    if (!std) throw new FormatError(`'${format}' is not a standard date format`);
    pattern = std.pattern;
  }
  let re = '';
  const setters: Setter[] = [];
  const group = (expr: string, set: Setter) => {
    re += `(${expr})`;
    setters.push(set);
  };
  const names = (list: string[]) => list.map(escapeRe).join('|');
  let pm: boolean | undefined;
  for (let i = 0; i < pattern.length;) {
    const ch = pattern[i];
    const n = run(pattern, i);
    // A numeric field: one letter reads one or two digits, two letters exactly two.
    const digits = n === 1 ? '\\d{1,2}' : '\\d{2}';
    switch (ch) {
      case 'd':
        if (n <= 2) group(digits, (p, s) => (p.day = +s));
        else re += `(?:${names(n === 3 ? c.abbreviatedDayNames : c.dayNames)})`;
        break;
      case 'M':
        if (n <= 2) group(digits, (p, s) => (p.month = +s));
        else if (n === 3)
          group(names(c.abbreviatedMonthNames), (p, s, cc) => (p.month = nameIndex(cc.abbreviatedMonthNames, s) + 1));
        else
          group(
            names([...c.monthNames, ...c.monthGenitiveNames]),
            (p, s, cc) => (p.month = (nameIndex([...cc.monthNames, ...cc.monthGenitiveNames], s) % 12) + 1),
          );
        break;
      case 'y':
        if (n <= 2) group(digits, (p, s) => (p.year = 2000 + +s - (+s > 49 ? 100 : 0)));
        else group(`\\d{${n === 3 ? '3,4' : n}}`, (p, s) => (p.year = +s));
        break;
      case 'H':
        group(digits, (p, s) => (p.hour = +s));
        break;
      case 'h':
        group(digits, (p, s) => (p.hour = +s % 12));
        break;
      case 'm':
        group(digits, (p, s) => (p.minute = +s));
        break;
      case 's':
        group(digits, (p, s) => (p.second = +s));
        break;
      case 'f':
        group(`\\d{${n}}`, (p, s) => (p.ms = fraction(s)));
        break;
      case 'F':
        group(`\\d{0,${n}}`, (p, s) => (p.ms = fraction(s)));
        break;
      case 't':
        group(n === 1 ? `[${escapeRe(c.am[0] + c.pm[0])}]` : `${escapeRe(c.am)}|${escapeRe(c.pm)}`, (_p, s, cc) => {
          pm = s.toLowerCase().startsWith(cc.pm.toLowerCase().slice(0, 1));
        });
        break;
      case 'z':
        group(n === 1 ? '[+-]\\d{1,2}' : n === 2 ? '[+-]\\d{2}' : '[+-]\\d{2}:\\d{2}', (p, s) => {
          const sign = s[0] === '-' ? -1 : 1;
          const [h, m] = s.slice(1).split(':');
          p.offset = sign * (+h * 60 + (m ? +m : 0));
        });
        break;
      case 'K':
        for (let k = 0; k < n; k++) {
          group('Z|[+-]\\d{2}:\\d{2}|', (p, s) => {
            if (s) p.offset = zone(s);
          });
        }
        break;
      case 'g':
        re += '(?:A\\.D\\.|AD)';
        break;
      case ':':
        re += escapeRe(c.timeSeparator.repeat(n));
        break;
      case '/':
        re += escapeRe(c.dateSeparator.repeat(n));
        break;
      case "'":
      case '"': {
        const end = pattern.indexOf(ch, i + 1);
        if (end < 0) throw new FormatError(`'${format}': unclosed ${ch}`);
        re += escapeRe(pattern.slice(i + 1, end));
        i = end + 1;
        continue;
      }
      case '\\':
        re += escapeRe(pattern[i + 1] ?? '');
        i += 2;
        continue;
      case '%':
        i += 1;
        continue;
      default:
        re += ch === ' ' ? '\\s+' : escapeRe(ch.repeat(n));
    }
    i += n;
  }
  const ampm: Setter = (p) => {
    if (pm !== undefined) p.hour = (p.hour % 12) + (pm ? 12 : 0);
    pm = undefined;
  };
  setters.push(ampm);
  return { re: new RegExp(`^\\s*${re}\\s*$`, 'i'), setters };
}

/** #parsedate: the text must match the .NET format exactly (culture names, literals, widths). */
export function parseDateExact(text: string, format: string, culture: Culture = INVARIANT): ParsedDate {
  const key = `${culture.name}\u0000${format}`;
  const parser = parsers.get(key) ?? parsers.remember(key, compileParser(format, culture));
  const m = parser.re.exec(text);
  if (!m) throw new DateParseError(`'${text}' does not match the format '${format}'`);
  const p: Parsed = { year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0, ms: 0 };
  for (let g = 0; g < parser.setters.length - 1; g++) parser.setters[g](p, m[g + 1], culture);
  parser.setters[parser.setters.length - 1](p, '', culture);
  if (format === 'u' || format === 'r' || format === 'R') p.offset = 0;
  return toParsed(p);
}
