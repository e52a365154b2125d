import assert from 'node:assert/strict';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { decimalText } from '../../runtime/dataset/decimal-scale';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Column, Value } from '../../runtime/dataset/types';
import { ScriptError } from '../../runtime/errors';
import { compileExpression } from '../../runtime/expr';
import { columns, kept, rows, value, values } from './helpers';

const text = (v: Value) => (v === null ? null : v instanceof Decimal ? decimalText(v) : String(v));

function runtimeFailure(source: string, data: Value[][] = rows, cols: Column[] = columns): ScriptError {
  const f = compileExpression(source, { line: 1, column: 1, offset: 0 }).bind(
    cols,
    undefined,
    Dataset.fromRows(cols, data),
  );
  try {
    data.forEach((r) => f(r));
  } catch (e) {
    assert.ok(e instanceof ScriptError);
    return e;
  }
  assert.fail(`'${source}' should fail`);
}

test('reference examples: Convert, IIF, LIKE', () => {
  assert.deepEqual(
    values("Convert(total, 'System.Int32')"),
    [1500, 20, null],
    'Convert rounds 1500.5 half to even, as .NET',
  );
  assert.deepEqual(values("IIF(total>1000, 'expensive', 'dear')"), ['expensive', 'dear', 'dear']);
  assert.deepEqual(kept("ItemName LIKE '*product*'"), [1]);
  assert.throws(() => kept("ItemName LIKE 'te*xt'"), /LIKE pattern 'te\*xt' is invalid/);
});

test('integer arithmetic: Int32 results, overflow is an error, / gives a double', () => {
  assert.equal(value('qty + 4'), 7);
  assert.equal(value('qty / 2'), 1.5);
  assert.equal(value('7 % 3'), 1);
  assert.match(runtimeFailure('2147483647 + id').message, /overflow.*int/);
  assert.match(runtimeFailure('qty % 0').message, /division by zero/);
  assert.equal(value('id / 0'), Infinity);
});

test('long arithmetic stays exact beyond 2^53', () => {
  assert.equal(value('big + 1'), 9007199254740994n);
  assert.equal(value('big * 1000'), 9007199254740993000n);
  assert.equal(value('big - id'), 9007199254740992n);
  assert.equal(value('big > 9007199254740992'), true);
  assert.match(runtimeFailure('9223372036854775807 + id').message, /overflow.*long/);
  // a double: 4503599627370496.5 is not one, and rounds to its even neighbour
  assert.equal(value('big / 2'), 4503599627370496);
});

test('decimal arithmetic is exact with .NET scales; division rounds to the 96-bit coefficient', () => {
  assert.equal(text(value('price * qty')), '3.30');
  assert.equal(text(value('price + 0.000000000000000000000001')), '1.100000000000000000000001');
  assert.equal(text(value('12345678901234567.891 * 98765432109876.54321')), '1219326311370217952336229233221.14007011');
  assert.equal(text(value('1.0 / 3')), '0.3333333333333333333333333333');
  assert.equal(text(value('2.0 / 3')), '0.6666666666666666666666666667');
  assert.equal(text(value('10.0 / 3')), '3.3333333333333333333333333333');
  assert.equal(text(value('100000.0 / 3')), '33333.333333333333333333333333');
  assert.ok(value('price * 2') instanceof Decimal);
  assert.equal(typeof value('price * total'), 'number', 'decimal meets double as double');
  assert.match(runtimeFailure('price / 0').message, /division by zero/);
});

test('+ concatenates when either side is a string', () => {
  assert.equal(value("ItemName + '!'"), 'My Product A!');
  assert.equal(value("id + 'x'"), '1x');
  assert.equal(value("'v' + price"), 'v1.10');
  assert.equal(value("'a' + null"), null);
});

test('string comparison is case-insensitive and ignores trailing blanks', () => {
  assert.deepEqual(kept("ItemName = 'MY PRODUCT A'"), [1]);
  assert.deepEqual(kept("ItemName = 'my product a   '"), [1]);
  assert.deepEqual(kept("ItemName <> 'OTHER'"), [1]);
  assert.deepEqual(kept("ItemName < 'N'"), [1]);
  assert.deepEqual(kept("'OTHER' = ItemName"), [2]);
  assert.deepEqual(kept("ItemName = ItemName + ''"), [1, 2]);
});

