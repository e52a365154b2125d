import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Dataset } from '../../runtime/index';
import type { Session } from '../../runtime/session';
import { sendJson, startHttpServer, type Handler, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

const servers: TestServer[] = [];
const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

/** A customer API: /customers/N/orders answers N orders (none for 3), /fail answers 500. */
const api: Handler = (req, res) => {
  const m = /^\/customers\/(\d+)\/orders/.exec(req.url);
  if (m) {
    const n = Number(m[1]) === 3 ? 0 : Number(m[1]);
    return sendJson(res, {
      orders: Array.from({ length: n }, (_, i) => ({ order: `${m[1]}-${i + 1}`, total: 10 * (i + 1) })),
    });
  }
  // Paged: customer N has N + 1 items (none for 3), two a page; page 2 of customer 9 fails.
  const paged = /^\/history\/(\d+)(?:\?page=(\d+))?$/.exec(req.url);
  if (paged) {
    const [id, page] = [Number(paged[1]), Number(paged[2] ?? 1)];
    if (id === 9 && page === 2) return sendJson(res, { error: 'page lost' }, 500);
    const items = Array.from({ length: id === 3 ? 0 : id + 1 }, (_, i) => ({ item: `${id}-${i + 1}` }));
    return sendJson(res, { items: items.slice((page - 1) * 2, page * 2) });
  }
  if (req.url.startsWith('/fail')) return sendJson(res, { error: 'boom' }, 500);
  if (req.url.startsWith('/rate')) return sendJson(res, { rate: 1.1, currency: 'EUR' });
  if (req.url.startsWith('/echo-text')) {
    // A plain-text error page listing the request's headers, as some servers and proxies answer.
    res.writeHead(401, { 'content-type': 'text/plain' });
    res.end(
      Object.entries(req.headers)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join('\n'),
    );
    return;
  }
  if (req.url.startsWith('/echo')) return sendJson(res, { error: 'bad request', headers: req.headers }, 400);
  if (req.url.startsWith('/login'))
    return sendJson(res, { ok: true }, 200, { 'set-cookie': 'session=COOKIE-SECRET-2; HttpOnly', 'x-request': 'r-7' });
  sendJson(res, { ok: true });
};

async function setup(): Promise<{ server: TestServer; session: Session }> {
  const server = await startHttpServer(api);
  servers.push(server);
  const { session } = tempSession({}, 'apply-http');
  sessions.push(session);
  await session.run(`%connection add crm ${server.url}`);
  session.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'name', type: { base: 'string' } },
      ],
      [
        [1, 'ann'],
        [2, 'bob'],
        [3, 'cy'],
      ],
    ),
  );
  return { server, session };
}

test("PROCESSING 'left join' and 'inner join' call once per row and repeat each row per response row", async () => {
  const { server, session } = await setup();
  const input = session.dataset;
  await session.run(
    `APPLY HTTP [crm] (GET /customers/{{id}}/orders?call=#rndint(0, 1000000)) APPLY TX '$.orders' WITH PROCESSING 'left join';`,
  );
  assert.deepEqual(
    session.dataset.columns.map((c) => c.name),
    ['id', 'name', 'order', 'total'],
  );
  assert.deepEqual(
    session.dataset.rows().map((r) => [r[0], r[2]]),
    [
      [1, '1-1'],
      [2, '2-1'],
      [2, '2-2'],
      [3, null],
    ],
  );
  assert.equal(server.requests.length, 3);
  session.setDataset(input);
  await session.run(
    `APPLY HTTP [crm] (GET /customers/{{id}}/orders) APPLY TX '$.orders' WITH PROCESSING 'inner join' WHEN 'id <> 1';`,
  );
  assert.deepEqual(
    session.dataset.rows().map((r) => [r[0], r[2]]),
    [
      [1, null],
      [2, '2-1'],
      [2, '2-2'],
    ],
    'inner join drops the row with no orders; WHEN keeps the row it did not call',
  );
  assert.equal(server.requests.length, 5, 'WHEN skipped the call for id 1');
});

