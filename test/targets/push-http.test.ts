import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, test } from 'node:test';
import { Dataset, type Result } from '../../runtime/index';
import type { Session } from '../../runtime/session';
import { startHttpServer, type Handler, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

const servers: TestServer[] = [];
const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

async function setup(handler: Handler, rows = 5): Promise<{ server: TestServer; session: Session }> {
  const server = await startHttpServer(handler, { maxRequests: 20_000 });
  servers.push(server);
  const { session } = tempSession({}, 'push');
  sessions.push(session);
  await session.run(`%connection add api ${server.url}`);
  session.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'name', type: { base: 'string' } },
      ],
      Array.from({ length: rows }, (_, i) => [i + 1, `item ${i + 1}`]),
    ),
  );
  return { server, session };
}

function messages(results: Result[]): string[] {
  return results.flatMap((r) => (r.kind === 'message' ? [r.text] : []));
}

/** Answers 200 at once and returns nothing (a Handler may return a promise): the handlers that end with it need not await it. */
function ok(_req: unknown, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok": true}');
}

test('BATCH 1: one call per row, fields and functions evaluated per call, an idempotency key per call', async () => {
  const { server, session } = await setup(ok, 3);
  const out = await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /items/{{id}}) PAYLOAD ({"name": "{{name}}", "call": "#rndguid()"});`,
  );
  assert.deepEqual(
    server.requests.map((r) => [r.method, r.url]),
    [
      ['POST', '/items/1'],
      ['POST', '/items/2'],
      ['POST', '/items/3'],
    ],
  );
  const bodies = server.requests.map((r) => JSON.parse(r.body) as { name: string; call: string });
  assert.deepEqual(
    bodies.map((b) => b.name),
    ['item 1', 'item 2', 'item 3'],
  );
  assert.equal(new Set(bodies.map((b) => b.call)).size, 3, '#rndguid() is evaluated per call (spec 4.4)');
  assert.equal(server.requests[0].headers['content-type'], 'application/json');
  const keys = server.requests.map((r) => r.headers['idempotency-key']);
  assert.equal(new Set(keys).size, 3);
  assert.match(String(keys[0]), /^\d+-[0-9a-f]{8}-upsert-1$/);
  assert.deepEqual(messages(out), [
    'PUSH INTO HTTP: 3 calls made, 3 rows sent, 0 retries, 0 failures let through by CONTINUE_ON_HTTP',
  ]);
  assert.equal(session.dataset.rowCount, 3, 'the dataset stays as it was');
});

test('Idempotency-Keys: the same batch to the same target repeats its key; another target never shares one', async () => {
  const { server, session } = await setup(ok, 2);
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /a/{{id}}) PAYLOAD ({"id": {{id}}});
     PUSH INTO HTTP [api] ON_UPSERT (POST /b/{{id}}) PAYLOAD ({"id": {{id}}});
     PUSH INTO HTTP [api] ON_UPSERT (POST /a/{{id}}) PAYLOAD ({"id": {{id}}});`,
  );
  const keys = server.requests.map((r) => String(r.headers['idempotency-key']));
  assert.equal(keys.length, 6);
  const [a, b, again] = [keys.slice(0, 2), keys.slice(2, 4), keys.slice(4)];
  assert.deepEqual(again, a, 'a push of the same log to the same target sends the same keys');
  assert.equal(new Set([...a, ...b]).size, 4, 'no key is sent to two targets');
});

