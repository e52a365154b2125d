import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Column, Value } from '../../runtime/dataset/types';
import { ScriptError } from '../../runtime/errors';
import { calculate, compileExpression } from '../../runtime/expr';
import { NESTING_LIMIT } from '../../runtime/script/limits';
import { columns, kept, rows, values } from './helpers';

/**
 * Operator chains (`a OR b OR …`, `a + b - …`) are bound and evaluated with loops rather than one
 * nested call per term: they must give exactly what the two-operand rules give folded from the left,
 * at any length. What truly nests (parentheses, calls, NOT, signs) stops at NESTING_LIMIT.
 */

const flags: Column[] = ['a', 'b', 'c', 'd'].map((name) => ({ name, type: { base: 'bool' } }));
const THREE: Value[] = [true, false, null];
const combinations: Value[][] = [];
for (const a of THREE)
  for (const b of THREE) for (const c of THREE) for (const d of THREE) combinations.push([a, b, c, d]);

// .NET's two-operand rules (checked on their own in semantics.test.ts).
const and = (x: Value, y: Value): Value => (x !== true ? x : y);
const or = (x: Value, y: Value): Value => (x === true ? true : y === null ? x : y);

test('AND / OR chains give the two-operand rules folded from the left, for every mix of true, false and null', () => {
  const cases: [string, (r: Value[]) => Value][] = [
    ['a AND b AND c AND d', ([a, b, c, d]) => and(and(and(a, b), c), d)],
    ['a OR b OR c OR d', ([a, b, c, d]) => or(or(or(a, b), c), d)],
    ['a AND b OR c AND d', ([a, b, c, d]) => or(and(a, b), and(c, d))],
    ['a OR b AND c OR d', ([a, b, c, d]) => or(or(a, and(b, c)), d)],
    ['a OR b OR c AND d AND a', ([a, b, c, d]) => or(or(a, b), and(and(c, d), a))],
    // Operands whose type is only known per row ('any') go through the checked steps.
    [
      'IIF(true, a, 0) AND b AND IIF(true, c, 0) OR d OR IIF(true, a, 0)',
      ([a, b, c, d]) => or(or(and(and(a, b), c), d), a),
    ],
    ['NOT a OR NOT b OR NOT c', ([a, b, c]) => or(or(not(a), not(b)), not(c))],
  ];
  for (const [source, expected] of cases) {
    assert.deepEqual(values(source, combinations, flags), combinations.map(expected), source);
  }
});

test('long chains (past the nested first steps, through the loop) keep the same rules', () => {
  const names = ['a', 'b', 'c', 'd'];
  for (const [op, rule] of [
    ['AND', and],
    ['OR', or],
  ] as const) {
    for (const wrap of [(n: string) => n, (n: string) => `IIF(true, ${n}, 0)`]) {
      const terms = Array.from({ length: 60 }, (_, i) => i);
      const source = terms.map((i) => wrap(names[(i * 7) % 4])).join(` ${op} `);
      const expected = combinations.map((r) =>
        terms.slice(1).reduce((acc: Value, i) => rule(acc, r[(i * 7) % 4]), r[0]),
      );
      assert.deepEqual(values(source, combinations, flags), expected, source.slice(0, 40));
    }
  }
  // AND inside OR inside AND, each level long.
  const inner = (i: number) => Array.from({ length: 20 }, (_, k) => names[(i + k) % 4]).join(' AND ');
  const source = Array.from({ length: 20 }, (_, i) => inner(i)).join(' OR ');
  const expected = combinations.map((r) =>
    Array.from({ length: 20 }, (_, i) =>
      Array.from({ length: 20 }, (_, k) => r[(i + k) % 4]).reduce((x, y) => and(x, y)),
    ).reduce((x, y) => or(x, y)),
  );
  assert.deepEqual(values(source, combinations, flags), expected);
});

function not(v: Value): Value {
  return v === null ? null : !v;
}

test('a step of a chain that its running value decides skips its right operand', () => {
  const cols: Column[] = [
    { name: 'id', type: { base: 'int' } },
    { name: 's', type: { base: 'string' } },
  ];
  const data: Value[][] = [
    [1, 'not a number'],
    [2, '7'],
  ];
  // Converting 'not a number' fails: the chains must not get that far on row 1.
  assert.deepEqual(kept("id = 2 AND id > 0 AND CONVERT(s, 'System.Int32') = 7", data, cols), [2]);
  assert.deepEqual(kept("id = 1 OR id = 5 OR CONVERT(s, 'System.Int32') = 7", data, cols), [1, 2]);
  assert.throws(() => kept("id > 0 AND id < 5 AND CONVERT(s, 'System.Int32') = 7", data, cols), /not a number/);
});

test('arithmetic chains group from the left and carry the type from step to step', () => {
  assert.deepEqual(values('id - 1 - 1 - 1'), [-2, -1, 0]);
  assert.deepEqual(values('qty * 4 % 5 * 2'), [4, 6, null]);
  assert.deepEqual(values('id + 100 / 10 / 2'), [6, 7, 8]);
  assert.deepEqual(values('ItemName + id + qty'), ['My Product A13', 'other22', null], 'text once a string is met');
  assert.deepEqual(values('id + qty + ItemName'), ['4My Product A', '4other', null], 'numbers until then');
  assert.deepEqual(values('id + null + qty'), [null, null, null]);
  assert.deepEqual(values('id = 1 = true'), [true, false, false]);
  assert.deepEqual(values('total IS NULL IS NULL'), [false, false, false]);
  assert.deepEqual(values("id IN (1, 3) = (ItemName LIKE 'my*') = true"), [true, true, null]);
  const overflow = '2147483000 + id + qty + 1000';
  const e = (() => {
    try {
      values(overflow);
    } catch (caught) {
      return caught;
    }
    return undefined;
  })();
  assert.ok(e instanceof ScriptError, 'an overflow in a later step is still an error');
  assert.match(e.message, new RegExp(`overflow.*at character ${overflow.lastIndexOf('+') + 1} of expression`));
});

