import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { tempSession } from '../helpers/session';
import { describeError, type ScriptError } from '../../runtime/errors';
import { columnOf, DocPage, execute, runOk } from './harness';

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

test('a cell that does not convert: the error and the CONTINUE_ON_ERROR warning the page shows', async () => {
  const shown = (start: string) => page.blocks.find((b) => b.lang === '' && b.code.startsWith(start))!.code.trim();
  const { session: typing } = tempSession(
    { 'bad.csv': 'id,qty\n1,5\n2,abc\n', 'worse.csv': 'id,qty,n\n1,abc,zz\n2,x,3\n' },
    'docs-types',
  );
  try {
    await runOk(typing, "SELECT * FROM DRIVE 'bad.csv';", 'the rows');
    const failed = await execute(typing, 'APPLY SCHEMA (\n    int id\n    int qty\n);');
    assert.equal(describeError(failed.error as ScriptError), shown('APPLY SCHEMA at line 3, column 5'));
    await runOk(typing, "SELECT * FROM DRIVE 'worse.csv';", 'the rows');
    const { said } = await runOk(
      typing,
      'APPLY SCHEMA ( int id, int qty, int n ) CONTINUE_ON_ERROR;',
      'CONTINUE_ON_ERROR',
    );
    assert.deepEqual(said, [shown('APPLY SCHEMA: 3 values')]);
  } finally {
    await typing.close();
  }
});

test('every example of docs/types.md ran', () => page.assertEveryExampleRan());
