import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { tempSession } from '../helpers/session';
import { columnOf, DocPage, runOk } from './harness';

/** docs/expressions.md's opening example runs on rows that have the columns it names. */
const page = new DocPage('expressions.md');
const { session } = tempSession(
  {
    'staff.json': JSON.stringify([
      { EmpID: 5, amount: 150, region: 'east', price: 400, qty: 3 },
      { EmpID: 5, amount: 120, region: 'Europe', price: 10, qty: 2 },
      { EmpID: 5, amount: 90, region: 'east', price: 1, qty: 1 },
      { EmpID: 7, amount: 300, region: 'east', price: 50, qty: 1 },
    ]),
  },
  'docs-expressions',
);
after(() => session.close());

test('the opening example filters, computes and prints as its expressions say', async () => {
  const block = page.take('APPLY FILTER');
  await runOk(session, "SELECT * FROM DRIVE 'staff.json' FORMAT JSON;", 'the rows');
  const { said } = await runOk(session, block.code, `expressions.md:${block.line}`);
  assert.deepEqual(columnOf(session, 'total'), [1200, 20, 50]);
  assert.deepEqual(columnOf(session, 'label'), ['expensive', 'dear', 'dear']);
  assert.deepEqual(said, ['Total for employee 5: 1220']);
});

test('every example of docs/expressions.md ran', () => page.assertEveryExampleRan());