test('chains of any length: tens of thousands of terms', () => {
  const ors = Array.from({ length: 20000 }, (_, i) => `id = ${i + 2}`).join(' OR ');
  assert.deepEqual(kept(ors), [2, 3]);
  assert.deepEqual(compileExpression(ors).columns, ['id']);
  const ands = Array.from({ length: 20000 }, (_, i) => `id > ${-i}`).join(' AND ');
  assert.deepEqual(kept(ands), [1, 2, 3]);
  assert.deepEqual(values(`id${' + 1 - 2 + 2'.repeat(10000)}`), [10001, 10002, 10003]);
  assert.deepEqual(values(`total${' * 1'.repeat(20000)}`), [1500.5, 20, null]);
  assert.deepEqual(values(`ItemName${' IS NOT NULL = true'.repeat(5000)}`), [true, true, true]);
  const dataset = Dataset.fromRows(columns, rows);
  assert.equal(calculate(Array(5000).fill('Sum(id)').join(' + '), undefined, dataset), 30000n);
  assert.throws(
    () => calculate(`${Array(5000).fill('Sum(id)').join(' + ')} + qty`, undefined, dataset),
    /column 'qty' is used outside one/,
  );
});

test(`parentheses, calls, IN lists, NOT and signs nest up to ${NESTING_LIMIT} levels; one more is an error where it opens`, () => {
  const L = NESTING_LIMIT;
  const at = { line: 3, column: 5, offset: 40 };
  const deep = (open: string, inner: string, close: string, levels: number) =>
    `${open.repeat(levels)}${inner}${close.repeat(levels)}`;
  // [nested to the limit, its values, one level more, where that level opens]
  const cases: [string, Value[], string, number][] = [
    [deep('(', 'id + 1', ')', L), [2, 3, 4], deep('(', 'id + 1', ')', L + 1), L],
    [
      deep('CONVERT(', 'id', ", 'System.Int64')", L),
      [1n, 2n, 3n],
      deep('CONVERT(', 'id', ", 'System.Int64')", L + 1),
      L * 8,
    ],
    [deep('IIF(true, ', 'id', ', 0)', L), [1, 2, 3], deep('IIF(true, ', 'id', ', 0)', L + 1), L * 10],
    [deep('ISNULL(', 'total', ', 0)', L), [1500.5, 20, 0], deep('ISNULL(', 'total', ', 0)', L + 1), L * 7],
    // An even number of NOTs and signs gives the value itself.
    [deep('NOT ', 'ok', '', L), [true, false, null], deep('NOT ', 'ok', '', L + 1), L * 4],
    [deep('- ', 'id', '', L), [1, 2, 3], deep('- ', 'id', '', L + 1), L * 2],
    [`id IN (${deep('(', '1', ')', L - 1)})`, [true, false, false], `id IN (${deep('(', '1', ')', L)})`, 7 + L - 1],
  ];
  for (const [atLimit, expected, tooDeep, offset] of cases) {
    assert.deepEqual(values(atLimit), expected, atLimit.slice(0, 20));
    assert.throws(
      () => compileExpression(tooDeep, at),
      (e: unknown) => {
        assert.ok(e instanceof ScriptError, String(e));
        assert.equal(e.kind, 'syntax');
        const m = new RegExp(
          `^nested too deeply \\(limit ${L}\\) \\(at character ${offset + 1} of expression '…?(.{1,80}?)…?'\\)$`,
        ).exec(e.message);
        assert.ok(m && tooDeep.includes(m[1]), e.message);
        assert.deepEqual(e.position, { line: 3, column: 5 + offset, offset: 40 + offset });
        return true;
      },
      tooDeep.slice(0, 20),
    );
  }
});

test('a long expression is quoted in messages only around the character in question', () => {
  const middle = `${'id + '.repeat(40)}nope${' + qty'.repeat(40)}`;
  const offset = middle.indexOf('nope');
  assert.throws(
    () => values(middle),
    (e: unknown) => {
      assert.ok(e instanceof ScriptError);
      assert.equal(
        e.message,
        `unknown column 'nope' (columns: id, ItemName, total, price, qty, big, when, ok, odd name]) (at character ${offset + 1} of expression '…${middle.slice(offset - 40, offset + 40)}…')`,
      );
      return true;
    },
  );
  const end = `${'id + '.repeat(40)}id)`;
  assert.throws(() => values(end), {
    message: `unexpected ')' (at character ${end.length} of expression '…${end.slice(-80)}')`,
  });
  const start = `)${' + id'.repeat(40)}`;
  assert.throws(() => values(start), {
    message: `expected a value, a column or '(' but found ')' (at character 1 of expression '${start.slice(0, 80)}…')`,
  });
});

test('an IN list of 200,000 values', () => {
  const list = Array.from({ length: 200000 }, (_, i) => i + 2).join(', ');
  assert.deepEqual(kept(`id IN (${list})`), [2, 3]);
  assert.deepEqual(compileExpression(`id IN (${list})`).columns, ['id']);
});
