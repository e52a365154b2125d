/**
 * Culture data for .NET-style formatting. The invariant culture is .NET's own table; any other
 * culture (#setjsonsettings culture:fr-FR, or currentculture) is derived from the ICU data behind
 * Node's Intl, which can differ from .NET's tables in small details (documented in docs/functions.md).
 */
export interface Culture {
  name: string;
  decimal: string;
  group: string;
  negative: string;
  percent: string;
  currency: string;
  /** .NET CurrencyPositivePattern / CurrencyNegativePattern / PercentPositivePattern / PercentNegativePattern. */
  currencyPositive: number;
  currencyNegative: number;
  percentPositive: number;
  percentNegative: number;
  nan: string;
  positiveInfinity: string;
  negativeInfinity: string;
  monthNames: string[];
  monthGenitiveNames: string[];
  abbreviatedMonthNames: string[];
  dayNames: string[];
  abbreviatedDayNames: string[];
  am: string;
  pm: string;
  dateSeparator: string;
  timeSeparator: string;
  /** Standard date format letters → custom patterns (d D f F g G M t T Y). */
  patterns: Record<string, string>;
}

const INVARIANT_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const INVARIANT_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export const INVARIANT: Culture = Object.freeze({
  name: 'invariant',
  decimal: '.',
  group: ',',
  negative: '-',
  percent: '%',
  currency: '\u00a4',
  currencyPositive: 0,
  currencyNegative: 0,
  percentPositive: 0,
  percentNegative: 0,
  nan: 'NaN',
  positiveInfinity: 'Infinity',
  negativeInfinity: '-Infinity',
  monthNames: INVARIANT_MONTHS,
  monthGenitiveNames: INVARIANT_MONTHS,
  abbreviatedMonthNames: INVARIANT_MONTHS.map((m) => m.slice(0, 3)),
  dayNames: INVARIANT_DAYS,
  abbreviatedDayNames: INVARIANT_DAYS.map((d) => d.slice(0, 3)),
  am: 'AM',
  pm: 'PM',
  dateSeparator: '/',
  timeSeparator: ':',
  patterns: {
    d: 'MM/dd/yyyy',
    D: 'dddd, dd MMMM yyyy',
    t: 'HH:mm',
    T: 'HH:mm:ss',
    M: 'MMMM dd',
    Y: 'yyyy MMMM',
  },
});

const cultures = new Map<string, Culture>();

/** The culture named by #setjsonsettings (`invariantculture`, `currentculture`, or a name like fr-FR). */
export function cultureFor(name: string | undefined): Culture {
  if (!name) return INVARIANT;
  const key = name.trim().toLowerCase();
  if (key === '' || key === 'invariantculture' || key === 'invariant') return INVARIANT;
  let c = cultures.get(key);
  if (!c) {
    const locale = key === 'currentculture' ? Intl.DateTimeFormat().resolvedOptions().locale : name.trim();
    c = fromIntl(locale);
    cultures.set(key, c);
  }
  return c;
}

