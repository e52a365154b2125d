import { test } from 'node:test';
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { converterTo } from '../../runtime/dataset/convert';
import {
  decimalFromUnscaled,
  decimalText,
  parseDecimal,
  scaleOf,
  withScale,
} from '../../runtime/dataset/decimal-scale';
import { parseDateTime } from '../../runtime/dataset/parse-datetime';

/**
 * The plain text forms ('123', '12.50', '2024-01-31T10:00:00') are read by character scans rather
 * than regexes and decimal.js's parser (APPLY SCHEMA on large datasets). These tests hold the scans
 * to the results of the general readers on many generated texts, edge cases first.
 */

let seed = 7;
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(random() * 10))).join('');

/** What decimal.js's own parser makes of `text`: the value a scan must reproduce word for word. */
function parts(d: Decimal): { s: number; e: number; d: number[] } {
  return { s: d.s, e: d.e, d: [...d.d] };
}

const DECIMAL_EDGES = [
  '0',
  '-0',
  '+0.00',
  '00',
  '.5',
  '5.',
  '-.000000012',
  '0.0000001',
  '0.00000001',
  '000123.4500',
  '10000000',
  '100000000000000',
  '1234567',
  '12345678',
  '9999999.9999999',
  '12345678901234567890.123456789',
  '-0.10',
  '+42',
  '1.0000000000000000000000000001',
];

function decimalTexts(): string[] {
  const texts = [...DECIMAL_EDGES];
  for (let i = 0; i < 3000; i++) {
    const int =
      random() < 0.2
        ? ''
        : `${random() < 0.2 ? '0'.repeat(1 + Math.floor(random() * 3)) : ''}${digits(1 + Math.floor(random() * 22))}`;
    const frac =
      random() < 0.3
        ? ''
        : `${random() < 0.3 ? '0'.repeat(Math.floor(random() * 9)) : ''}${digits(Math.floor(random() * 16))}${random() < 0.3 ? '00' : ''}`;
    const text = `${pick(['', '', '-', '+'])}${int}${frac || random() < 0.2 ? '.' : ''}${frac}`;
    if (/\d/.test(text)) texts.push(text);
  }
  return texts;
}

test('decimal text is read into the same digits, exponent and sign as decimal.js reads it, keeping the scale written', () => {
  for (const text of decimalTexts()) {
    const d = parseDecimal(text);
    const reference = new Decimal(text);
    assert.deepEqual(parts(d), parts(reference), text);
    const written = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
    assert.equal(scaleOf(d), Math.max(written, reference.decimalPlaces()), text);
    assert.equal(decimalText(d), reference.toFixed(written), text);
  }
});

test('decimal text read with a scale equals the value given that scale', () => {
  for (const text of decimalTexts()) {
    for (const scale of [0, 2, 6]) {
      const d = parseDecimal(text, scale);
      const reference = withScale(new Decimal(text), scale);
      assert.deepEqual(parts(d), parts(reference), `${text} scale ${scale}`);
      assert.equal(scaleOf(d), scaleOf(reference), `${text} scale ${scale}`);
    }
  }
});

test('decimal(10, 2) of plain text: padded to the scale, rounded beyond it, too many digits rejected', () => {
  const convert = converterTo({ base: 'decimal', precision: 10, scale: 2 });
  const text = (v: string) => decimalText(convert(v) as Decimal);
  assert.equal(text('12.5'), '12.50');
  assert.equal(text('12.500'), '12.50');
  assert.equal(text('-12'), '-12.00');
  assert.equal(text('12.345'), '12.35');
  assert.equal(text('00012345678.99'), '12345678.99');
  assert.throws(() => convert('123456789.5'), /more than 10 digits/);
});

test('integer text of up to 15 digits and beyond converts exactly and range-checked', () => {
  const int = converterTo({ base: 'int' });
  const long = converterTo({ base: 'long' });
  for (let i = 0; i < 2000; i++) {
    const text = `${pick(['', '-', '+'])}${digits(1 + Math.floor(random() * 19))}`;
    const exact = BigInt(text);
    if (exact >= -(2n ** 63n) && exact < 2n ** 63n) assert.equal(long(text), exact, text);
    else assert.throws(() => long(text), /out of range/, text);
    if (exact >= -2147483648n && exact <= 2147483647n) assert.equal(int(text), Number(exact), text);
    else assert.throws(() => int(text), /out of range/, text);
  }
  assert.equal(Object.is(int('-0'), 0), true);
  assert.equal(int('+7'), 7);
  assert.throws(() => int('7a'), /cannot convert '7a' to int/);
  assert.throws(() => int('-'), /cannot convert/);
});