test('BATCH N with @concatjson: one call per N rows; BATCH N without an array operator, or an operator at BATCH 1, is refused before any call', async () => {
  const { server, session } = await setup(ok, 7);
  await session.run(`PUSH INTO HTTP [api] ON_UPSERT (PUT /bulk) PAYLOAD ([@concatjson({"id": {{id}}})]) WITH BATCH 3;`);
  assert.deepEqual(
    server.requests.map((r) => (JSON.parse(r.body) as { id: number }[]).map((o) => o.id)),
    [[1, 2, 3], [4, 5, 6], [7]],
  );
  await assert.rejects(
    session.run(`PUSH INTO HTTP [api] ON_UPSERT (PUT /bulk) PAYLOAD ({"id": {{id}}}) WITH BATCH 3;`),
    /BATCH 3 needs a payload with an array operator/,
  );
  // Spec 8: array operators and @sql operators need N greater than 1 (BATCH 1 is the default).
  for (const payload of [
    '[@concatjson({"id": {{id}}})]',
    '[@concatjsonarr([{{id}}])]',
    '<r>@concatxml(<i>{{id}}</i>)</r>',
    '@sql(insert into t values ({{id}}))',
    '@sql_union(select {{id}} as id)',
    '@sql_unionall(select {{id}} as id)',
    '@sql_concat(select {{id}} as id)',
  ])
    for (const batch of ['', ' WITH BATCH 1'])
      await assert.rejects(
        session.run(`PUSH INTO HTTP [api] ON_UPSERT (PUT /bulk) PAYLOAD (${payload})${batch};`),
        /needs WITH BATCH N greater than 1/,
        payload + batch,
      );
  assert.equal(server.requests.length, 3, 'the refused pushes sent nothing');
});

test('ZIP COLUMN makes each row a complete batch document, which PUSH with BATCH 1 sends one call a batch (spec 4.2 ZIP)', async () => {
  const { server, session } = await setup(ok, 5);
  await session.run(`ADD COLUMN 'doc' FORMAT JSON INCLUDE 'id';
    ZIP COLUMN 'doc' FORMAT JSON BATCH 2;
    PUSH INTO HTTP [api] ON_UPSERT (POST /bulk) CONTENT_TYPE 'application/json' PAYLOAD ({{doc}}) BATCH 1;`);
  assert.deepEqual(
    server.requests.map((r) => JSON.parse(r.body) as unknown),
    [[{ id: 1 }, { id: 2 }], [{ id: 3 }, { id: 4 }], [{ id: 5 }]],
  );
  assert.deepEqual(
    server.requests.map((r) => r.headers['content-type']),
    ['application/json', 'application/json', 'application/json'],
  );
});

test('a status outside 2xx stops the push with the status, the request and the start of the body; CONTINUE_ON_HTTP lets listed ones through', async () => {
  const { server, session } = await setup((req, res) => {
    if (req.url === '/items/2')
      return void res.writeHead(409, { 'content-type': 'text/plain' }).end('duplicate item 2\nsecond line');
    ok(req, res);
  }, 4);
  await assert.rejects(
    session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /items/{{id}}) PAYLOAD ({{id}});`),
    (e: Error & { position?: { line: number } }) => {
      assert.match(
        e.message,
        /HTTP 409 Conflict from POST http:\/\/127\.0\.0\.1:\d+\/items\/2: duplicate item 2 second line/,
      );
      return true;
    },
  );
  assert.equal(server.requests.length, 2, 'the push stopped at the failing call');
  const out = await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /items/{{id}}) PAYLOAD ({{id}}) CONTINUE_ON_HTTP '409, 422';`,
  );
  assert.equal(server.requests.length, 6);
  assert.match(messages(out)[0], /4 calls made, 4 rows sent, 0 retries, 1 failure let through/);
});

