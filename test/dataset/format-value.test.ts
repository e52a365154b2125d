import { test } from 'node:test';
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { formatValue, toJsonValue, toPlainValue } from '../../runtime/dataset/format-value';
import { parseTypeName } from '../../runtime/dataset/type-names';

const T = parseTypeName;

test('formatValue: invariant display forms', () => {
  assert.equal(formatValue(null, T('int')), '');
  assert.equal(formatValue(-42, T('int')), '-42');
  assert.equal(formatValue(0.1 + 0.2, T('double')), '0.30000000000000004');
  assert.equal(formatValue(Math.fround(0.1), T('float')), '0.1');
  assert.equal(formatValue(Math.fround(3.14159), T('float')), '3.14159');
  assert.equal(formatValue(Math.fround(1e-7), T('float')), '1e-7');
  assert.equal(formatValue(9007199254740993n, T('long')), '9007199254740993');
  assert.equal(
    formatValue(new Decimal('12345678901234567890.123456789'), T('decimal')),
    '12345678901234567890.123456789',
  );
  assert.equal(formatValue(new Decimal('1e-20'), T('decimal')), '0.00000000000000000001');
  assert.equal(formatValue(new Decimal('1.5'), T('decimal(10,2)')), '1.50');
  assert.equal(formatValue(new Decimal('7'), T('decimal(5)')), '7');
  assert.equal(formatValue(true, T('bool')), 'true');
  assert.equal(formatValue(new Date(Date.UTC(2009, 5, 15, 13, 45, 30)), T('datetime')), '2009-06-15T13:45:30');
  assert.equal(formatValue(new Date(Date.UTC(2009, 5, 15, 13, 45, 30, 70)), T('datetime')), '2009-06-15T13:45:30.070');
  assert.equal(formatValue(new Uint8Array([0, 15, 255]), T('byte[]')), '000fff');
  assert.equal(formatValue('6f9619ff-8b86-d011-b42d-00c04fc964ff', T('guid')), '6f9619ff-8b86-d011-b42d-00c04fc964ff');
  assert.equal(formatValue(NaN, T('double')), 'NaN');
});

test('formatValue of a subarray prints only its bytes', () => {
  const whole = new Uint8Array([1, 2, 3, 4]);
  assert.equal(formatValue(whole.subarray(1, 3), T('byte[]')), '0203');
});

test('toJsonValue: typed JSON text with exact longs and decimals', () => {
  assert.equal(toJsonValue(null, T('string')), 'null');
  assert.equal(toJsonValue('a "quoted"\nline', T('string')), '"a \\"quoted\\"\\nline"');
  assert.equal(toJsonValue(12, T('int')), '12');
  assert.equal(toJsonValue(false, T('bool')), 'false');
  assert.equal(toJsonValue(9007199254740993n, T('long')), '9007199254740993');
  assert.equal(
    toJsonValue(new Decimal('12345678901234567890.123456789'), T('decimal')),
    '12345678901234567890.123456789',
  );
  assert.equal(toJsonValue(new Decimal('2'), T('decimal(6,3)')), '2.000');
  assert.equal(toJsonValue(Math.fround(0.1), T('float')), '0.1');
  assert.equal(toJsonValue(Infinity, T('double')), '"Infinity"');
  assert.equal(toJsonValue(new Date(Date.UTC(2024, 0, 31)), T('datetime')), '"2024-01-31T00:00:00"');
  assert.equal(toJsonValue(new Uint8Array([0xca, 0xfe]), T('byte[]')), '"cafe"');
});

test('toPlainValue: numbers while exact, digit strings when a JS number would round, decimals as text with their scale', () => {
  assert.equal(toPlainValue(42n, T('long')), 42);
  assert.equal(toPlainValue(9007199254740993n, T('long')), '9007199254740993');
  assert.equal(toPlainValue(new Decimal('1.25'), T('decimal(10,2)')), '1.25');
  assert.equal(toPlainValue(new Decimal('230'), T('decimal(10,2)')), '230.00');
  assert.equal(
    toPlainValue(new Decimal('12345678901234567890.123456789'), T('decimal')),
    '12345678901234567890.123456789',
  );
  assert.equal(toPlainValue(new Date(Date.UTC(2024, 0, 1)), T('datetime')), '2024-01-01T00:00:00');
  assert.equal(toPlainValue(NaN, T('double')), 'NaN');
  assert.equal(toPlainValue(null, T('int')), null);
});
