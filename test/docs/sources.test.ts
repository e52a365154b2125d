import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sendJson, startHttpServer, type Handler, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { columnOf, DocPage, runOk, statementsOf } from './harness';

/**
 * docs/sources.md's examples run on files of the shapes they name and against a local API that pages
 * as each paging example expects. A block of alternatives runs one statement at a time.
 */
const page = new DocPage('sources.md');
const today = new Date().toISOString().slice(0, 10).replace(/-/g, '');
const { session } = tempSession(
  {
    'data/orders.csv': 'id,status\n1,new\n2,paid\n',
    'export.txt': 'exported by shop\n2024-03-01\n# a comment\nid;status\n1;new\n',
    'landing/in/2024-01.json': JSON.stringify({ orders: [{ id: 1, items: [{ sku: 'a' }, { sku: 'b' }] }] }),
    'landing/in/2024-02.json': JSON.stringify({ orders: [{ id: 2, items: [{ sku: 'c' }] }] }),
    'feed.xml': '<feed><entry><id>1</id></entry><entry><id>2</id></entry></feed>',
    [`orders_${today}.csv`]: 'id\n1\n',
    'legacy.txt': '1 lamp 12.50\n2 door 80\n',
    'mainframe.dat':
      'id      name                amount    \n00000001lamp                12.50     \n00000002door                80.00     \n',
  },
  'docs-sources',
);

const PEOPLE = Array.from({ length: 150 }, (_, i) => ({ id: i + 1 }));
/** The local API of the examples; `seen` are the requests, in order. */
const api: Handler = (req, res) => {
  const url = new URL(req.url, 'http://x');
  const q = (name: string) => url.searchParams.get(name);
  switch (url.pathname) {
    case '/orders':
      if (q('since') === null)
        return sendJson(res, {
          data: { orders: [{ id: 1, doc: { lines: [{ sku: 'a' }, { sku: 'b' }] }, content: 'code;qty\nx;1\ny;2' }] },
        });
      return sendJson(res, { orders: (q('page') ?? '1') === '1' ? [{ id: 1 }, { id: 2 }] : [] });
    case '/search':
      return sendJson(res, [
        { id: 7, query: (JSON.parse(req.body) as { query: string }).query, key: req.headers['x-api-key'] },
      ]);
    case '/people': {
      const skip = Number(q('skip') ?? 0);
      return sendJson(res, { items: PEOPLE.slice(skip, skip + Number(q('limit'))) });
    }
    case '/events':
      return q('cursor') === 'c2'
        ? sendJson(res, { data: [{ id: 3 }], meta: {} })
        : sendJson(res, { data: [{ id: 1 }, { id: 2 }], meta: { next_cursor: 'c2' } });
    case '/repos/x/y/issues':
      return q('page') === '2'
        ? sendJson(res, [{ number: 2 }])
        : sendJson(res, [{ number: 1 }], 200, { link: '</repos/x/y/issues?page=2>; rel="next"' });
  }
  sendJson(res, { error: 'no such path' }, 404);
};

let server: TestServer;
before(async () => {
  server = await startHttpServer(api);
  for (const name of ['api', 'shop', 'gh']) await session.run(`%connection add ${name} ${server.url}`);
  await session.run(`%connection add landing --drive landing`);
  await session.run(`%var set shopkey k-123`);
});
after(async () => {
  await session.close();
  await server.close();
});

test('SELECT FROM DRIVE: each example reads its file', async () => {
  const block = page.take("SELECT * FROM DRIVE 'data/orders.csv';");
  const counts: number[] = [];
  for (const statement of statementsOf(block.code)) {
    await runOk(session, statement, `sources.md:${block.line}`);
    counts.push(session.dataset.rowCount);
  }
  assert.deepEqual(counts, [2, 1, 3, 2, 1]);
});

test('CSV options: space-separated and fixed-width files', async () => {
  const block = page.take("SELECT * FROM DRIVE 'legacy.txt'");
  const [legacy, mainframe] = statementsOf(block.code);
  await runOk(session, legacy, `sources.md:${block.line}`);
  assert.deepEqual(session.dataset.rows()[0], ['1', 'lamp', '12.50']);
  await runOk(session, mainframe, `sources.md:${block.line}`);
  assert.deepEqual(session.dataset.rows()[1], ['00000002', 'door', '80.00']);
});

test('APPLY TX: the payload becomes rows, a document column expands, a text column reads as CSV', async () => {
  const block = page.take('SELECT * FROM HTTP [api] (GET /orders);');
  await runOk(session, block.code, `sources.md:${block.line}`);
  assert.deepEqual(columnOf(session, 'code'), ['x', 'y', 'x', 'y']);
  assert.deepEqual(columnOf(session, 'sku'), ['a', 'a', 'b', 'b']);
});

test('SELECT FROM HTTP: a paged read with a state bag value, and a POST with a header and payload', async () => {
  const block = page.take('SELECT * FROM HTTP [shop] (GET /orders?since');
  const [paged, search] = statementsOf(block.code);
  await runOk(session, paged, `sources.md:${block.line}`);
  assert.deepEqual(columnOf(session, 'id'), [1, 2]);
  await runOk(session, search, `sources.md:${block.line}`);
  assert.deepEqual(JSON.parse(String(columnOf(session, 'payload')[0])), [{ id: 7, query: 'open', key: 'k-123' }]);
});

test('Paging: offset, token and link read every page', async () => {
  const block = page.take('SELECT * FROM HTTP [api] (GET /people?limit=100)');
  const counts: number[] = [];
  for (const statement of statementsOf(block.code)) {
    await runOk(session, statement, `sources.md:${block.line}`);
    counts.push(session.dataset.rowCount);
  }
  assert.deepEqual(counts, [150, 3, 2]);
});

test('every example of docs/sources.md ran', () => page.assertEveryExampleRan());
