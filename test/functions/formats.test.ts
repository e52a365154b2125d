import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import Decimal from 'decimal.js';
import { formatNumber } from '../../runtime/functions/dotnet-format/number';
import { formatDate, parseDateExact } from '../../runtime/functions/dotnet-format/date';
import { cultureFor } from '../../runtime/functions/dotnet-format/culture';
import { ev, newState, tempDir } from './helpers';

// 2009-06-15T13:45:30.123 as a wall clock (a Date's UTC fields), the reference's sample date.
const sample = new Date(Date.UTC(2009, 5, 15, 13, 45, 30, 123));

test('standard date formats (invariant culture, reference B.2)', () => {
  const cases: [string, string][] = [
    ['d', '06/15/2009'],
    ['D', 'Monday, 15 June 2009'],
    ['f', 'Monday, 15 June 2009 13:45'],
    ['F', 'Monday, 15 June 2009 13:45:30'],
    ['g', '06/15/2009 13:45'],
    ['G', '06/15/2009 13:45:30'],
    ['M', 'June 15'],
    ['o', '2009-06-15T13:45:30.1230000Z'],
    ['R', 'Mon, 15 Jun 2009 13:45:30 GMT'],
    ['s', '2009-06-15T13:45:30'],
    ['t', '13:45'],
    ['T', '13:45:30'],
    ['u', '2009-06-15 13:45:30Z'],
    ['U', 'Monday, 15 June 2009 13:45:30'],
    ['Y', '2009 June'],
    ['', '2009-06-15T13:45:30'],
  ];
  for (const [f, want] of cases) assert.equal(formatDate(sample, f, 'utc'), want, `format ${f}`);
});

