import assert from 'node:assert/strict';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { ScriptError } from '../../runtime/errors';
import { compileExpression, compileFilter } from '../../runtime/expr';
import { columns, value, values } from './helpers';

function failure(source: string, at?: { line: number; column: number; offset: number }): ScriptError {
  try {
    compileExpression(source, at).bind(columns);
  } catch (e) {
    assert.ok(e instanceof ScriptError, `expected a ScriptError, got ${String(e)}`);
    return e;
  }
  assert.fail(`'${source}' should fail`);
}

test('number literals are typed as .NET types them: Int32, Int64, Double, Decimal', () => {
  assert.equal(value('2147483647'), 2147483647);
  assert.equal(value('2147483648'), 2147483648n);
  assert.equal(value('9223372036854775807'), 9223372036854775807n);
  assert.equal(value('9223372036854775808'), 9223372036854775808);
  const d = value('1.50');
  assert.ok(d instanceof Decimal);
  assert.equal(d.toString(), '1.5');
  assert.equal(String(value('.5 * 2')), '1');
  assert.equal(value('1e3'), 1000);
  assert.equal(value('2.5E-1'), 0.25);
});

test('string literals unescape doubled quotes and keep unicode', () => {
  assert.equal(value("'it''s'"), "it's");
  assert.equal(value("'日本語 ✓'"), '日本語 ✓');
  assert.equal(value("''"), '');
});

test('booleans, null and date literals', () => {
  assert.equal(value('true'), true);
  assert.equal(value('FALSE'), false);
  assert.equal(value('null'), null);
  assert.deepEqual(value('#1/31/2006#'), new Date(Date.UTC(2006, 0, 31)));
  assert.deepEqual(value('#2006-01-31T10:20:30#'), new Date(Date.UTC(2006, 0, 31, 10, 20, 30)));
  assert.deepEqual(value('#1/31/2006 1:05 PM#'), new Date(Date.UTC(2006, 0, 31, 13, 5)));
});

test('column references: bare, bracketed with escapes, backticks, case-insensitive', () => {
  assert.equal(value('ItemName'), 'My Product A');
  assert.equal(value('itemname'), 'My Product A');
  assert.equal(value('[ItemName]'), 'My Product A');
  assert.equal(value('`ItemName`'), 'My Product A');
  assert.equal(value('[odd name\\]]'), 'x');
  const cols = [
    { name: 'a\\b', type: { base: 'string' as const } },
    { name: 'and', type: { base: 'int' as const } },
  ];
  assert.deepEqual(values('[a\\\\b]', [['v', 1]], cols), ['v']);
  assert.deepEqual(values('[and] + 1', [['v', 1]], cols), [2]);
});

test('operator precedence: NOT below comparisons, AND above OR, * above +', () => {
  assert.equal(value('1 + 2 * 3'), 7);
  assert.equal(value('(1 + 2) * 3'), 9);
  assert.equal(value('true OR false AND false'), true);
  assert.equal(value('NOT 1 = 2'), true);
  assert.equal(value('-2 * -3'), 6);
  assert.equal(value('10 - 2 - 3'), 5);
});

test('syntax errors are ScriptErrors naming the character and mapping to the cell position', () => {
  const e = failure("id = 'abc", { line: 3, column: 15, offset: 40 });
  assert.equal(e.kind, 'syntax');
  assert.match(e.message, /unterminated string literal.*character 6/);
  assert.deepEqual(e.position, { line: 3, column: 20, offset: 45 });

  const multi = failure('id = 1 AND\n  qty >', { line: 2, column: 5, offset: 10 });
  assert.deepEqual(multi.position, { line: 3, column: 8, offset: 28 });
  assert.match(multi.message, /end of the expression/);
});

test('other syntax errors', () => {
  assert.match(failure('id = = 1').message, /expected a value/);
  assert.match(failure('(id = 1').message, /expected '\)'/);
  assert.match(failure('id = 1)').message, /unexpected '\)'/);
  assert.match(failure('Like = 1').message, /reserved word.*\[Like\]/);
  assert.match(failure('[id').message, /unterminated column name/);
  assert.match(failure('#1/1/2020').message, /unterminated date/);
  assert.match(failure('id ? 1').message, /unexpected character '\?'/);
  assert.match(failure('Foo(1)').message, /unknown function 'Foo'/);
  assert.match(failure('LEN(1, 2)').message, /LEN takes 1 argument, got 2/);
  assert.match(failure('id IN 1').message, /IN needs a parenthesised list/);
  assert.match(failure('id IS 1').message, /expected NULL after IS/);
  assert.match(failure('id BETWEEN 1 AND 2').message, /BETWEEN is not supported/);
  assert.match(failure('Sum(id, qty)').message, /SUM takes one column/);
  assert.match(failure('   ').message, /empty/);
  assert.match(failure('12abc').message, /invalid number/);
  assert.match(failure('#13/45/2006#').message, /invalid date literal/);
});

test('binding errors: unknown columns list the known ones; type mismatches name the operator', () => {
  const unknown = failure('nosuch > 1', { line: 1, column: 10, offset: 9 });
  assert.equal(unknown.kind, 'runtime');
  assert.match(unknown.message, /unknown column 'nosuch' \(columns: id, ItemName/);
  assert.deepEqual(unknown.position, { line: 1, column: 10, offset: 9 });
  assert.match(failure("id * 'x'").message, /operator \* cannot combine int and string/);
  assert.match(failure('ok + 1').message, /cannot combine bool and int/);
  assert.match(failure('id AND ok').message, /AND needs boolean operands, not int/);
  assert.match(failure('NOT id').message, /NOT needs a boolean/);
  assert.match(failure("-'a'").message, /unary - needs a number/);
  assert.match(failure("CONVERT(id, 'nosuchtype')").message, /unknown type 'nosuchtype'/);
  assert.match(failure('CONVERT(id, ItemName)').message, /type name in quotes/);
  assert.match(failure('IIF(id, 1, 2)').message, /IIF needs a boolean condition/);
  assert.match(failure('Sum(ItemName)').message, /SUM needs a numeric column/);
});

test('a filter must be a condition', () => {
  assert.throws(() => compileFilter('id + 1').bind(columns), /a filter must be a condition/);
  assert.throws(
    () => compileFilter('ISNULL(ItemName, 1)').bind(columns)(columns.map(() => null)),
    /a filter must be a condition.*gave int/,
  );
});

test('a compiled expression binds to several schemas (the column moves)', () => {
  const e = compileExpression('a * 2');
  const one = e.bind([{ name: 'a', type: { base: 'int' } }]);
  const two = e.bind([
    { name: 'x', type: { base: 'string' } },
    { name: 'A', type: { base: 'double' } },
  ]);
  assert.equal(one([4]), 8);
  assert.equal(two(['?', 1.25]), 2.5);
  assert.deepEqual(e.resultType([{ name: 'a', type: { base: 'long' } }]), { base: 'long' });
  assert.deepEqual(e.resultType([{ name: 'a', type: { base: 'int' } }]), { base: 'int' });
  assert.deepEqual(compileExpression('ISNULL(a, 1.5)').resultType([{ name: 'a', type: { base: 'int' } }]), {
    base: 'string',
  });
});
