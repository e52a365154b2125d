import { test } from 'node:test';
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { converterTo, inferType } from '../../runtime/dataset/convert';
import { parseTypeName } from '../../runtime/dataset/type-names';
import type { Value } from '../../runtime/dataset/types';
import { ScriptError } from '../../runtime/errors';

const to = (typeText: string, v: Value, from?: string) =>
  converterTo(parseTypeName(typeText), from === undefined ? undefined : parseTypeName(from))(v);

function assertFails(typeText: string, v: Value, message: RegExp | string): void {
  assert.throws(
    () => to(typeText, v),
    (e: unknown) => {
      assert.ok(e instanceof ScriptError, `${typeText} ${String(v)}`);
      assert.equal(e.kind, 'runtime');
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    },
  );
}

test('text to integers: trimmed, signed, range-checked per type', () => {
  assert.equal(to('int', '42'), 42);
  assert.equal(to('int', ' -7 '), -7);
  assert.equal(to('int', '+0012'), 12);
  assert.equal(to('int', '3.00'), 3);
  assert.equal(to('int', '2147483647'), 2147483647);
  assert.equal(to('tinyint', '255'), 255);
  assert.equal(to('short', '-32768'), -32768);
  assertFails('int', 'abc', "cannot convert 'abc' to int");
  assertFails('int', '1.5', "cannot convert '1.5' to int");
  assertFails('int', '1e3', "cannot convert '1e3' to int");
  assertFails('int', '1,000', "cannot convert '1,000' to int");
  assertFails('int', '2147483648', "cannot convert '2147483648' to int: out of range -2147483648..2147483647");
  assertFails('tinyint', '256', /out of range 0\.\.255/);
  assertFails('tinyint', '-1', /out of range 0\.\.255/);
  assertFails('short', '32768', /to short: out of range -32768\.\.32767/);
});

test('blank text is null for every type but string and char', () => {
  for (const t of ['int', 'long', 'decimal', 'double', 'float', 'bool', 'datetime', 'guid', 'byte[]', 'tinyint']) {
    assert.equal(to(t, ''), null, t);
    assert.equal(to(t, '   '), null, t);
    assert.equal(to(t, null), null, t);
  }
  assert.equal(to('string', ''), '');
  assert.equal(to('char', ''), '');
});

test('numbers to integers round half to even as .NET Convert does; bool is 1/0', () => {
  assert.equal(to('int', 2.5), 2);
  assert.equal(to('int', 3.5), 4);
  assert.equal(to('int', -2.5), -2);
  assert.equal(to('int', -3.5), -4);
  assert.equal(to('int', 2.6), 3);
  assert.equal(to('int', 2.4), 2);
  assert.ok(Object.is(to('int', -0.4), 0), 'no negative zero');
  assert.equal(to('int', new Decimal('7.5')), 8);
  assert.equal(to('int', new Decimal('12.50')), 12);
  assert.equal(to('long', 6.5), 6n);
  assert.equal(to('long', new Decimal('-6.5')), -6n);
  assert.equal(to('int', 12n), 12);
  assert.equal(to('short', true), 1);
  assertFails('int', 3e9, /cannot convert 3000000000 to int: out of range/);
  assertFails('int', 5_000_000_000n, /out of range/);
  assertFails('int', NaN, 'cannot convert NaN to int');
  assertFails('int', new Date(0), /cannot convert datetime 1970-01-01T00:00:00 to int/);
});

test('long is a bigint, exact beyond 2^53, range-checked to 64 bits', () => {
  assert.equal(to('long', '9007199254740993'), 9007199254740993n);
  assert.equal(to('long', '-9223372036854775808'), -9223372036854775808n);
  assert.equal(to('long', '9223372036854775807'), 9223372036854775807n);
  assert.equal(to('long', 42), 42n);
  assert.equal(to('long', -1.5), -2n);
  assert.equal(to('long', new Decimal('12345678901234567.5')), 12345678901234568n);
  assert.equal(to('long', false), 0n);
  assertFails('long', '9223372036854775808', /to long: out of range -9223372036854775808\.\.9223372036854775807/);
  assertFails('long', 1e19, /out of range/);
  assertFails('long', '12x', "cannot convert '12x' to long");
});