test("PROCESSING 'continue', 'replace' and 'enhance' call once", async () => {
  const { server, session } = await setup();
  await session.run(`APPLY HTTP [crm] (POST /audit) WITH PAYLOAD ({"first": "{{name}}"});`);
  assert.equal(session.dataset.rowCount, 3, 'continue keeps the dataset');
  assert.equal(server.requests[0].body, '{"first": "ann"}', 'one call, fields from the first row');
  await session.run(`APPLY HTTP [crm] (GET /rate) APPLY TX '$' WITH PROCESSING 'enhance';`);
  assert.deepEqual(session.dataset.rows()[2], [3, 'cy', 1.1, 'EUR']);
  await session.run(
    `APPLY HTTP [crm] (GET /customers/2/orders) APPLY TX '$.orders' WITH PROCESSING 'replace' SHIFT_ROWS 1;`,
  );
  assert.deepEqual(session.dataset.rows(), [['2-2', 20]]);
  assert.equal(server.requests.length, 3);
});

test('PAGING (reference A): each call reads every page as SELECT FROM HTTP does, per row in the join modes', async () => {
  const { server, session } = await setup();
  const input = session.dataset;
  await session.run(
    `APPLY HTTP [crm] (GET /history/{{id}}?page=1) APPLY TX '$.items' WITH PROCESSING 'left join' PAGING 'page';`,
  );
  assert.deepEqual(session.dataset.rows(), [
    [1, 'ann', '1-1'],
    [1, 'ann', '1-2'],
    [2, 'bob', '2-1'],
    [2, 'bob', '2-2'],
    [2, 'bob', '2-3'],
    [3, 'cy', null],
  ]);
  assert.deepEqual(
    server.requests.map((r) => r.url),
    [
      '/history/1?page=1',
      '/history/1?page=2',
      '/history/2?page=1',
      '/history/2?page=2',
      '/history/2?page=3',
      '/history/3?page=1',
    ],
  );
  session.setDataset(input);
  await session.run(`APPLY HTTP [crm] (GET /history/4) APPLY TX 'items' WITH PROCESSING 'replace' PAGING 'page';`);
  assert.deepEqual(session.dataset.rows(), [['4-1'], ['4-2'], ['4-3'], ['4-4'], ['4-5']]);
  // A page failing after others ends that call's paging; the pages before it are kept.
  session.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[9]]));
  await assert.rejects(
    session.run(`APPLY HTTP [crm] (GET /history/{{id}}) APPLY TX 'items' WITH PROCESSING 'left join' PAGING 'page';`),
    /HTTP 500 Internal Server Error from GET http:\/\/127\.0\.0\.1:\d+\/history\/9\?page=2/,
  );
  const out = await session.run(
    `APPLY HTTP [crm] (GET /history/{{id}}) APPLY TX 'items' WITH PROCESSING 'left join' PAGING 'page' CONTINUE_ON_HTTPERROR '500';`,
  );
  assert.deepEqual(session.dataset.rows(), [
    [9, '9-1'],
    [9, '9-2'],
  ]);
  assert.ok(out.some((r) => r.kind === 'warning' && /1 of the calls failed .*page=2/.test(r.text)));
  // A paging mistake fails before any call, whatever CONTINUE_ON_ERRORS says.
  const calls = server.requests.length;
  await assert.rejects(
    session.run(
      `APPLY HTTP [crm] (GET /history/{{id}}) WITH PROCESSING 'left join' PAGING 'token' CONTINUE_ON_ERRORS;`,
    ),
    /PAGING 'token' needs PAGING_PATH/,
  );
  assert.equal(server.requests.length, calls);
});