test('a string meets a number in the number type, a date in the date type', () => {
  assert.deepEqual(kept("id > '1'"), [2, 3]);
  assert.deepEqual(kept("'2' = id"), [2]);
  assert.deepEqual(kept("when > '2010-01-01'"), [2]);
  assert.deepEqual(kept('when = #1/31/2006#'), [1]);
  assert.deepEqual(kept("ok = 'true'"), [1]);
  assert.deepEqual(kept('total > qty * 10'), [1]);
  const e = runtimeFailure('ItemName > 5');
  assert.match(e.message, /cannot convert 'My Product A' to int/);
  assert.match(e.message, /character 10 of expression 'ItemName > 5'/);
  assert.deepEqual(e.position, { line: 1, column: 10, offset: 9 });
});

test('null semantics: comparisons and arithmetic give null, filters drop null', () => {
  assert.deepEqual(values('total > 10'), [true, true, null]);
  assert.deepEqual(values('total + 1'), [1501.5, 21, null]);
  assert.deepEqual(values('null = null'), [null, null, null]);
  assert.deepEqual(kept('NOT (total > 100)'), [2]);
  assert.deepEqual(kept('total IS NULL'), [3]);
  assert.deepEqual(kept('total IS NOT NULL'), [1, 2]);
  assert.deepEqual(kept("ItemName IS NULL OR ItemName LIKE 'o*'"), [2, 3]);
});

test('AND / OR follow .NET: null AND x is null, null OR x is x', () => {
  const table: [string, Value][] = [
    ['true AND null', null],
    ['false AND null', false],
    ['null AND false', null],
    ['null AND true', null],
    ['true OR null', true],
    ['false OR null', false],
    ['null OR false', false],
    ['null OR true', true],
    ['null OR null', null],
    ['NOT null', null],
  ];
  for (const [source, expected] of table) assert.equal(value(source), expected, source);
  const flags: Column[] = [
    { name: 'a', type: { base: 'bool' } },
    { name: 'b', type: { base: 'bool' } },
  ];
  assert.deepEqual(
    values(
      'a AND b',
      [
        [true, null],
        [null, false],
        [false, null],
      ],
      flags,
    ),
    [null, null, false],
  );
  assert.deepEqual(
    values(
      'a OR b',
      [
        [false, null],
        [null, false],
        [null, true],
      ],
      flags,
    ),
    [false, false, true],
  );
});

test('LIKE: wildcards at the ends only, [ ] escapes, NOT LIKE, case-insensitive', () => {
  const names: Column[] = [
    { name: 'id', type: { base: 'int' } },
    { name: 's', type: { base: 'string' } },
  ];
  const data: Value[][] = [
    [1, 'Text'],
    [2, 'context'],
    [3, 'a*b'],
    [4, '100%'],
    [5, null],
    [6, 'TEXT  '],
  ];
  assert.deepEqual(kept("s LIKE 'te*'", data, names), [1, 6]);
  assert.deepEqual(kept("s LIKE '%xt'", data, names), [1, 2, 6]);
  assert.deepEqual(kept("s LIKE '*EX*'", data, names), [1, 2, 6]);
  assert.deepEqual(kept("s LIKE 'text'", data, names), [1, 6]);
  assert.deepEqual(kept("s LIKE '*'", data, names), [1, 2, 3, 4, 6]);
  assert.deepEqual(kept("s LIKE '*[*]*'", data, names), [3]);
  assert.deepEqual(kept("s LIKE '*[%]'", data, names), [4]);
  assert.deepEqual(kept("s NOT LIKE 'te*'", data, names), [2, 3, 4]);
  assert.deepEqual(
    kept(
      "id LIKE '1*'",
      [
        [10, 'x'],
        [2, 'y'],
      ],
      names,
    ),
    [10],
  );
  assert.throws(() => kept("s LIKE 't*t*'", data, names), /LIKE pattern 't\*t\*' is invalid/);
  assert.throws(() => kept("s LIKE 'a[b'", data, names), /invalid/);
  const patterns: Column[] = [
    { name: 's', type: { base: 'string' } },
    { name: 'p', type: { base: 'string' } },
  ];
  assert.deepEqual(
    values(
      's LIKE p',
      [
        ['abc', 'a*'],
        ['abc', '*c'],
        ['abc', 'b*'],
        ['x', null],
      ],
      patterns,
    ),
    [true, true, false, null],
  );
});

