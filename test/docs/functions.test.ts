import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { columnOf, DocPage, runOk } from './harness';

/**
 * docs/functions.md (generated from the registry) runs as written: the opening example on a row with
 * the fields it names, the high watermark example against a local `shop` answering GET /orders.
 */
const page = new DocPage('functions.md');
const { session } = tempSession(
  { 'items.json': JSON.stringify([{ name: 'lamp', qty: 2, price: 12.5 }]) },
  'docs-functions',
);
let shop: TestServer;
before(async () => {
  shop = await startHttpServer((req, res) =>
    sendJson(res, {
      items: [
        { id: 1, modified: '2024-03-01T10:00:00Z' },
        { id: 2, modified: '2024-03-02T09:30:00Z' },
      ],
    }),
  );
  await session.run(`%connection add shop ${shop.url}`);
});
after(async () => {
  await session.close();
  await shop.close();
});

test('the opening example prints a run id and time, and computes the columns it adds', async () => {
  const block = page.take('PRINT');
  await runOk(session, "SELECT * FROM DRIVE 'items.json' FORMAT JSON;", 'the items');
  const { said } = await runOk(session, block.code, `functions.md:${block.line}`);
  assert.match(said[0], /^run [0-9a-f-]{36} started at \d{4}-\d\d-\d\dT[\d:.]+Z$/);
  assert.match(said[1], /^\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\d/);
  assert.deepEqual(columnOf(session, 'code'), ['LAMP']);
  assert.deepEqual(columnOf(session, 'total').map(Number), [25]);
});

test('the high watermark example asks for orders since it and proposes the newest', async () => {
  const block = page.take('SELECT * FROM HTTP [shop]');
  const { said } = await runOk(session, block.code, `functions.md:${block.line}`);
  assert.equal(shop.requests.at(-1)?.url, '/orders?since=');
  assert.match(said[0], /^next: .*2024-03-02/);
});

test('every example of docs/functions.md ran', () => page.assertEveryExampleRan());