test('decimal keeps exact digits; decimal(p, s) rounds half away from zero and checks precision', () => {
  const exact = to('decimal', '12345678901234567890.123456789') as Decimal;
  assert.ok(Decimal.isDecimal(exact));
  assert.equal(exact.toFixed(), '12345678901234567890.123456789');
  assert.equal((to('decimal', '1e-30') as Decimal).toFixed(), '0.000000000000000000000000000001');
  assert.equal((to('decimal', 0.1) as Decimal).toFixed(), '0.1');
  assert.equal((to('decimal', 9007199254740993n) as Decimal).toFixed(), '9007199254740993');
  assert.equal((to('decimal(10,2)', '1.005') as Decimal).toFixed(), '1.01');
  assert.equal((to('decimal(10,2)', '-1.005') as Decimal).toFixed(), '-1.01');
  assert.equal((to('decimal(10,2)', '2.004') as Decimal).toFixed(), '2');
  assert.equal((to('decimal(5)', '12345.5') as Decimal).toFixed(), '12346');
  assert.equal((to('decimal(4,2)', '99.99') as Decimal).toFixed(), '99.99');
  assertFails('decimal(4,2)', '99.995', "cannot convert '99.995' to decimal(4,2): more than 4 digits of precision");
  assertFails('decimal(4,2)', '100', /more than 4 digits/);
  assertFails('decimal', 'abc', "cannot convert 'abc' to decimal");
  assertFails('decimal', '0x10', /to decimal$/);
  assertFails('decimal', 'Infinity', /to decimal$/);
  assertFails('decimal', NaN, /to decimal$/);
});

test('double and float: numeric text, NaN/Infinity by name, float rounded to float32, overflow fails', () => {
  assert.equal(to('double', '1.5e3'), 1500);
  assert.equal(to('double', ' -.25 '), -0.25);
  assert.ok(Number.isNaN(to('double', 'NaN')));
  assert.equal(to('double', '-Infinity'), -Infinity);
  assert.equal(to('double', new Decimal('0.1')), 0.1);
  assert.equal(to('double', 9007199254740993n), 9007199254740992);
  assert.equal(to('float', '0.1'), Math.fround(0.1));
  assert.equal(to('float', 16777217), 16777216);
  assert.equal(to('float', 'infinity'), Infinity);
  assertFails('double', '1e400', "cannot convert '1e400' to double: out of range");
  assertFails('float', '1e39', "cannot convert '1e39' to float: out of range");
  assertFails('float', 3.5e38, /out of range/);
  assertFails('double', '12abc', "cannot convert '12abc' to double");
  assertFails('double', '0x1F', /to double$/);
});

test('bool reads true/false/1/0/yes/no in any case, and numbers as non-zero', () => {
  for (const t of ['true', 'TRUE', ' True ', '1', 'yes', 'YES']) assert.equal(to('bool', t), true, t);
  for (const t of ['false', 'False', '0', 'no', 'No']) assert.equal(to('bool', t), false, t);
  assert.equal(to('bool', 0), false);
  assert.equal(to('bool', -3), true);
  assert.equal(to('bool', 0n), false);
  assert.equal(to('bool', new Decimal('0.00')), false);
  assertFails('bool', 'maybe', "cannot convert 'maybe' to bool");
  assertFails('bool', '2', "cannot convert '2' to bool");
});

test('datetime reads ISO 8601 with and without offset and the invariant MM/dd/yyyy form, as UTC', () => {
  const iso = (v: Value) => (to('datetime', v) as Date).toISOString();
  assert.equal(iso('2024-03-31'), '2024-03-31T00:00:00.000Z');
  assert.equal(iso('2024-03-31T02:30:00'), '2024-03-31T02:30:00.000Z'); // a DST gap in Europe: no shift
  assert.equal(iso('2024-03-31 02:30'), '2024-03-31T02:30:00.000Z');
  assert.equal(iso('2024-03-31T02:30:00Z'), '2024-03-31T02:30:00.000Z');
  assert.equal(iso('2024-03-31T02:30:00+02:00'), '2024-03-31T00:30:00.000Z');
  assert.equal(iso('2024-03-31T02:30:00-0530'), '2024-03-31T08:00:00.000Z');
  assert.equal(iso('2024-01-01T00:00:00.1234567'), '2024-01-01T00:00:00.123Z');
  assert.equal(iso('2024-02-29T23:59:59.5'), '2024-02-29T23:59:59.500Z');
  assert.equal(iso('06/15/2009 13:45:30'), '2009-06-15T13:45:30.000Z');
  assert.equal(iso('6/5/2009 1:45:30 PM'), '2009-06-05T13:45:30.000Z');
  assert.equal(iso('6/5/2009 12:00 AM'), '2009-06-05T00:00:00.000Z');
  assert.equal(iso('0050-01-01'), '0050-01-01T00:00:00.000Z');
  const d = new Date(Date.UTC(2020, 0, 1));
  assert.equal(to('datetime', d), d);
  for (const bad of [
    '2023-02-29',
    '2024-13-01',
    '2024-01-01T24:00:00',
    '2024-01-01T10:60',
    '31/12/2024',
    'tomorrow',
    '0000-01-01',
  ]) {
    assertFails('datetime', bad, `cannot convert '${bad}' to datetime`);
  }
  assertFails('datetime', 1700000000, 'cannot convert 1700000000 to datetime');
});