test('custom date formats', () => {
  const cases: [string, string][] = [
    ['yyyy-MM-dd HH:mm:ss.fff', '2009-06-15 13:45:30.123'],
    ['d/M/yy h:m:s tt', '15/6/09 1:45:30 PM'],
    ['dddd dd MMMM yyyy', 'Monday 15 June 2009'],
    ['ddd MMM', 'Mon Jun'],
    ['FFFFFFF|fffffff|ff|F', '123|1230000|12|1'],
    ["'literal' \\y %d", 'literal y 15'],
    ['hh t', '01 P'],
    ['yyyyy g', '02009 A.D.'],
    ['zzz K', '+00:00 Z'],
    ['%K', 'Z'],
  ];
  for (const [f, want] of cases) assert.equal(formatDate(sample, f, 'utc'), want, `format ${f}`);
  assert.equal(formatDate(sample, '%K', 'unspecified'), '');
  assert.throws(() => formatDate(sample, 'Q', 'utc'), /not a standard date format/);
  assert.throws(() => ev("#formatdate(2009-06-15, 'yyyy ''open')"), /#formatdate: bad date format/);
});

test('numeric standard formats', () => {
  const cases: [number | bigint | Decimal, string, string][] = [
    [1234.5678, 'N2', '1,234.57'],
    [1234.5678, 'N0', '1,235'],
    [-1234.5678, 'N1', '-1,234.6'],
    [1234.5678, 'F3', '1234.568'],
    [1234.5678, 'F', '1234.57'],
    [1.005, 'F2', '1.00'],
    [0.125, 'F2', '0.13'],
    [2.5, 'F0', '3'],
    [-2.5, 'F0', '-3'],
    [1234.5678, 'C', '¤1,234.57'],
    [-1234.5678, 'C', '(¤1,234.57)'],
    [0.1234, 'P', '12.34 %'],
    [-0.1234, 'P1', '-12.3 %'],
    [1234.5678, 'E', '1.234568E+003'],
    [1234.5678, 'e2', '1.23e+003'],
    [0.000123, 'E1', '1.2E-004'],
    [1234.5678, 'G', '1234.5678'],
    [1234.5678, 'G3', '1.23E+03'],
    [0.0001, 'G', '0.0001'],
    [0.00001, 'G', '1E-05'],
    [1e15, 'G', '1E+15'],
    [123456789012345, 'G', '123456789012345'],
    [0.1 + 0.2, 'R', '0.30000000000000004'],
    [42, 'D5', '00042'],
    [-42, 'D5', '-00042'],
    [255, 'X', 'FF'],
    [255, 'x4', '00ff'],
    [-1, 'X', 'FFFFFFFF'],
    [9007199254740993n, 'N0', '9,007,199,254,740,993'],
    [9007199254740993n, 'D', '9007199254740993'],
    [new Decimal('1234567890.125'), 'N2', '1,234,567,890.13'],
    [new Decimal('2.5'), 'F0', '3'],
    [1e21, 'N0', '1,000,000,000,000,000,000,000'],
  ];
  for (const [x, f, want] of cases) assert.equal(formatNumber(x, f), want, `${String(x)} ${f}`);
  assert.throws(() => formatNumber(1.5, 'D'), /format D is for integers/);
  assert.throws(() => formatNumber(1.5, 'Q'), /not a numeric format/);
});

test('numeric custom formats', () => {
  const cases: [number, string, string][] = [
    [1234.5678, '#,##0.00', '1,234.57'],
    [1234.5678, '0.0', '1234.6'],
    [0.5, '#.##', '.5'],
    [0, '#.##', ''],
    [5, '000', '005'],
    [1.005, '0.00', '1.01'],
    [5551234567, '(###) ###-####', '(555) 123-4567'],
    [1234567, '#,##0,', '1,235'],
    [0.256, '0.0%', '25.6%'],
    [-12.3, '0.0;(0.0)', '(12.3)'],
    [0, '0.0;(0.0);zero', 'zero'],
    [12345, '0.00E+00', '1.23E+04'],
    [0.00012, '0.0e0', '1.2e-4'],
    [7, "'#'0", '#7'],
    [7, '\\#0', '#7'],
    [-0.001, '0.00', '-0.00'],
  ];
  for (const [x, f, want] of cases) assert.equal(formatNumber(x, f), want, `${x} ${f}`);
});

test('#format composite: alignment, braces, text arguments, missing argument', () => {
  assert.equal(ev("#format('{0,-6}|{1,6}|{0}', ab, cd)"), 'ab    |    cd|ab');
  assert.equal(ev("#format('{2}{0}{1}', '{', '}', x)"), 'x{}');
  assert.equal(ev("#format('a }}{0}', x)"), 'a }x');
  assert.equal(ev("#format('{0:N2}', 1234.5)"), '1,234.50');
  assert.equal(ev("#format('{0:N0}', 12345678901234567890)"), '12,345,678,901,234,567,890');
  assert.equal(ev("#format('{0:yyyy}', 2009-06-15)"), '2009');
  assert.equal(ev("#format('{0:N2}', text)"), 'text');
  assert.equal(ev("#format('[{0}]', null)"), '[]');
  assert.throws(() => ev("#format('{1}', a)"), /#format: \{1\} has no argument/);
  assert.throws(() => ev("#format('{0', a)"), /#format: bad format .* is not closed/);
});

test('a decimal keeps its scale in #format: general formats print its trailing zeros, as .NET does', () => {
  assert.equal(ev("#format('{0}|{0:G}|{0:g}|{0:F1}', 12.50)"), '12.50|12.50|12.50|12.5');
  assert.equal(ev("#format('{0:G}|{0:G3}', -0.0100)"), '-0.0100|-0.01');
});

test('culture from #setjsonsettings: fr-FR numbers and dates', () => {
  const st = newState();
  ev('#setjsonsettings(culture:fr-FR)', st);
  const n = ev("#format('{0:N2}', 1234.5)", st);
  assert.match(n, /^1\s234,50$/u);
  assert.equal(ev("#formatdate(2009-06-15, 'dddd d MMMM yyyy')", st), 'lundi 15 juin 2009');
  assert.equal(ev("#formatdate(2009-06-15, 'd')", st), '15/06/2009');
  assert.throws(() => ev('#setjsonsettings(culture:xx-notaculture-ZZ)', newState()), /unknown culture|culture/);
  assert.equal(cultureFor('invariantculture').name, 'invariant');
});

test('parseDateExact: formats, names, AM/PM, offsets, errors', () => {
  assert.deepEqual(
    parseDateExact('15/06/2009 01:45 PM', 'dd/MM/yyyy hh:mm tt').wall,
    new Date(Date.UTC(2009, 5, 15, 13, 45)),
  );
  assert.deepEqual(parseDateExact('Monday, 15 June 2009', 'D').wall, new Date(Date.UTC(2009, 5, 15)));
  const withZone = parseDateExact('2009-06-15T13:45:30.1234567+02:00', 'yyyy-MM-ddTHH:mm:ss.fffffffzzz');
  assert.equal(withZone.offset, 120);
  assert.equal(withZone.wall.getUTCMilliseconds(), 123);
  assert.throws(() => parseDateExact('2009-02-30', 'yyyy-MM-dd'), /not a day/);
  assert.throws(() => parseDateExact('15.06.2009', 'dd/MM/yyyy'), /does not match the format/);
  assert.throws(() => ev("#parsedate(abc, 'yyyy')"), /#parsedate: 'abc' does not match the format 'yyyy'/);
});

/** Local-time functions depend on the agent's zone: run them in a child with TZ set. */
function inZone(tz: string, text: string): string {
  const script = `const { Session } = require(${JSON.stringify(require.resolve('../../runtime/session'))});
const workspace = process.argv[2];
process.stdout.write(new Session({ workspace, cwd: workspace }).evaluate(process.argv[1]));`;
  return execFileSync(process.execPath, ['-e', script, text, tempDir('zone')], {
    env: { ...process.env, TZ: tz },
  }).toString();
}

test('local time across DST (Europe/Paris, in a child process)', () => {
  // 2024-03-31 02:00 local: clocks go to 03:00 (+01:00 → +02:00).
  assert.equal(inZone('Europe/Paris', '#toiso8601(2024-03-31T01:30:00)'), '2024-03-31T01:30:00.0000000+01:00');
  assert.equal(inZone('Europe/Paris', '#toiso8601(2024-03-31T03:30:00)'), '2024-03-31T03:30:00.0000000+02:00');
  assert.equal(inZone('Europe/Paris', '#toepoch(2024-03-31T03:30:00)'), String(Date.UTC(2024, 2, 31, 1, 30) / 1000));
  assert.equal(inZone('Europe/Paris', '#toepoch(2024-03-31T03:30:00, 1)'), String(Date.UTC(2024, 2, 31, 3, 30) / 1000));
  assert.equal(inZone('Europe/Paris', '#dateadd(2024-03-30T12:00:00, 1d, o)'), '2024-03-31T12:00:00.0000000+02:00');
  assert.equal(inZone('Europe/Paris', '#torfc1123(2024-01-15T12:00:00)'), 'Mon, 15 Jan 2024 11:00:00 GMT');
  assert.equal(inZone('Europe/Paris', '#formatdate(2024-07-01T00:30:00Z, HH:mm zzz)'), '02:30 +02:00');
  assert.equal(
    inZone('America/New_York', '#parsedate(2024-11-03T12:00:00Z, yyyy-MM-ddTHH:mm:ssK, o)'),
    '2024-11-03T07:00:00.0000000-05:00',
  );
  const now = inZone('Asia/Kolkata', '#now(zzz)');
  assert.equal(now, '+05:30');
});

test('a local time that is ambiguous or skipped by DST reads as standard time in every date function', () => {
  // New York, 2026-11-01: 01:00-02:00 happens twice (EDT -04:00, then EST -05:00); 2026-03-08: 02:00-03:00
  // never happens. As .NET's TimeZoneInfo.GetUtcOffset, both read with the standard offset -05:00.
  const all = (wall: string): string =>
    [
      `#toiso8601(${wall})`,
      `#toepoch(${wall})`,
      `#toepoch_ms(${wall})`,
      `#torfc1123(${wall})`,
      `#formatdate(${wall}, zzz)`,
      `#formatdate(${wall}, u)`,
      `#dateadd(${wall}, 0s, o)`,
      // Settings last for the session: local, then local in Microsoft's format.
      `#setjsonsettings(datetimezonehandling:local)#jsonformat({"a":"${wall}"})`,
      `#setjsonsettings(dateformathandling:microsoftdateformat)#jsonformat({"a":"${wall}"})`,
    ].join('|');
  const expected = (wall: string, utc: string, offset: string): string => {
    const ms = Date.parse(`${utc}Z`);
    return [
      `${wall}.0000000${offset}`,
      ms / 1000,
      ms,
      new Date(ms).toUTCString(),
      offset,
      `${utc.replace('T', ' ')}Z`,
      `${wall}.0000000${offset}`,
      `{"a":"${wall}${offset}"}`,
      `{"a":"\\/Date(${ms}${offset.replace(':', '')})\\/"}`,
    ].join('|');
  };
  const ny = (wall: string): string => inZone('America/New_York', all(wall));
  assert.equal(ny('2026-11-01T01:30:00'), expected('2026-11-01T01:30:00', '2026-11-01T06:30:00', '-05:00'));
  assert.equal(ny('2026-03-08T02:30:00'), expected('2026-03-08T02:30:00', '2026-03-08T07:30:00', '-05:00'));
  // The hours either side of the changes keep their own offsets.
  assert.equal(ny('2026-11-01T00:59:00'), expected('2026-11-01T00:59:00', '2026-11-01T04:59:00', '-04:00'));
  assert.equal(ny('2026-03-08T03:00:00'), expected('2026-03-08T03:00:00', '2026-03-08T07:00:00', '-04:00'));
  // Southern hemisphere: Sydney's 02:00-03:00 on 2026-04-05 happens twice (+11:00, then standard +10:00).
  assert.equal(
    inZone('Australia/Sydney', all('2026-04-05T02:30:00')),
    expected('2026-04-05T02:30:00', '2026-04-04T16:30:00', '+10:00'),
  );
});