test('THROW_ON_REGEX fails a 2xx whose body matches', async () => {
  const { session } = await setup((_req, res) => void res.writeHead(200).end('{"status": "rejected: bad data"}'), 2);
  await assert.rejects(
    session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}}) THROW_ON_REGEX 'rejected';`),
    /THROW_ON_REGEX 'rejected' matched the response of POST http:\/\/127\.0\.0\.1:\d+\/x: \{"status": "rejected: bad data"\}/,
  );
});

test('RETRY_ON retries the same call when the body (or its RETRY_PATH node) says so, RETRY_COUNT times', async () => {
  let calls = 0;
  const { server, session } = await setup((_req, res) => {
    calls++;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(calls < 3 ? '{"state": "busy"}' : '{"state": "done"}');
  }, 1);
  const out = await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}}) RETRY_ON 'busy' RETRY_PATH '$.state' RETRY_INTERVAL 0 RETRY_COUNT 5;`,
  );
  assert.equal(server.requests.length, 3);
  assert.match(messages(out)[0], /1 call made, 1 row sent, 2 retries/);
  calls = 0;
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}}) RETRY_ONREGEX 'bu+sy' RETRY_INTERVAL 0;`,
  );
  assert.equal(server.requests.length, 5, 'RETRY_COUNT defaults to 1: the call and one retry');
});

test('WITH RETRY retries 5xx, 429 (honouring Retry-After) and resets; without it a 503 fails at once', async () => {
  let calls = 0;
  const { server, session } = await setup((req, res) => {
    calls++;
    if (calls === 1) return void res.writeHead(503).end('down');
    if (calls === 2) return void res.writeHead(429, { 'retry-after': '0' }).end('slow down');
    if (calls === 3) return void res.socket?.destroy();
    ok(req, res);
  }, 1);
  const out = await session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}}) WITH RETRY LINEAR (5, 0);`);
  assert.equal(server.requests.length, 4);
  assert.match(messages(out)[0], /1 call made, 1 row sent, 3 retries/);
  calls = 0;
  await assert.rejects(
    session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}});`),
    /HTTP 503 Service Unavailable/,
  );
  calls = 0;
  await assert.rejects(
    session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}}) WITH RETRY EXPONENTIAL (1, 0);`),
    /HTTP 429 Too Many Requests/,
    'out of retries: the last answer stands',
  );
});

test('TIMEOUT bounds each call; cancelling stops a push at once', async () => {
  const { session } = await setup(() => undefined, 2);
  await assert.rejects(
    session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}}) WITH TIMEOUT 0.2;`),
    /timed out after 0\.2 s: POST/,
  );
  const controller = new AbortController();
  const running = session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}});`, {
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(running, /cancelled/);
});