test('guid: .NET forms accepted, canonical lowercase out, invalid ones rejected', () => {
  const canonical = '6f9619ff-8b86-d011-b42d-00c04fc964ff';
  for (const t of [
    canonical,
    '6F9619FF-8B86-D011-B42D-00C04FC964FF',
    '{6F9619FF-8B86-D011-B42D-00C04FC964FF}',
    '(6f9619ff-8b86-d011-b42d-00c04fc964ff)',
    '6f9619ff8b86d011b42d00c04fc964ff',
    ' 6f9619ff8b86d011b42d00c04fc964ff ',
  ]) {
    assert.equal(to('guid', t), canonical, t);
  }
  for (const bad of [
    '6f9619ff-8b86-d011-b42d-00c04fc964f',
    '6f9619ff-8b86-d011-b42d-00c04fc964fg',
    '{6f9619ff-8b86-d011-b42d-00c04fc964ff',
    '6f9619ff-8b86d011-b42d-00c04fc964ff',
    '{6f9619ff8b86d011b42d00c04fc964ff}',
  ]) {
    assertFails('guid', bad, `cannot convert '${bad}' to guid`);
  }
});

test('bytes from hex text (0x optional), sized byte[N], and back to hex text', () => {
  assert.deepEqual(to('byte[]', '0x00ff10'), new Uint8Array([0, 255, 16]));
  assert.deepEqual(to('byte[]', 'ABCD'), new Uint8Array([0xab, 0xcd]));
  assert.deepEqual(to('byte[]', '0x'), new Uint8Array([]));
  assert.deepEqual(to('binary(2)', new Uint8Array([1, 2])), new Uint8Array([1, 2]));
  assertFails('binary(2)', '010203', "cannot convert '010203' to byte[2]: longer than 2 bytes");
  assertFails('byte[]', '0x123', /expected hexadecimal digits/);
  assertFails('byte[]', 'zz', /expected hexadecimal digits/);
  assert.equal(to('string', new Uint8Array([0xde, 0xad])), 'dead');
});

test('strings: sizes count characters (code points), char is one character unless sized', () => {
  assert.equal(to('string[5]', 'héllo'), 'héllo');
  assert.equal(to('string[2]', '😀👍'), '😀👍');
  assert.equal(to('string[max]', 'x'.repeat(10000)), 'x'.repeat(10000));
  assertFails('string[3]', 'abcd', "cannot convert 'abcd' to string[3]: longer than 3 characters");
  assertFails('string[1]', '😀👍', /longer than 1 character$/);
  assert.equal(to('char', 'x'), 'x');
  assertFails('char', 'xy', /to char: longer than 1 character/);
  assert.equal(to('char[3]', 'xyz'), 'xyz');
  assertFails('SYSNAME', 'n'.repeat(257), /to string\[256\]: longer than 256 characters/);
});

test('values to text use the invariant display forms of their type', () => {
  assert.equal(to('string', 12.5), '12.5');
  assert.equal(to('string', 9007199254740993n), '9007199254740993');
  assert.equal(to('string', new Decimal('12345678901234567890.123456789')), '12345678901234567890.123456789');
  assert.equal(to('string', true), 'true');
  assert.equal(to('string', new Date(Date.UTC(2024, 0, 2, 3, 4, 5))), '2024-01-02T03:04:05');
  assert.equal(to('string', Math.fround(0.1), 'float'), '0.1');
  assert.equal(to('string', new Decimal('1.5'), 'decimal(10,2)'), '1.50');
  assert.equal(to('string', 'ünïcödé ✓'), 'ünïcödé ✓');
});

test('long error values are cut in the message', () => {
  assertFails('int', 'y'.repeat(100), `cannot convert '${'y'.repeat(40)}…' to int`);
});

test('inferType: the best numeric type, else bool, datetime, bytes or string', () => {
  assert.deepEqual(inferType([1, 2, null, -3]), { base: 'int' });
  assert.deepEqual(inferType([1, 3_000_000_000]), { base: 'long' });
  assert.deepEqual(inferType([1, 9007199254740993n]), { base: 'long' });
  assert.deepEqual(inferType([1, 2n ** 70n]), { base: 'decimal' });
  assert.deepEqual(inferType([1, 1e20]), { base: 'double' });
  assert.deepEqual(inferType([1, 2.5]), { base: 'double' });
  assert.deepEqual(inferType([1, new Decimal('2.5')]), { base: 'decimal' });
  assert.deepEqual(inferType([new Decimal('2'), 7]), { base: 'int' });
  assert.deepEqual(inferType([true, false, null]), { base: 'bool' });
  assert.deepEqual(inferType([new Date(0)]), { base: 'datetime' });
  assert.deepEqual(inferType([new Uint8Array(1)]), { base: 'bytes' });
  assert.deepEqual(inferType([1, 'a']), { base: 'string' });
  assert.deepEqual(inferType([true, 1]), { base: 'string' });
  assert.deepEqual(inferType([null, null]), { base: 'string' });
  assert.deepEqual(inferType([]), { base: 'string' });
});
