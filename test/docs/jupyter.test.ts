import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { tempSession } from '../helpers/session';
import { columnOf, DocPage, runOk } from './harness';

/** docs/jupyter.md's cell runs in a session beside the notebooks' data folder, as a cell would. */
const page = new DocPage('jupyter.md');
const { session, dir } = tempSession({}, 'docs-jupyter');
mkdirSync(join(dir, 'data'));
copyFileSync(resolve(__dirname, '../../../notebooks/data/orders.json'), join(dir, 'data/orders.json'));
after(() => session.close());

test('a cell: the orders read and filtered to the shipped ones', async () => {
  const block = page.take("SELECT * FROM DRIVE 'data/orders.json'");
  await runOk(session, block.code, `jupyter.md:${block.line}`);
  assert.deepEqual(columnOf(session, 'id'), ['1001', '1003', '1005']);
});

test('every example of docs/jupyter.md ran', () => page.assertEveryExampleRan());