test('without a change log the dataset is the upsert stream and ON_DELETE has nothing to send', async () => {
  const { server, session } = await setup(ok, 2);
  await session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /u/{{id}}) PAYLOAD ({{id}}) ON_DELETE (DELETE /d/{{id}});`);
  assert.deepEqual(
    server.requests.map((r) => r.url),
    ['/u/1', '/u/2'],
  );
});

test('a long push reports progress as it goes, and a last time when done', async () => {
  const { session } = await setup((req, res) => void setTimeout(() => ok(req, res), 30), 12);
  const progress: Extract<Result, { kind: 'progress' }>[] = [];
  for await (const r of session.execute(`PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}});`))
    if (r.kind === 'progress') progress.push(r);
  assert.ok(progress.length >= 2, `at least one update and the final one (${progress.length})`);
  assert.equal(new Set(progress.map((p) => p.id)).size, 1, 'one display, updated in place');
  assert.deepEqual(
    progress.map((p) => p.done),
    [...progress.slice(1).map(() => false), true],
  );
  assert.match(progress[progress.length - 1].text, /12 \/ 12 rows, 12 calls, 0 retries/);
});

test('the progress line counts one call and one retry in the singular, as the summary does', async () => {
  let failed = false;
  const { session } = await setup((req, res) => {
    if (failed) return ok(req, res);
    failed = true;
    res.writeHead(503, { 'retry-after': '0' }).end('busy');
  }, 1);
  const results: Result[] = [];
  for await (const r of session.execute(
    'PUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}}) WITH RETRY LINEAR (1, 0);',
  ))
    results.push(r);
  const progress = results.filter((r) => r.kind === 'progress');
  assert.match(progress[progress.length - 1].text, /^PUSH INTO HTTP: 1 \/ 1 rows, 1 call, 1 retry, /);
});

test('fields inside batch operators keep the batch valid: JSON values, escaped XML, SQL literals, Unicode and quotes', async () => {
  const { server, session } = await setup(ok, 0);
  session.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'name', type: { base: 'string' } },
        { name: 'price', type: { base: 'decimal', precision: 10, scale: 2 } },
      ],
      [
        [1, 'say "hi"\\ <b>&\'quoted\'</b>\nnew line', null],
        [2, 'Ünïcødé — 日本 🚀', null],
        [3, null, null],
      ],
    ),
  );
  await session.run(`APPLY SCHEMA ( int id
    string name
    decimal(10,2) price = '12.50' );`);
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /json) PAYLOAD ([@concatjson({"id": {{id}}, "name": {{name}}, "label": "#{{id}}: {{name}}", "price": {{price}}})]) WITH BATCH 10;`,
  );
  const json = JSON.parse(server.requests[0].body) as Record<string, unknown>[];
  assert.deepEqual(json, [
    {
      id: 1,
      name: 'say "hi"\\ <b>&\'quoted\'</b>\nnew line',
      label: '#1: say "hi"\\ <b>&\'quoted\'</b>\nnew line',
      price: 12.5,
    },
    { id: 2, name: 'Ünïcødé — 日本 🚀', label: '#2: Ünïcødé — 日本 🚀', price: 12.5 },
    { id: 3, name: null, label: '#3: ', price: 12.5 },
  ]);
  assert.match(server.requests[0].body, /"price": 12\.50/, 'a decimal keeps its scale, bare');
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /xml) PAYLOAD (<rows>@concatxml(<row id="{{id}}">{{name}}</row>)</rows>) WITH BATCH 10;`,
  );
  assert.equal(
    server.requests[1].body,
    '<rows><row id="1">say &quot;hi&quot;\\ &lt;b&gt;&amp;&apos;quoted&apos;&lt;/b&gt;\nnew line</row><row id="2">Ünïcødé — 日本 🚀</row><row id="3"></row></rows>',
  );
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /sql) PAYLOAD (@sql(INSERT INTO t VALUES ({{id}}, {{name}}, 'n: {{name}}'))) WITH BATCH 10;`,
  );
  assert.equal(
    server.requests[2].body,
    "INSERT INTO t VALUES (1, 'say \"hi\"\\ <b>&''quoted''</b>\nnew line', 'n: say \"hi\"\\ <b>&''quoted''</b>\nnew line');\n" +
      "INSERT INTO t VALUES (2, 'Ünïcødé — 日本 🚀', 'n: Ünïcødé — 日本 🚀');\n" +
      "INSERT INTO t VALUES (3, NULL, 'n: ');",
  );
});

test("prefixed fields ({{base64:f}}, {{utf8:f}}…) inside batch operators are written in the operator's style too", async () => {
  const { server, session } = await setup(ok, 0);
  const name = `O'Brien"); DROP TABLE t; -- <b>&`;
  session.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'name', type: { base: 'string' } },
        { name: 'blob', type: { base: 'bytes' } },
      ],
      [
        [1, name, Buffer.from(name, 'utf8')],
        [2, null, null],
      ],
    ),
  );
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /sql) PAYLOAD (@sql(INSERT INTO t VALUES ({{id}}, {{utf8:name}}, {{base64:blob}}, {{utf8:blob}}, 'n: {{ascii:blob}}'))) WITH BATCH 10;`,
  );
  assert.equal(
    server.requests[0].body,
    `INSERT INTO t VALUES (1, 'O''Brien"); DROP TABLE t; -- <b>&', '${Buffer.from(name).toString('base64')}', 'O''Brien"); DROP TABLE t; -- <b>&', 'n: O''Brien"); DROP TABLE t; -- <b>&');\n` +
      `INSERT INTO t VALUES (2, NULL, NULL, NULL, 'n: ');`,
  );
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /json) PAYLOAD ([@concatjson({"a": {{utf8:blob}}, "b": "{{utf8:blob}}", "c": {{hex:name}}})]) WITH BATCH 10;`,
  );
  assert.deepEqual(JSON.parse(server.requests[1].body), [
    { a: name, b: name, c: Buffer.from(name).toString('hex') },
    { a: null, b: '', c: null },
  ]);
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /xml) PAYLOAD (<r>@concatxml(<n v="{{utf8:blob}}">{{ascii:name}}</n>)</r>) WITH BATCH 10;`,
  );
  const escaped = 'O&apos;Brien&quot;); DROP TABLE t; -- &lt;b&gt;&amp;';
  assert.equal(server.requests[2].body, `<r><n v="${escaped}">${escaped}</n><n v=""></n></r>`);
});

test('10,000 rows at several batch sizes: every row sent once, in order', async () => {
  const { server, session } = await setup(ok, 10_000);
  for (const size of [1, 7, 100, 2500]) {
    const before = server.requests.length;
    const payload = size === 1 ? '{{id}}' : '[@concatjsonarr([{{id}}])]';
    await session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /b) PAYLOAD (${payload}) WITH BATCH ${size};`);
    const got = server.requests
      .slice(before)
      .flatMap((r) => (size === 1 ? [Number(r.body)] : (JSON.parse(r.body) as number[][]).map((a) => a[0])));
    assert.equal(server.requests.length - before, Math.ceil(10_000 / size), `calls at BATCH ${size}`);
    assert.deepEqual(
      got,
      Array.from({ length: 10_000 }, (_, i) => i + 1),
      `rows at BATCH ${size}`,
    );
  }
});