test('a failing call stops the statement unless CONTINUE_ON_ERRORS or CONTINUE_ON_HTTPERROR lets it through', async () => {
  const { session } = await setup();
  await assert.rejects(
    session.run(`APPLY HTTP [crm] (GET /fail/{{id}}) WITH PROCESSING 'left join';`),
    /HTTP 500 Internal Server Error from GET http:\/\/127\.0\.0\.1:\d+\/fail\/1: \{"error":"boom"\}/,
  );
  assert.equal(session.dataset.rowCount, 3, 'the dataset stays as it was');
  const out = await session.run(
    `APPLY HTTP [crm] (GET /fail/{{id}}) WITH PROCESSING 'left join' CONTINUE_ON_HTTPERROR '500';`,
  );
  assert.equal(session.dataset.rowCount, 3);
  assert.ok(out.some((r) => r.kind === 'warning' && /3 of the calls failed/.test(r.text)));
  await session.run(`APPLY HTTP (GET http://127.0.0.1:9/x) WITH PROCESSING 'left join' CONTINUE_ON_ERRORS;`);
  assert.equal(session.dataset.rowCount, 3);
});

test('TRACE INTO records one row per call in a database table, secrets masked, the body only WITH_PAYLOAD', async () => {
  const { session } = await setup();
  await session.run(
    `%connection add crm2 ${servers[servers.length - 1].url} --bearer TRACE-SECRET-1 --header "X-Tenant: acme"\n%connection add tr sqlite:trace.db`,
  );
  await session.run(
    `APPLY HTTP [crm2] (GET /customers/{{id}}/orders) APPLY TX '$.orders' WITH PROCESSING 'left join' TRACE INTO [tr] TABLE 'calls' WITH_PAYLOAD ADD_TRACKING_FIELDS;`,
  );
  await session.run(
    `SELECT * FROM DB [tr] (SELECT method, url, status, request_headers, response_body, execution_id, pipeline FROM calls ORDER BY url);`,
  );
  const rows = session.dataset.rows();
  assert.equal(rows.length, 3);
  assert.deepEqual(
    rows.map((r) => [r[0], String(r[1]).replace(/^http:\/\/127\.0\.0\.1:\d+/, ''), r[2]]),
    [
      ['GET', '/customers/1/orders', 200],
      ['GET', '/customers/2/orders', 200],
      ['GET', '/customers/3/orders', 200],
    ],
  );
  const headers = JSON.parse(String(rows[0][3])) as Record<string, string>;
  assert.equal(headers.authorization, '****');
  assert.equal(headers['X-Tenant'] ?? headers['x-tenant'], '****', 'a header of the connection is masked too');
  assert.doesNotMatch(JSON.stringify(rows), /TRACE-SECRET-1|acme/);
  assert.match(String(rows[0][4]), /"order":"1-1"/, 'WITH_PAYLOAD keeps the response body');
  assert.match(String(rows[0][5]), /^\d+$/);
  assert.equal(rows[0][6], 'repl');
  await session.run(`APPLY HTTP [crm2] (GET /rate) WITH TRACE INTO [tr] TABLE 'calls' TRUNCATE;`);
  await session.run(`SELECT * FROM DB [tr] (SELECT url, response_body FROM calls);`);
  assert.equal(session.dataset.rowCount, 1, 'TRUNCATE empties the table first');
  assert.equal(session.dataset.rows()[0][1], null, 'no body without WITH_PAYLOAD');
});

test('TRACE INTO masks the values of request headers named …-key given in HEADERS, not Idempotency-Key', async () => {
  const { session } = await setup();
  await session.run(`%connection add tr sqlite:trace.db`);
  await session.run(
    `APPLY HTTP [crm] (GET /rate) HEADERS '{"x-functions-key": "KEYSECRET1", "Ocp-Apim-Subscription-Key": "KEYSECRET2", "Idempotency-Key": "k-1"}' WITH TRACE INTO [tr] TABLE 'calls';`,
  );
  await session.run(`SELECT * FROM DB [tr] (SELECT request_headers FROM calls);`);
  const headers = JSON.parse(String(session.dataset.rows()[0][0])) as Record<string, string>;
  const named = (name: string) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  assert.equal(named('x-functions-key'), '****');
  assert.equal(named('ocp-apim-subscription-key'), '****');
  assert.equal(named('idempotency-key'), 'k-1');
});

