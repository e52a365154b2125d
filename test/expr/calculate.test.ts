import assert from 'node:assert/strict';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { Dataset } from '../../runtime/dataset/dataset';
import { calculate } from '../../runtime/expr';

const employees = Dataset.fromRows(
  [
    { name: 'EmpID', type: { base: 'int' } },
    { name: 'Total', type: { base: 'int' } },
    { name: 'Rate', type: { base: 'decimal' } },
    { name: 'Score', type: { base: 'double' } },
    { name: 'Name', type: { base: 'string' } },
  ],
  [
    [5, 10, new Decimal('1.25'), 2, 'b'],
    [5, 20, new Decimal('2.50'), 4, 'A'],
    [6, 7, null, 6, 'c'],
    [7, null, new Decimal('0.10'), null, null],
  ],
);

test("#data.calc('Sum(Total)', 'EmpID = 5') sums over the matching rows", () => {
  assert.equal(calculate('Sum(Total)', 'EmpID = 5', employees), 30n);
  assert.equal(calculate('Sum(Total)', undefined, employees), 37n);
  assert.equal(calculate('Sum(Total)', '', employees), 37n);
});

test('every aggregate, typed as .NET types it', () => {
  assert.equal(calculate('Avg(Total)', undefined, employees), 12, 'int average truncates');
  assert.equal(calculate('Min(Total)', undefined, employees), 7);
  assert.equal(calculate('Max(Name)', undefined, employees), 'c');
  assert.equal(calculate('Min(Name)', undefined, employees), 'A');
  assert.equal(calculate('Count(Total)', undefined, employees), 3);
  assert.equal(String(calculate('Sum(Rate)', undefined, employees)), '3.85');
  assert.equal(String(calculate('Avg(Rate)', undefined, employees)), '1.2833333333333333333333333333');
  assert.equal(calculate('Avg(Score)', undefined, employees), 4);
  assert.equal(calculate('Var(Score)', undefined, employees), 4);
  assert.equal(calculate('StDev(Score)', undefined, employees), 2);
  assert.equal(calculate('StDev(Score)', 'EmpID = 6', employees), null, 'one value has no sample deviation');
});

test('aggregates combine in one expression', () => {
  assert.equal(calculate('Sum(Score) / Count(Score)', undefined, employees), 4);
  assert.equal(calculate('Max(Total) - Min(Total)', 'EmpID <> 7', employees), 13);
});

test('an empty set gives null', () => {
  for (const agg of ['Sum(Total)', 'Avg(Total)', 'Min(Name)', 'Max(Rate)', 'Count(Total)', 'Var(Score)']) {
    assert.equal(calculate(agg, 'EmpID = 99', employees), null, agg);
  }
  assert.equal(calculate('Sum(Total)', undefined, Dataset.fromRows(employees.columns, [])), null);
});

test('errors: a column outside an aggregate, a bad filter, an unknown column', () => {
  assert.throws(() => calculate('Total + 1', undefined, employees), /needs an aggregate such as Sum\(Total\)/);
  assert.throws(() => calculate('Sum(Total)', 'EmpID', employees), /a filter must be a condition/);
  assert.throws(() => calculate('Sum(Nope)', undefined, employees), /unknown column 'Nope'/);
  assert.throws(() => calculate('Sum(Name)', undefined, employees), /SUM needs a numeric column, not string/);
});