test("a relative path cannot climb out of the connection's base URL, whether '..' is written or comes with a field", async () => {
  const { server, session } = await setup(ok, 0);
  await session.run(`%connection add v1 ${server.url}/api/v1`);
  for (const bad of ['../../admin', '%2e%2e/%2E%2E/admin', '../..']) {
    session.setDataset(Dataset.fromRows([{ name: 'name', type: { base: 'string' } }], [['ok'], [bad]]));
    const before = server.requests.length;
    await assert.rejects(session.run('PUSH INTO HTTP [v1] ON_UPSERT (DELETE /items/{{name}});'), (e: Error) => {
      assert.match(
        e.message,
        /^DELETE \/items\/.* leaves the connection's base URL http:\/\/127\.0\.0\.1:\d+\/api\/v1 \(a '\.\.' in the path or in a field's value\); give a full URL to call elsewhere$/,
      );
      return true;
    });
    assert.deepEqual(
      server.requests.slice(before).map((r) => r.url),
      ['/api/v1/items/ok'],
      `nothing sent for ${bad}`,
    );
  }
  await assert.rejects(session.run('APPLY HTTP [v1] (GET ../v2/x);'), /leaves the connection's base URL/);
  // Within the base path '..' is fine, and a full URL goes where it says.
  await session.run('APPLY HTTP [v1] (GET /a/../b);');
  await session.run(`APPLY HTTP [v1] (GET ${server.url}/elsewhere);`);
  assert.deepEqual(
    server.requests.slice(-2).map((r) => r.url),
    ['/api/v1/b', '/elsewhere'],
  );
});

test('a field in HEADERS is written as JSON text: a value with quotes or backslashes cannot add or replace a header', async () => {
  const { server, session } = await setup(ok, 0);
  const note = 'x", "Authorization": "Bearer stolen\\';
  session.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'note', type: { base: 'string' } },
      ],
      [[7, note]],
    ),
  );
  await session.run(`%connection add keyed ${server.url} --bearer OWN-KEY`);
  await session.run(
    `PUSH INTO HTTP [keyed] ON_UPSERT (POST /items) HEADERS '[{"X-Note": "{{note}}", "X-Id": {{id}}}]';`,
  );
  await session.run(
    `APPLY HTTP [keyed] (GET /items/{{id}}) WITH HEADERS '{"X-Note": "{{note}}", "X-Name": {{note}}}';`,
  );
  const [pushed, applied] = server.requests.slice(-2);
  for (const r of [pushed, applied]) {
    assert.equal(r.headers['x-note'], note);
    assert.equal(r.headers.authorization, 'Bearer OWN-KEY');
  }
  assert.equal(pushed.headers['x-id'], '7');
  assert.equal(applied.headers['x-name'], note, 'a bare field is a JSON string');
  // A pipeline variable comes from data too (the high watermark is a value of the last run's rows).
  await session.run(`PRINT '#data.calc_hwm(#data.calc(''Max(note)''), {{@highwatermark}})';`);
  await session.run(`SELECT * FROM HTTP [keyed] (GET /items) WITH HEADERS '{"X-Note": "{{@highwatermark}}"}';`);
  assert.equal(server.requests[server.requests.length - 1].headers['x-note'], note);
  session.setDataset(Dataset.fromRows([{ name: 'note', type: { base: 'string' } }], [['a\r\nX-Evil: 1']]));
  const before = server.requests.length;
  await assert.rejects(
    session.run(`APPLY HTTP [keyed] (GET /items) WITH HEADERS '{"X-Note": "{{note}}"}';`),
    /invalid X-Note header: GET http:\/\/127\.0\.0\.1:\d+\/items$/,
  );
  assert.equal(server.requests.length, before, 'nothing sent');
});

