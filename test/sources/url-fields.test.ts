import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Dataset } from '../../runtime/index';
import type { Session } from '../../runtime/session';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

/**
 * `{{field}}` and `{{@variable}}` values in the URL of SELECT/APPLY HTTP and PUSH INTO HTTP are
 * percent-encoded as one component (docs/sources.md "Fields in the URL"); the server records the
 * request line as it was sent.
 */

const servers: TestServer[] = [];
const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

/** Each value and how it must arrive, in a path segment and in a query value alike. */
const VALUES: [string, string][] = [
  ['a&b=c', 'a%26b%3Dc'],
  ['x+y', 'x%2By'],
  ['frag#ment', 'frag%23ment'],
  ['dir/sub', 'dir%2Fsub'],
  ['what?', 'what%3F'],
  ['two words', 'two%20words'],
  ['100%', '100%25'],
  ['cursor%2F%3D', 'cursor%2F%3D'],
  ['naïve €', 'na%C3%AFve%20%E2%82%AC'],
  ['../admin', '..%2Fadmin'],
  // A dot segment would change the path's shape (/items/.. is /): sent encoded, and not resolved.
  ['.', '%2E'],
  ['..', '%2E%2E'],
];

async function setup(): Promise<{ server: TestServer; session: Session }> {
  const server = await startHttpServer((_req, res) => sendJson(res, { ok: true }));
  servers.push(server);
  const { session } = tempSession({}, 'url-fields');
  sessions.push(session);
  await session.run(`%connection add api ${server.url}/api`);
  session.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'v', type: { base: 'string' } },
      ],
      VALUES.map(([v], i) => [i + 1, v]),
    ),
  );
  return { server, session };
}

const expected = VALUES.map(([, e]) => `/api/items/${e}?q=${e}&n=1`);

test('APPLY HTTP: a field in a path segment and in a query value arrives encoded as one component', async () => {
  const { server, session } = await setup();
  await session.run(`APPLY HTTP [api] (GET /items/{{v}}?q={{v}}&n=1) WITH PROCESSING 'left join';`);
  assert.deepEqual(
    server.requests.map((r) => r.url),
    expected,
  );
});

test('PUSH INTO HTTP: a field in a path segment and in a query value arrives encoded as one component', async () => {
  const { server, session } = await setup();
  await session.run(`PUSH INTO HTTP [api] ON_UPSERT (PUT /items/{{v}}?q={{v}}&n=1) PAYLOAD ({"id": {{id}}});`);
  assert.deepEqual(
    server.requests.map((r) => r.url),
    expected,
  );
});

test('SELECT FROM HTTP: a variable in a path segment and in a query value arrives encoded as one component', async () => {
  const { server, session } = await setup();
  for (const [v] of VALUES) {
    session.variables.set('v', v);
    await session.run(`SELECT * FROM HTTP [api] (GET /items/{{@v}}?q={{@v}}&n=1);`);
  }
  assert.deepEqual(
    server.requests.map((r) => r.url),
    expected,
  );
});

test('function results are taken as written: #urlencode is not encoded twice, #trim splices a path as it is', async () => {
  const { server, session } = await setup();
  await session.run(
    `APPLY HTTP [api] (GET /items/#trim({{v}})?q=#urlencode({{v}})) WITH PROCESSING 'left join' WHEN 'id = 1 OR id = 4 OR id = 7';`,
  );
  assert.deepEqual(
    server.requests.map((r) => r.url),
    ['/api/items/a&b=c?q=a%26b%3Dc', '/api/items/dir/sub?q=dir%2Fsub', '/api/items/100%?q=100%25'],
  );
});

test('a variable holding the whole URL, or its base, is taken as written (@webhookurl, @baseurl)', async () => {
  const { server, session } = await setup();
  session.variables.set('whole', `${server.url}/job/push?guid=a%2Bb&x=1`);
  session.variables.set('baseurl', `${server.url}/v1?key=k/1`);
  session.variables.set('host', `127.0.0.1:${server.port}`);
  session.variables.set('v', 'a b/c');
  await session.run(
    `PUSH INTO HTTP ON_UPSERT (POST {{@whole}}) PAYLOAD ([@concatjson({"id": {{id}}})]) WITH BATCH 100;`,
  );
  await session.run(`SELECT * FROM HTTP (POST {{@whole}}&rootpath=$.items) WITH PAYLOAD ([]);`);
  await session.run(`SELECT * FROM HTTP (GET {{@baseurl}}&page={{@v}});`);
  await session.run(`SELECT * FROM HTTP (GET http://{{@host}}/items/{{@v}});`);
  assert.deepEqual(
    server.requests.map((r) => r.url),
    [
      '/job/push?guid=a%2Bb&x=1',
      '/job/push?guid=a%2Bb&x=1&rootpath=$.items',
      '/v1?key=k/1&page=a%20b/c',
      '/items/a%20b%2Fc',
    ],
  );
});

test('an error names the path as sent: a call to /items/%2E%2E is not shown as a call to /', async () => {
  const server = await startHttpServer((_req, res) => sendJson(res, { error: 'no such item' }, 404));
  servers.push(server);
  const { session } = tempSession({}, 'url-fields-error');
  sessions.push(session);
  await session.run(`%connection add api ${server.url}/api`);
  session.variables.set('v', '..');
  await assert.rejects(
    session.run(`SELECT * FROM HTTP [api] (GET /items/{{@v}}?n=1);`),
    /HTTP 404 Not Found from GET http:\/\/127\.0\.0\.1:\d+\/api\/items\/%2E%2E\?n=1/,
  );
  assert.deepEqual(
    server.requests.map((r) => r.url),
    ['/api/items/%2E%2E?n=1'],
  );
});