test("TRACE INTO masks an answer's secret headers (a session cookie) and keeps the others", async () => {
  const { session } = await setup();
  await session.run(`%connection add tr sqlite:trace.db`);
  await session.run(`APPLY HTTP [crm] (POST /login) WITH PROCESSING 'continue' TRACE INTO [tr] TABLE 'calls';`);
  await session.run(`SELECT * FROM DB [tr] (SELECT response_headers FROM calls);`);
  const headers = JSON.parse(String(session.dataset.rows()[0][0])) as Record<string, string>;
  assert.equal(headers['set-cookie'], '****');
  assert.equal(headers['x-request'], 'r-7');
});

test("an error quoting the answer's body masks the call's secrets in it, whatever the headers' names and the body's format", async () => {
  const { server, session } = await setup();
  await session.run(
    `%connection add plain ${server.url} --basic ann:BASIC-SECRET-6 --header "X-Tenant: TENANT-SECRET-7"\n` +
      `%connection add keyed ${server.url} --apikey "Subscription: KEY-SECRET-8"`,
  );
  const encoded = Buffer.from('ann:BASIC-SECRET-6').toString('base64');
  for (const [connection, secrets] of [
    ['plain', ['BASIC-SECRET-6', encoded, 'TENANT-SECRET-7']],
    ['keyed', ['KEY-SECRET-8']],
  ] as const)
    await assert.rejects(session.run(`APPLY HTTP [${connection}] (GET /echo-text);`), (e: Error) => {
      assert.match(
        e.message,
        /^HTTP 401 Unauthorized from GET http:\/\/127\.0\.0\.1:\d+\/echo-text: .*user-agent: sqlcdc/,
      );
      for (const secret of secrets) assert.ok(!e.message.includes(secret), `${secret} in: ${e.message}`);
      return true;
    });
  await assert.rejects(
    session.run(`APPLY HTTP (GET ${server.url.replace('//', '//ann:URL-SECRET-9@')}/echo-text);`),
    (e: Error) => !e.message.includes(Buffer.from('ann:URL-SECRET-9').toString('base64')) && /\*\*\*\*/.test(e.message),
  );
});

test("TRACE INTO masks the call's secrets in the headers it records and in an answer echoing them", async () => {
  const { server, session } = await setup();
  await session.run(
    `%connection add keyed ${server.url} --apikey "Subscription: KEY-SECRET-10"\n%connection add tr sqlite:trace.db`,
  );
  await session.run(
    `APPLY HTTP [keyed] (GET /echo-text) WITH PROCESSING 'continue' CONTINUE_ON_ERRORS TRACE INTO [tr] TABLE 'calls' WITH_PAYLOAD;`,
  );
  await session.run(`SELECT * FROM DB [tr] (SELECT request_headers, response_body FROM calls);`);
  const [headers, body] = session.dataset.rows()[0].map(String);
  assert.equal((JSON.parse(headers) as Record<string, string>).Subscription, '****');
  assert.match(body, /^subscription: \*\*\*\*$/m);
  assert.ok(!`${headers}${body}`.includes('KEY-SECRET-10'));
});

test("an error quoting the answer's body masks secret-named values in it: a server echoing the request's Authorization", async () => {
  const { server, session } = await setup();
  await session.run(`%connection add echoed ${server.url} --bearer ECHOED-SECRET-3`);
  await assert.rejects(session.run(`APPLY HTTP [echoed] (GET /echo);`), (e: Error) => {
    assert.match(e.message, /^HTTP 400 Bad Request from GET http:\/\/127\.0\.0\.1:\d+\/echo: \{"error":"bad request",/);
    assert.match(e.message, /"authorization":"\*\*\*\*"/);
    assert.doesNotMatch(e.message, /ECHOED-SECRET-3/);
    return true;
  });
});