test('IN converts items to the operand type; strings compare case-insensitively', () => {
  assert.deepEqual(kept("id IN (1, '3')"), [1, 3]);
  assert.deepEqual(kept('id NOT IN (1, 3)'), [2]);
  assert.deepEqual(kept("ItemName IN ('OTHER', 'nothing')"), [2]);
  assert.deepEqual(kept("ItemName NOT IN ('OTHER')"), [1], 'null is neither in nor not in');
  assert.deepEqual(kept('big IN (5, 9007199254740993)'), [1, 2]);
  assert.deepEqual(kept('price IN (2.50, 7)'), [2]);
  assert.deepEqual(kept('id IN (qty - 2, 99)'), [1]);
  assert.deepEqual(kept('id IN (null, 2)'), [2]);
});

test('functions: LEN, ISNULL, TRIM, SUBSTRING (1-based, clamped), CONVERT to our type names', () => {
  assert.deepEqual(values('LEN(ItemName)'), [12, 5, null]);
  assert.deepEqual(values("ISNULL(ItemName, 'none')"), ['My Product A', 'other', 'none']);
  assert.equal(value("TRIM('  a b  ')"), 'a b');
  assert.equal(value('SUBSTRING(ItemName, 4, 7)'), 'Product');
  assert.equal(value('SUBSTRING(ItemName, 4, 100)'), 'Product A');
  assert.equal(value('SUBSTRING(ItemName, 40, 2)'), '');
  assert.match(runtimeFailure('SUBSTRING(ItemName, 0, 2)').message, /start must be 1 or more/);
  assert.equal(value("CONVERT('42', 'int')"), 42);
  assert.equal(value("CONVERT('42', 'bigint')"), 42n);
  assert.equal(value("CONVERT(qty, 'System.String') + 'x'"), '3x');
  assert.equal(text(value("CONVERT('1.239', 'decimal(5,2)')")), '1.24');
  assert.deepEqual(value("CONVERT('2006-01-31', 'System.DateTime')"), new Date(Date.UTC(2006, 0, 31)));
  assert.match(runtimeFailure("CONVERT(ItemName, 'System.Int32')").message, /cannot convert 'My Product A' to int/);
  assert.equal(value('IIF(ok, 1, 2)'), 1);
  assert.deepEqual(values('IIF(ok, 1, 2)'), [1, 2, 2]);
  assert.equal(value('LEN(12345)'), 5);
});

test('unicode and very long values', () => {
  const data: Value[][] = [
    [1, 'ÉCOLE ünïcode'],
    [2, 'x'.repeat(1_000_000) + 'END'],
  ];
  const cols: Column[] = [
    { name: 'id', type: { base: 'int' } },
    { name: 's', type: { base: 'string' } },
  ];
  assert.deepEqual(kept("s = 'école ÜNÏCODE'", data, cols), [1]);
  assert.deepEqual(kept("s LIKE '*end'", data, cols), [2]);
  assert.deepEqual(values('LEN(s)', data, cols), [13, 1_000_003]);
});

test('aggregates inside a row expression are computed once over the rows', () => {
  assert.deepEqual(
    values('total / Sum(total)').map((v) => (v === null ? null : Math.round((v as number) * 1000))),
    [987, 13, null],
  );
  assert.deepEqual(values('Count(ItemName)'), [2, 2, 2]);
  assert.throws(() => compileExpression('Sum(total)').bind(columns), /needs the dataset's rows/);
});

test('empty dataset: binding works and nothing is evaluated', () => {
  assert.deepEqual(values('ItemName > 5', []), []);
  assert.deepEqual(kept('id = 1', []), []);
});