function fromIntl(locale: string): Culture {
  let supported: string[];
  try {
    supported = Intl.NumberFormat.supportedLocalesOf([locale]);
  } catch {
    supported = [];
  }
  if (supported.length === 0)
    throw new Error(`unknown culture '${locale}' (use invariantculture, currentculture or a name such as fr-FR)`);
  const numberParts = new Intl.NumberFormat(locale, { useGrouping: true }).formatToParts(-1234567.5);
  const part = (type: string, fallback: string) => numberParts.find((p) => p.type === type)?.value ?? fallback;
  const percentParts = new Intl.NumberFormat(locale, { style: 'percent' }).formatToParts(0.5);
  const percentSpaced = percentParts.some((p) => p.type === 'literal' && /\s/.test(p.value));
  const percentFirst =
    percentParts.findIndex((p) => p.type === 'percentSign') < percentParts.findIndex((p) => p.type === 'integer');
  const utc = (m: number, d: number) => new Date(Date.UTC(2009, m, d, 12));
  const fmt = (o: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...o });
  const months = Array.from({ length: 12 }, (_, m) => fmt({ month: 'long' }).format(utc(m, 1)));
  const genitive = Array.from(
    { length: 12 },
    (_, m) =>
      fmt({ month: 'long', day: 'numeric' })
        .formatToParts(utc(m, 1))
        .find((p) => p.type === 'month')!.value,
  );
  // 2009-02-01 is a Sunday.
  const days = Array.from({ length: 7 }, (_, d) => fmt({ weekday: 'long' }).format(utc(1, 1 + d)));
  const shortDays = Array.from({ length: 7 }, (_, d) => fmt({ weekday: 'short' }).format(utc(1, 1 + d)));
  const shortMonths = Array.from({ length: 12 }, (_, m) => fmt({ month: 'short' }).format(utc(m, 1)));
  const dayPeriods = (h: number) =>
    fmt({ hour: 'numeric', hour12: true })
      .formatToParts(new Date(Date.UTC(2009, 0, 1, h)))
      .find((p) => p.type === 'dayPeriod')?.value;
  const hour12 = fmt({ hour: 'numeric' }).resolvedOptions().hour12 ?? false;
  const patterns = {
    d: patternOf(locale, { year: 'numeric', month: '2-digit', day: '2-digit' }),
    D: patternOf(locale, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }),
    t: patternOf(locale, { hour: '2-digit', minute: '2-digit', hour12 }),
    T: patternOf(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12 }),
    M: patternOf(locale, { month: 'long', day: 'numeric' }),
    Y: patternOf(locale, { year: 'numeric', month: 'long' }),
  };
  const dateSep =
    fmt({ year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(utc(5, 15))
      .find((p) => p.type === 'literal')?.value ?? '/';
  return {
    name: locale,
    decimal: part('decimal', '.'),
    group: part('group', ','),
    negative: part('minusSign', '-'),
    percent: percentParts.find((p) => p.type === 'percentSign')?.value ?? '%',
    currency: '\u00a4',
    currencyPositive: 0,
    currencyNegative: 1,
    percentPositive: percentFirst ? 2 : percentSpaced ? 0 : 1,
    percentNegative: percentFirst ? 2 : percentSpaced ? 0 : 1,
    nan: 'NaN',
    positiveInfinity: '\u221e',
    negativeInfinity: '-\u221e',
    monthNames: months,
    monthGenitiveNames: genitive,
    abbreviatedMonthNames: shortMonths,
    dayNames: days,
    abbreviatedDayNames: shortDays,
    am: dayPeriods(9) ?? 'AM',
    pm: dayPeriods(15) ?? 'PM',
    dateSeparator: dateSep.trim() || dateSep,
    timeSeparator: ':',
    patterns,
  };
}

/** A .NET custom pattern equivalent to what Intl prints for these options, read from formatToParts. */
function patternOf(locale: string, options: Intl.DateTimeFormatOptions): string {
  const parts = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...options }).formatToParts(
    new Date(Date.UTC(2009, 5, 15, 13, 45, 30)),
  );
  let out = '';
  for (const p of parts) {
    switch (p.type) {
      case 'year':
        out += 'yyyy';
        break;
      case 'month':
        out += options.month === 'long' ? 'MMMM' : options.month === '2-digit' ? 'MM' : 'M';
        break;
      case 'day':
        out += options.day === '2-digit' ? 'dd' : 'd';
        break;
      case 'weekday':
        out += 'dddd';
        break;
      case 'hour':
        out += options.hour12 ? 'h' : 'HH';
        break;
      case 'minute':
        out += 'mm';
        break;
      case 'second':
        out += 'ss';
        break;
      case 'dayPeriod':
        out += 'tt';
        break;
      default:
        out += p.value.replace(/[\\'"]/g, (c) => `\\${c}`).replace(/[A-Za-z]+/g, (w) => `'${w}'`);
    }
  }
  return out;
}