const ISO_FAILURES = [
  '2024-02-30',
  '2023-02-29',
  '2024-13-01',
  '2024-00-10',
  '2024-01-00',
  '0000-01-01',
  '2024-01-01T24:00',
  '2024-01-01T10:60',
  '2024-01-01T10:00:60',
  '2024-01-01T10:00:6',
  '2024-01-01T10:00:00.',
  '2024-01-01T10:00:00Zx',
  '2024-1-01',
  '2024-01-01T',
  '2024-01-01X10:00',
];

test('ISO datetime text is the UTC clock time written; invalid dates and malformed text are not dates', () => {
  const two = (n: number) => String(n).padStart(2, '0');
  for (let i = 0; i < 3000; i++) {
    const [y, mo, d, h, mi, s] = [
      1 + Math.floor(random() * 9998),
      1 + Math.floor(random() * 12),
      1 + Math.floor(random() * 28),
      Math.floor(random() * 24),
      Math.floor(random() * 60),
      Math.floor(random() * 60),
    ];
    const fraction = digits(1 + Math.floor(random() * 7));
    const ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
    const date = `${String(y).padStart(4, '0')}-${two(mo)}-${two(d)}`;
    const expected = (hour: number, minute: number, second: number, milli: number) => {
      const t = new Date(0);
      t.setUTCFullYear(y, mo - 1, d);
      t.setUTCHours(hour, minute, second, milli);
      return t.getTime();
    };
    const forms: [string, number][] = [
      [date, expected(0, 0, 0, 0)],
      [`${date}T${two(h)}:${two(mi)}`, expected(h, mi, 0, 0)],
      [`${date} ${two(h)}:${two(mi)}:${two(s)}`, expected(h, mi, s, 0)],
      [`${date}t${two(h)}:${two(mi)}:${two(s)}Z`, expected(h, mi, s, 0)],
      [
        `${date}T${two(h)}:${two(mi)}:${two(s)}${pick(['.', ','])}${fraction}${pick(['', 'Z', 'z'])}`,
        expected(h, mi, s, ms),
      ],
    ];
    for (const [text, time] of forms) assert.equal(parseDateTime(text)?.getTime(), time, text);
  }
  assert.equal(parseDateTime('2024-02-29T23:59:59')?.toISOString(), '2024-02-29T23:59:59.000Z');
  assert.equal(parseDateTime('2024-01-31T10:00:00+02:00')?.toISOString(), '2024-01-31T08:00:00.000Z');
  assert.equal(parseDateTime('2024-01-31T10:00:00 Z')?.toISOString(), '2024-01-31T10:00:00.000Z');
  for (const text of ISO_FAILURES) assert.equal(parseDateTime(text), undefined, text);
});

test('a decimal built from its unscaled integer and scale is the decimal its text parses to, word for word', () => {
  const cases: [number, number][] = [
    [0, 0],
    [0, 2],
    [5, 0],
    [-5, 3],
    [1, 7],
    [1, 8],
    [10_000_000, 7],
    [10_000_000, 0],
    [123_456_789, 14],
    [Number.MAX_SAFE_INTEGER, 0],
    [-Number.MAX_SAFE_INTEGER, 22],
    [100, 2],
    [1_000_000_000_000, 15],
  ];
  for (let i = 0; i < 20_000; i++) {
    const magnitude = Math.floor(random() * 2 ** (1 + Math.floor(random() * 52)));
    cases.push([random() < 0.5 ? -magnitude : magnitude, Math.floor(random() * 23)]);
  }
  for (const [unscaled, scale] of cases) {
    const digits = String(Math.abs(unscaled)).padStart(scale + 1, '0');
    const text = `${unscaled < 0 ? '-' : ''}${scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`}`;
    const built = decimalFromUnscaled(unscaled, scale);
    const parsed = parseDecimal(text);
    assert.equal(decimalText(built), text, `${unscaled} / 10^${scale}`);
    assert.equal(scaleOf(built), scaleOf(parsed), text);
    assert.deepEqual(parts(built), parts(parsed), text);
  }
});
