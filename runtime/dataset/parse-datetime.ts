/**
 * Reading datetime text. A datetime is a JS Date holding the UTC wall clock: text without an offset
 * is taken as UTC (so nothing depends on the machine's time zone or DST), text with `Z` or an
 * offset is converted to UTC. Accepted (docs/types.md):
 * - ISO 8601: `yyyy-MM-dd`, `yyyy-MM-ddTHH:mm[:ss[.fffffff]]` (T or a space), optional `Z`/`±HH:mm`/`±HHmm`/`±HH`;
 * - .NET invariant: `MM/dd/yyyy[ HH:mm[:ss[.fffffff]]][ AM|PM]` (one-digit month, day and hour too).
 * Sub-millisecond digits are dropped (a Date holds milliseconds).
 */

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?$/i;
const INVARIANT = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:\s*([AP]M))?)?$/i;

/** The instant `text` denotes, or undefined when it is not a valid date in an accepted form. */
export function parseDateTime(text: string): Date | undefined {
  const ms = parseDateTimeMs(text);
  return ms === undefined ? undefined : new Date(ms);
}

/** `parseDateTime` as milliseconds since the epoch (what a datetime column stores), without the Date. */
export function parseDateTimeMs(text: string): number | undefined {
  const canonical = parseCanonical(text);
  if (canonical !== undefined) return canonical ?? undefined;
  let m = ISO.exec(text);
  if (m) {
    const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
    const offset = z || !sign ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om ?? 0));
    if (Number(oh ?? 0) > 23 || Number(om ?? 0) > 59) return undefined;
    return build(+y, +mo, +d, Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), frac, offset);
  }
  m = INVARIANT.exec(text);
  if (m) {
    const [, mo, d, y, h, mi, s, frac, ampm] = m;
    let hour = Number(h ?? 0);
    if (ampm) {
      if (hour < 1 || hour > 12) return undefined;
      hour = (hour % 12) + (ampm.toUpperCase() === 'PM' ? 12 : 0);
    }
    return build(+y, +mo, +d, hour, Number(mi ?? 0), Number(s ?? 0), frac, 0);
  }
  return undefined;
}

const ZERO = 48;

function isDigit(code: number): boolean {
  return code >= ZERO && code <= ZERO + 9;
}

/** The number written by the `count` ASCII digits at `at`, or -1 when one of them is not a digit. */
function digits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const code = text.charCodeAt(i);
    // NaN past the end fails the test too.
    if (!isDigit(code)) return -1;
    n = n * 10 + code - ZERO;
  }
  return n;
}

/**
 * The common forms read by a scan at fixed positions, without the ISO regex's captures:
 * `yyyy-MM-dd`, `yyyy-MM-ddTHH:mm[:ss[.fff…]][Z]`. Returns undefined when `text` is not in one of
 * them (the regexes decide), null when it is but denotes no valid instant.
 */
function parseCanonical(text: string): number | null | undefined {
  const n = text.length;
  if (n < 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  if (year < 0 || month < 0 || day < 0) return undefined;
  if (n === 10) return buildMs(year, month, day, 0, 0, 0, 0, 0) ?? null;
  const t = text.charCodeAt(10);
  if (n < 16 || (t !== 84 && t !== 116 && t !== 32) || text.charCodeAt(13) !== 58) return undefined;
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  if (hour < 0 || minute < 0) return undefined;
  let second = 0;
  let ms = 0;
  let at = 16;
  if (at < n && text.charCodeAt(at) === 58) {
    second = digits(text, 17, 2);
    if (second < 0 || n < 19) return undefined;
    at = 19;
    const point = text.charCodeAt(at);
    if (at < n && (point === 46 || point === 44)) {
      const start = ++at;
      while (at < n && isDigit(text.charCodeAt(at))) at++;
      if (at === start) return undefined;
      // Milliseconds are the first three digits, sub-millisecond ones dropped.
      for (let i = 0; i < 3; i++) ms = ms * 10 + (start + i < at ? text.charCodeAt(start + i) - ZERO : 0);
    }
  }
  if (at < n) {
    const z = text.charCodeAt(at);
    if (at + 1 !== n || (z !== 90 && z !== 122)) return undefined;
  }
  return buildMs(year, month, day, hour, minute, second, ms, 0) ?? null;
}

function build(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  fraction: string | undefined,
  offsetMinutes: number,
): number | undefined {
  const ms = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  return buildMs(year, month, day, hour, minute, second, ms, offsetMinutes);
}

function buildMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offsetMinutes: number,
): number | undefined {
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > daysInMonth(year, month)) return undefined;
  // Date.UTC maps years 0..99 to 1900..1999; 400 Gregorian years later the calendar repeats exactly.
  const early = year < 100;
  const t = Date.UTC(early ? year + 400 : year, month - 1, day, hour, minute - offsetMinutes, second, ms);
  return early ? t - MS_IN_400_YEARS : t;
}

const MS_IN_400_YEARS = 146_097 * 86_400_000;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