test('a payload that cannot be made for a row stops the push there, after every call before it was answered', async () => {
  const { server, session } = await setup(ok, 0);
  session.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'code', type: { base: 'string' } },
      ],
      [
        [1, 'YQ=='],
        [2, 'Yg=='],
        [3, 'not base64!'],
        [4, 'ZA=='],
      ],
    ),
  );
  const progress: Extract<Result, { kind: 'progress' }>[] = [];
  let error: Error | undefined;
  for await (const r of session.execute(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /items/{{id}}) PAYLOAD ({"letter": "#frombase64({{code}})"});`,
  )) {
    if (r.kind === 'progress') progress.push(r);
    if (r.kind === 'error') error = r.error;
  }
  assert.match(String(error?.message), /#frombase64: 'not base64!' is not Base64/);
  assert.deepEqual(
    server.requests.map((r) => [r.url, r.body]),
    [
      ['/items/1', '{"letter": "a"}'],
      ['/items/2', '{"letter": "b"}'],
    ],
  );
  assert.match(
    progress[progress.length - 1].text,
    /2 \/ 4 rows, 2 calls/,
    'the call before the failing row was answered and counted',
  );
});

test('WITH RETRY waits out a long backoff (cancelling cuts it short), but a Retry-After over 300 s fails the call at once', async () => {
  const { server, session } = await setup((req, res) => {
    if (req.url === '/later') return void res.writeHead(503, { 'retry-after': '301' }).end('come back later');
    res.socket?.destroy();
  }, 1);
  await assert.rejects(
    session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /later) PAYLOAD ({{id}}) WITH RETRY LINEAR (3, 0);`),
    /HTTP 503 Service Unavailable/,
  );
  assert.equal(server.requests.length, 1, 'a Retry-After over 300 s is not waited for');
  const controller = new AbortController();
  const running = session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /drop) PAYLOAD ({{id}}) WITH RETRY LINEAR (1, 400);`,
    { signal: controller.signal },
  );
  await server.received(2);
  // Time for the dropped connection to reach the push, which must then be waiting 400 s, not failing.
  setTimeout(() => controller.abort(), 300);
  await assert.rejects(running, /cancelled/);
  assert.equal(server.requests.length, 2);
});

test('TRACE INTO records every call of a push in a SQLite table, in batches, the request body and masked headers', async () => {
  const { session } = await setup(ok, 3);
  await session.run('%connection add tr sqlite:push-trace.db');
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /items/{{id}}) PAYLOAD ({"name": "{{name}}"}) HEADERS '[{"X-Api-Key": "PUSH-KEY-7"}]' TRACE INTO [tr] TABLE 'push_calls' ADD_TRACKING_FIELDS;`,
  );
  await session.run(
    `SELECT * FROM DB [tr] (SELECT method, url, status, request_headers, request_body, response_body, pipeline FROM push_calls);`,
  );
  const rows = session.dataset.rows();
  assert.equal(rows.length, 3);
  assert.deepEqual(
    rows.map((r) => [r[0], String(r[1]).replace(/^http:\/\/127\.0\.0\.1:\d+/, ''), r[2]]),
    [
      ['POST', '/items/1', 200],
      ['POST', '/items/2', 200],
      ['POST', '/items/3', 200],
    ],
  );
  assert.equal(rows[0][4], '{"name": "item 1"}');
  assert.equal(rows[0][5], null, 'no response body without WITH_PAYLOAD');
  assert.doesNotMatch(JSON.stringify(rows), /PUSH-KEY-7/, 'the API key header is masked');
  assert.equal(rows[0][6], 'repl');
});

