import type { Value } from '../dataset/types';
import { cultureOf, formatWall, wallOf } from './dates';
import { define } from './define';
import { DateParseError, localInstant, localWall, parseDateExact, type DateKind } from './dotnet-format/date';
import { FormatError } from './dotnet-format/number';
import { FunctionError, type CallContext, type FunctionDef } from './types';
import { flag, numeric, text } from './values';

const D = define.bind(null, 'date');

/** `1d`, `-2h`, `1y6m`: y years, m months, d days, h hours, n minutes, s seconds; a leading - negates. */
const SPAN = /^\s*([+-]?)\s*((?:\d+\s*[ymdhns]\s*)+)$/i;
const SPAN_PART = /(\d+)\s*([ymdhns])/gi;

const UNIT_MS: Record<string, number> = { d: 86400000, h: 3600000, n: 60000, s: 1000 };

/** Calendar arithmetic on a wall clock, as .NET's DateTime.Add*: months clamp to the month's last day. */
function addSpan(wall: Date, span: string): Date {
  const m = SPAN.exec(span);
  if (!m) throw new FunctionError(`'${span}' is not a span (a number and a unit y m d h n s, e.g. 1d, -2h, 30n)`);
  const sign = m[1] === '-' ? -1 : 1;
  let t = wall.getTime();
  for (const [, n, unitRaw] of m[2].matchAll(SPAN_PART)) {
    const unit = unitRaw.toLowerCase();
    const amount = sign * parseInt(n, 10);
    if (unit === 'y' || unit === 'm') t = addMonths(new Date(t), unit === 'y' ? amount * 12 : amount).getTime();
    else t += amount * UNIT_MS[unit];
  }
  return new Date(t);
}

function addMonths(d: Date, months: number): Date {
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const last = new Date(Date.UTC(2000, month + 1, 0)).getUTCDate();
  const lastOfMonth = month === 1 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 28 : last;
  const out = new Date(d.getTime());
  out.setUTCFullYear(year, month, Math.min(d.getUTCDate(), lastOfMonth));
  return out;
}

const fmtArg = (args: Value[], i: number): Value => (args.length > i ? args[i] : null);

function nowWall(utc: boolean): Date {
  const now = new Date();
  return utc ? now : localWall(now);
}

/** Epoch → a UTC wall clock; out-of-range values are an error rather than an Invalid Date. */
function fromEpoch(v: Value, msPerUnit: number): Date {
  const n = numeric(v, 'the epoch (a)');
  const d = new Date(n * msPerUnit);
  if (Number.isNaN(d.getTime())) throw new FunctionError(`${n} is out of the date range`);
  return d;
}

/** Epoch of a date: text with an offset is that instant; otherwise local time unless flagged UTC. */
function toEpochMs(args: Value[]): number {
  const v = args[0];
  const alreadyUtc = args.length > 1 && flag(args[1]);
  if (typeof v === 'string' && /(Z|[+-]\d{2}:?\d{2})\s*$/i.test(v.trim()) && /\d[T ]\d/.test(v))
    return wallOf(v, 'utc', 'the date (a)').getTime();
  const wall = wallOf(v, alreadyUtc ? 'utc' : 'local', 'the date (a)');
  return alreadyUtc ? wall.getTime() : localInstant(wall).getTime();
}

function parsedate(args: Value[], ctx: CallContext): string {
  const format = text(args[1]);
  if (format === '') throw new FunctionError('the input format (b) is empty');
  let parsed;
  try {
    parsed = parseDateExact(text(args[0]), format, cultureOf(ctx.scope.session));
  } catch (e) {
    if (e instanceof FormatError) throw new FunctionError(`the input format (b): ${e.message}`);
    if (e instanceof DateParseError) throw new FunctionError(e.message);
    throw e;
  }
  let wall = parsed.wall;
  let kind: DateKind = 'unspecified';
  if (parsed.offset !== undefined) {
    wall = localWall(new Date(wall.getTime() - parsed.offset * 60000));
    kind = 'local';
  }
  return formatWall(ctx.scope.session, wall, fmtArg(args, 2), kind);
}

