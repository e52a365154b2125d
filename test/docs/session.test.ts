import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Result } from '../../runtime/index';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { describeError } from '../../runtime/errors';
import { columnOf, DocPage, runOk } from './harness';

/**
 * docs/session.md's cell with magics runs (its host, shop.example.test, played by a local server),
 * and the magic errors its prose quotes are the ones a session gives.
 */
const page = new DocPage('session.md');
const { session } = tempSession({}, 'docs-session');
let shop: TestServer;
before(async () => {
  shop = await startHttpServer((req, res) => sendJson(res, { orders: [{ id: 1 }, { id: 2 }] }));
});
after(async () => {
  await session.close();
  await shop.close();
});

test('a connection with a bearer token and a header: the cell reads the orders with them', async () => {
  const block = page.take('%connection add shop https://shop.example.test/api', '');
  await runOk(
    session,
    block.code.replace('https://shop.example.test/api', `${shop.url}/api`),
    `session.md:${block.line}`,
  );
  assert.deepEqual(columnOf(session, 'id'), [1, 2]);
  const [call] = shop.requests;
  assert.equal(call.url, '/api/orders');
  assert.equal(call.headers.authorization, 'Bearer MY_TOKEN');
  assert.equal(call.headers['x-tenant'], 'acme');
});

/** The error a cell ends with, as front ends show it: placed, and the (masked) line it is on. */
async function failure(cell: string): Promise<{ text: string; source: string }> {
  let error: Extract<Result, { kind: 'error' }> | undefined;
  for await (const r of session.execute(cell) as AsyncIterable<Result>) if (r.kind === 'error') error = r;
  assert.ok(error, cell);
  return { text: describeError(error.error), source: error.source };
}

test('the magic errors the page quotes', async () => {
  const text = page.blocks.map((b) => b.before).join('');
  const quoted = (start: string) => {
    const m = new RegExp('`(' + start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '[^`]*)`').exec(text);
    assert.ok(m, start);
    return m[1].replace(/\s+/g, ' ');
  };
  assert.match((await failure('%help now')).text, new RegExp(`: ${quoted('%help takes no arguments')}$`));
  assert.equal((await failure('%reset\n%var remove nosuch')).text, quoted('%var at line 2'));
  const job = (await failure('%%job nightly writer --bogus\nPRINT 1;')).text;
  assert.ok(job.startsWith(quoted('%%job at line 1, column 22').replace(/…$/, '')), job);
  const masked = await failure('%var set --bogus abc secret');
  assert.ok(masked.source.includes(quoted('%var set --bogus *')), masked.source);
});