test("a connection's base URL with a query (an API key) keeps it on every call, before the path's own parameters", async () => {
  const { server, session } = await setup(ok, 2);
  await session.run(`%connection add keyed ${server.url}/v1?api_key=K1`);
  await session.run(`PUSH INTO HTTP [keyed] ON_UPSERT (POST /items/{{id}}?mode=a) PAYLOAD ({"id": {{id}}});`);
  await session.run(
    `PUSH INTO HTTP [keyed] ON_UPSERT (PUT items) PAYLOAD ([@concatjson({"id": {{id}}})]) WITH BATCH 2;`,
  );
  assert.deepEqual(
    server.requests.map((r) => [r.method, r.url]),
    [
      ['POST', '/v1/items/1?api_key=K1&mode=a'],
      ['POST', '/v1/items/2?api_key=K1&mode=a'],
      ['PUT', '/v1/items?api_key=K1'],
    ],
  );
});

test("TRACE … EXEC sends its functions' values as bind parameters; a {{field}} there is an error", async () => {
  const { session } = await setup(ok, 3);
  await session.run('%connection add tr sqlite:exec-trace.db');
  await session.run('EXEC ON DB [tr] (create table tlog (note text, n int));');
  const hostile = "it's'); drop table tlog; --";
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /items/{{id}}) TRACE INTO [tr] TABLE 'calls' EXEC (insert into tlog values (#trygetvar('none', '${hostile.replace(/'/g, "''")}'), #data.count()));`,
  );
  await session.run('SELECT * FROM DB [tr] (select note, n from tlog);');
  assert.deepEqual(session.dataset.rows(), [[hostile, 3]]);
  await assert.rejects(
    session.run(
      `PUSH INTO HTTP [api] ON_UPSERT (POST /items/{{id}}) TRACE INTO [tr] TABLE 'calls' EXEC (insert into tlog values ({{name}}, 0));`,
    ),
    /\{\{name\}\} reads a row, but TRACE … EXEC runs after each batch of traced calls, outside any row/,
  );
});

test("a field inside a JSON payload's string is written escaped: quotes, backslashes and line breaks keep the document valid; other fields are written as they are", async () => {
  const { server, session } = await setup(ok, 0);
  const note = 'say "hi" \\ then\nbye", "admin": "true';
  session.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'note', type: { base: 'string' } },
        { name: 'extra', type: { base: 'string' } },
      ],
      [[7, note, '{"tags": ["a"]}']],
    ),
  );
  await session.run(
    `PUSH INTO HTTP [api] ON_UPSERT (POST /items) PAYLOAD ({"id": {{id}}, "note": "{{note}} (#{{id}})", "extra": {{extra}}});`,
  );
  await session.run(`APPLY HTTP [api] (POST /lookup) WITH PAYLOAD ([{"note": "{{note}}"}]);`);
  const [pushed, applied] = server.requests.slice(-2);
  assert.deepEqual(JSON.parse(pushed.body), { id: 7, note: `${note} (#7)`, extra: { tags: ['a'] } });
  assert.deepEqual(JSON.parse(applied.body), [{ note }]);
  // Text that is not JSON is sent as written.
  await session.run(`PUSH INTO HTTP [api] ON_UPSERT (POST /items) PAYLOAD (note: "{{note}}");`);
  assert.equal(server.requests[server.requests.length - 1].body, `note: "${note}"`);
});