export const dateFunctions: FunctionDef[] = [
  D(
    'dateadd',
    '#dateadd(date, span[, format])',
    [2, 3],
    'Adds a span (y m d h n s; a leading - subtracts: 1d, -2h, 30n, 1y) to a local date; returns it in format (default s).',
    '#dateadd(2009-06-15T13:45:30, 1d)',
    '2009-06-16T13:45:30',
    (args, ctx) =>
      formatWall(ctx.scope.session, addSpan(wallOf(args[0], 'local'), text(args[1])), fmtArg(args, 2), 'local'),
  ),
  D(
    'utcdateadd',
    '#utcdateadd(date, span[, format])',
    [2, 3],
    'As #dateadd on a UTC date.',
    "#utcdateadd(2009-01-31T00:00:00Z, 1m, 'yyyy-MM-dd')",
    '2009-02-28',
    (args, ctx) =>
      formatWall(ctx.scope.session, addSpan(wallOf(args[0], 'utc'), text(args[1])), fmtArg(args, 2), 'utc'),
  ),
  D('epoch', '#epoch()', 0, 'The current UTC Unix time in seconds.', '#epoch()', undefined, () =>
    Math.floor(Date.now() / 1000),
  ),
  D('epoch_ms', '#epoch_ms()', 0, 'The current UTC Unix time in milliseconds.', '#epoch_ms()', undefined, () =>
    Date.now(),
  ),
  D(
    'formatdate',
    '#formatdate(date, format)',
    2,
    'Formats a local date with a .NET date format (standard or custom).',
    "#formatdate(2009-06-15T13:45:30, 'dddd d MMMM yyyy, HH:mm')",
    'Monday 15 June 2009, 13:45',
    (args, ctx) => formatWall(ctx.scope.session, wallOf(args[0], 'local'), args[1], 'local'),
  ),
  D(
    'utcformatdate',
    '#utcformatdate(date, format)',
    2,
    'Formats a UTC date with a .NET date format; text with an offset is converted to UTC first.',
    '#utcformatdate(2009-06-15T13:45:30+02:00, o)',
    '2009-06-15T11:45:30.0000000Z',
    (args, ctx) => formatWall(ctx.scope.session, wallOf(args[0], 'utc'), args[1], 'utc'),
  ),
  D(
    ['fromepoch', 'fromepoch_sec'],
    '#fromepoch(a[, b])',
    [1, 2],
    'A Unix time in seconds as a UTC date/time in format b (default s).',
    '#fromepoch(1245073530)',
    '2009-06-15T13:45:30',
    (args, ctx) => formatWall(ctx.scope.session, fromEpoch(args[0], 1000), fmtArg(args, 1), 'utc'),
  ),
  D(
    'fromepoch_ms',
    '#fromepoch_ms(a[, b])',
    [1, 2],
    'A Unix time in milliseconds as a UTC date/time in format b (default s).',
    "#fromepoch_ms(1245073530123, 'HH:mm:ss.fff')",
    '13:45:30.123',
    (args, ctx) => formatWall(ctx.scope.session, fromEpoch(args[0], 1), fmtArg(args, 1), 'utc'),
  ),
  D(
    'now',
    '#now([format])',
    [0, 1],
    'The current date/time in the local time zone of the agent, in format (default s).',
    "#now('yyyy-MM-dd')",
    undefined,
    (args, ctx) => formatWall(ctx.scope.session, nowWall(false), fmtArg(args, 0), 'local'),
  ),
  D(
    'utcnow',
    '#utcnow([format])',
    [0, 1],
    'The current UTC date/time in format (default s); o gives ISO 8601 with Z.',
    '#utcnow(o)',
    undefined,
    (args, ctx) => formatWall(ctx.scope.session, nowWall(true), fmtArg(args, 0), 'utc'),
  ),
  D(
    'parsedate',
    '#parsedate(a, b[, c])',
    [2, 3],
    'Parses a with the .NET input format b (exactly), returns it in format c (default s). Text with an offset is converted to local time.',
    "#parsedate('15/06/2009 13:45', 'dd/MM/yyyy HH:mm')",
    '2009-06-15T13:45:00',
    parsedate,
  ),
  D(
    ['toepoch', 'toepoch_sec'],
    '#toepoch(a[, b])',
    [1, 2],
    'Unix time in seconds of date a, read as local time unless b is 1 or true (already UTC); an offset in a wins.',
    '#toepoch(2009-06-15T13:45:30Z)',
    '1245073530',
    (args) => Math.floor(toEpochMs(args) / 1000),
  ),
  D(
    'toepoch_ms',
    '#toepoch_ms(a[, b])',
    [1, 2],
    'As #toepoch, in milliseconds.',
    '#toepoch_ms(2009-06-15T13:45:30.123, 1)',
    '1245073530123',
    (args) => toEpochMs(args),
  ),
  D(
    'toiso8601',
    '#toiso8601(x)',
    1,
    'ISO 8601 (round-trip o format) of x read as local time, with the local offset.',
    '#toiso8601(#now())',
    undefined,
    (args, ctx) => formatWall(ctx.scope.session, wallOf(args[0], 'local'), 'o', 'local'),
  ),
  D(
    'utctoiso8601',
    '#utctoiso8601(x)',
    1,
    'ISO 8601 (round-trip o format) of x read as UTC, ending in Z.',
    '#utctoiso8601(2009-06-15 13:45:30)',
    '2009-06-15T13:45:30.0000000Z',
    (args, ctx) => formatWall(ctx.scope.session, wallOf(args[0], 'utc'), 'o', 'utc'),
  ),
  D(
    'torfc1123',
    '#torfc1123(x)',
    1,
    'RFC 1123 text of a local date/time (converted to GMT).',
    '#torfc1123(#now())',
    undefined,
    (args, ctx) => formatWall(ctx.scope.session, wallOf(args[0], 'local'), 'R', 'local'),
  ),
  D(
    'utctorfc1123',
    '#utctorfc1123(x)',
    1,
    'RFC 1123 text of a UTC date/time.',
    '#utctorfc1123(2009-06-15T13:45:30)',
    'Mon, 15 Jun 2009 13:45:30 GMT',
    (args, ctx) => formatWall(ctx.scope.session, wallOf(args[0], 'utc'), 'R', 'utc'),
  ),
];
