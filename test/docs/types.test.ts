import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { tempSession } from '../helpers/session';
import { columnOf, DocPage, runOk } from './harness';

/** docs/types.md's APPLY SCHEMA example types a CSV file as the text after it says. */
const page = new DocPage('types.md');
const { session } = tempSession(
  { 'orders.csv': 'id,qty,price,placed,note\n1,2,9.50,2024-03-01 10:00:00,a\n2,,4.25,2024-03-02 11:30:00,b\n' },
  'docs-types',
);
after(() => session.close());

test('APPLY SCHEMA: blanks take the default, total is computed, one batch id, other columns dropped', async () => {
  const block = page.take("SELECT * FROM DRIVE 'orders.csv';\nAPPLY SCHEMA (");
  await runOk(session, block.code, `types.md:${block.line}`);
  assert.deepEqual(
    session.dataset.columns.map((c) => c.name),
    ['id', 'qty', 'price', 'placed', 'batch', 'total'],
  );
  assert.deepEqual(columnOf(session, 'qty'), [2, 0]);
  assert.deepEqual(columnOf(session, 'total').map(Number), [19, 0]);
  const [a, b] = columnOf(session, 'batch');
  assert.equal(a, b, 'one guid for all rows');
  assert.match(String(a), /^[0-9a-f-]{36}$/);
});

test('every example of docs/types.md ran', () => page.assertEveryExampleRan());
