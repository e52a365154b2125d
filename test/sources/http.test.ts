import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptError } from '../../runtime/errors';
import type { Result } from '../../runtime/results';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Session } from '../../runtime/session';
import { sendJson, startHttpServer, type Handler, type TestServer } from '../helpers/http-server';
import { load, plain, results, schema, sessionWith } from './helpers';

const opened: { server: TestServer; session: Session }[] = [];

/** A session and a server for one test; both are closed when the file's tests end. */
async function setup(handler: Handler): Promise<{ server: TestServer; session: Session }> {
  const server = await startHttpServer(handler);
  const { session } = sessionWith();
  opened.push({ server, session });
  return { server, session };
}

after(async () => {
  for (const { server, session } of opened) {
    await session.close();
    await server.close();
  }
});

function messages(out: Result[]): string[] {
  return out.flatMap((r) => (r.kind === 'message' ? [r.text] : []));
}

test('GET without APPLY TX: one row with payload, status, headers and elapsed_ms; #last_http_*() see it', async () => {
  const { server, session } = await setup((req, res) => sendJson(res, { hello: 'world' }, 200, { 'x-trace': 'abc' }));
  const ds = await load(session, `SELECT * FROM HTTP (GET ${server.url}/greet?x=1);`);
  assert.deepEqual(schema(ds), ['payload:string', 'status:int', 'headers:string', 'elapsed_ms:int']);
  assert.equal(ds.rows()[0][0], '{"hello":"world"}');
  assert.equal(ds.rows()[0][1], 200);
  assert.equal((JSON.parse(ds.rows()[0][2] as string) as Record<string, string>)['x-trace'], 'abc');
  assert.equal(typeof ds.rows()[0][3], 'number');
  assert.equal(server.requests[0].method, 'GET');
  assert.equal(server.requests[0].url, '/greet?x=1');
  // The facts of the last call reach the next cell (#last_http_* read them).
  const out = await results(
    session,
    "PRINT '#last_http_status() #last_http_mediatype() #last_http_bytecount()'; PRINT '#last_http_content()';",
  );
  assert.deepEqual(messages(out), ['200 application/json 17', '{"hello":"world"}']);
});

test('POST with a payload, HEADERS in both shapes and CONTENT_TYPE; texts hold functions', async () => {
  const { server, session } = await setup((req, res) => sendJson(res, { received: req.body.length }, 201));
  await session.run(
    `SELECT * FROM HTTP (POST ${server.url}/items/#toupper(abc))
     WITH HEADERS '[{"x-api-key":"k1"},{"key":"X-Tenant","value":"#tolower(ACME)"}]'
     PAYLOAD ({"name": "#toupper(widget)"});`,
  );
  const req = server.requests[0];
  assert.equal(req.method, 'POST');
  assert.equal(req.url, '/items/ABC');
  assert.equal(req.body, '{"name": "WIDGET"}');
  assert.equal(req.headers['x-api-key'], 'k1');
  assert.equal(req.headers['x-tenant'], 'acme');
  assert.equal(req.headers['content-type'], 'application/json');
  assert.equal(session.dataset.rows()[0][1], 201);
  await session.run(
    `SELECT * FROM HTTP (PUT ${server.url}/x) WITH PAYLOAD ('a=1') CONTENT_TYPE 'application/x-www-form-urlencoded';`,
  );
  assert.equal(server.requests[1].method, 'PUT');
  assert.equal(server.requests[1].headers['content-type'], 'application/x-www-form-urlencoded');
});

test('APPLY TX turns the response into rows; XML responses too; RAWCOL keeps each record', async () => {
  const { server, session } = await setup((req, res) => {
    if (req.url === '/xml') {
      res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8' });
      res.end('<r><i n="1"/><i n="2"/></r>');
    } else
      sendJson(res, {
        data: {
          items: [
            { id: 1, name: 'a' },
            { id: 2, name: 'b' },
          ],
        },
      });
  });
  const ds = await load(session, `SELECT * FROM HTTP (GET ${server.url}/json) APPLY TX '$.data.items';`);
  assert.deepEqual(schema(ds), ['id:int', 'name:string']);
  assert.deepEqual(plain(ds), [
    [1, 'a'],
    [2, 'b'],
  ]);
  const xml = await load(session, `SELECT * FROM HTTP (GET ${server.url}/xml) APPLY TX '//i' WITH RAWCOL 'raw';`);
  assert.deepEqual(plain(xml), [
    [1, '<i n="1"/>'],
    [2, '<i n="2"/>'],
  ]);
});

test('a connection gives the base URL, default headers and auth (basic, bearer, apikey)', async () => {
  const { server, session } = await setup((req, res) => sendJson(res, []));
  session.connections.add({
    name: 'api',
    kind: 'http',
    baseUrl: `${server.url}/v1/`,
    headers: { 'X-Client': 'sqlcdc' },
    auth: { type: 'bearer', token: 't0k' },
  });
  session.connections.add({
    name: 'basic',
    kind: 'http',
    baseUrl: server.url,
    auth: { type: 'basic', user: 'u', password: 'p@ss' },
  });
  session.connections.add({
    name: 'keyed',
    kind: 'http',
    baseUrl: server.url,
    auth: { type: 'apikey', header: 'X-Api-Key', key: 'sekret' },
  });
  await session.run('SELECT * FROM HTTP [api] (GET /orders?since=1) WITH HEADERS \'[{"X-Client":"override"}]\';');
  await session.run('SELECT * FROM HTTP [basic] (GET status);');
  await session.run('SELECT * FROM HTTP [keyed] (DELETE /things/1);');
  const [a, b, c] = server.requests;
  assert.equal(a.url, '/v1/orders?since=1');
  assert.equal(a.headers.authorization, 'Bearer t0k');
  assert.equal(a.headers['x-client'], 'override');
  assert.equal(b.url, '/status');
  assert.equal(b.headers.authorization, `Basic ${Buffer.from('u:p@ss').toString('base64')}`);
  assert.equal(c.method, 'DELETE');
  assert.equal(c.headers['x-api-key'], 'sekret');
});

test('every call names sqlcdc in User-Agent (APIs such as GitHub refuse calls without one); HEADERS or the connection may set their own', async () => {
  const { server, session } = await setup((req, res) => sendJson(res, []));
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  session.connections.add({ name: 'ua', kind: 'http', baseUrl: server.url, headers: { 'User-Agent': 'team-etl/2' } });
  await session.run(`SELECT * FROM HTTP (GET ${server.url}/a);`);
  await session.run(`SELECT * FROM HTTP (GET ${server.url}/b) WITH HEADERS '[{"user-agent":"mine/1"}]';`);
  await session.run('SELECT * FROM HTTP [ua] (GET /c);');
  assert.deepEqual(
    server.requests.map((r) => r.headers['user-agent']),
    [`sqlcdc/${version}`, 'mine/1', 'team-etl/2'],
  );
});

test('user:password in a full URL is sent as Basic auth (as curl does), never shown', async () => {
  const { server, session } = await setup((req, res) => {
    if (!req.headers.authorization) return sendJson(res, { error: 'who are you' }, 401);
    sendJson(res, [], req.url.startsWith('/missing') ? 404 : 200);
  });
  const url = server.url.replace('http://', 'http://reader:p%40ss%3Aw0rd@');
  await session.run(`SELECT * FROM HTTP (GET ${url}/orders);`);
  assert.equal(server.requests[0].headers.authorization, `Basic ${Buffer.from('reader:p@ss:w0rd').toString('base64')}`);
  assert.equal(server.requests[0].url, '/orders');
  await session.run(`SELECT * FROM HTTP (GET ${url}/orders) WITH HEADERS '[{"Authorization":"Bearer t"}]';`);
  assert.equal(server.requests[1].headers.authorization, 'Bearer t', 'HEADERS override it');
  await assert.rejects(session.run(`SELECT * FROM HTTP (GET ${url}/missing?x=1);`), (e: Error) => {
    assert.match(e.message, /HTTP 404 Not Found from GET http:\/\/127\.0\.0\.1:\d+\/missing\?x=1/);
    assert.doesNotMatch(e.message, /w0rd/);
    return true;
  });
});

test('redirects are followed (up to 5); credentials do not follow one to another origin', async () => {
  const other = await startHttpServer((req, res) =>
    sendJson(res, [{ at: 'other', auth: req.headers.authorization ?? null }]),
  );
  opened.push({ server: other, session: sessionWith().session });
  const { server, session } = await setup((req, res) => {
    const to: Record<string, string> = {
      '/moved': '/v2/orders',
      '/see-other': '/v2/orders',
      '/away': `${other.url}/cdn/orders`,
      '/loop': '/loop',
    };
    if (to[req.url]) {
      res.writeHead(req.url === '/see-other' ? 303 : req.url === '/moved' ? 301 : 302, { location: to[req.url] });
      return void res.end();
    }
    sendJson(res, [{ at: 'home', method: req.method, body: req.body }]);
  });
  session.connections.add({
    name: 'api',
    kind: 'http',
    baseUrl: server.url,
    headers: { 'X-Api-Key': 'k-123' },
    auth: { type: 'bearer', token: 't0k' },
  });
  const moved = await load(session, "SELECT * FROM HTTP [api] (GET /moved) APPLY TX '$';");
  assert.deepEqual(plain(moved), [['home', 'GET', '']]);
  assert.equal(server.requests[1].headers.authorization, 'Bearer t0k', 'the same origin keeps the credentials');
  const posted = await load(
    session,
    'SELECT * FROM HTTP [api] (POST /see-other) APPLY TX \'$\' WITH PAYLOAD ({"q": 1});',
  );
  assert.deepEqual(plain(posted), [['home', 'GET', '']], '303 asks for a GET of the new place');
  const away = await load(session, "SELECT * FROM HTTP [api] (GET /away) APPLY TX '$';");
  assert.deepEqual(plain(away), [['other', null]]);
  assert.equal(other.requests[0].url, '/cdn/orders');
  assert.equal(other.requests[0].headers['x-api-key'], undefined, 'no connection header on another origin');
  await assert.rejects(
    session.run('SELECT * FROM HTTP [api] (GET /loop);'),
    /more than 5 redirects from GET http:\/\/127\.0\.0\.1:\d+\/loop/,
  );
});

test("a next page on another origin (PAGING 'link') gets none of the connection's credentials", async () => {
  const other = await startHttpServer((req, res) => sendJson(res, { rows: [{ n: 2 }] }));
  opened.push({ server: other, session: sessionWith().session });
  const { server, session } = await setup((req, res) =>
    sendJson(res, { rows: [{ n: 1 }], next: `${other.url}/page2` }),
  );
  session.connections.add({
    name: 'api',
    kind: 'http',
    baseUrl: server.url,
    headers: { 'X-Api-Key': 'k-123' },
    auth: { type: 'bearer', token: 't0k' },
  });
  const ds = await load(
    session,
    "SELECT * FROM HTTP [api] (GET /page1) APPLY TX 'rows' WITH PAGING 'link' PAGING_PATH 'next';",
  );
  assert.deepEqual(plain(ds), [[1], [2]]);
  assert.equal(server.requests[0].headers.authorization, 'Bearer t0k');
  assert.equal(other.requests[0].headers.authorization, undefined);
  assert.equal(other.requests[0].headers['x-api-key'], undefined);
});

test('an NDJSON answer (application/x-ndjson, or JSON lines) is one record a line, as an NDJSON file', async () => {
  const { server, session } = await setup((req, res) => {
    res.writeHead(200, { 'content-type': req.url === '/lines' ? 'application/x-ndjson' : 'application/json' });
    res.end('{"id": 1, "tag": "a"}\n{"id": 2, "tag": "b"}\n');
  });
  const ndjson = await load(session, `SELECT * FROM HTTP (GET ${server.url}/lines) APPLY TX '$';`);
  assert.deepEqual(plain(ndjson), [
    [1, 'a'],
    [2, 'b'],
  ]);
  const lines = await load(session, `SELECT * FROM HTTP (GET ${server.url}/export) APPLY TX '$';`);
  assert.deepEqual(plain(lines), plain(ndjson));
});

test("a base URL's query (a key given with the connection) is kept when a path is appended, the path's own query after it", async () => {
  const { server, session } = await setup((req, res) => sendJson(res, []));
  await session.run(`%connection add fn ${server.url}/api/?code=K%2By&v=2`);
  await session.run('SELECT * FROM HTTP [fn] (GET /orders/7?since=1);');
  await session.run('SELECT * FROM HTTP [fn] (GET status);');
  await session.run('SELECT * FROM HTTP [fn] (GET ?page=3);');
  assert.deepEqual(
    server.requests.map((r) => r.url),
    ['/api/orders/7?code=K%2By&v=2&since=1', '/api/status?code=K%2By&v=2', '/api?code=K%2By&v=2&page=3'],
  );
});

test("a connection's credentials are not sent to another origin, and never appear in errors", async () => {
  const { server, session } = await setup((req, res) => {
    res.writeHead(401, { 'content-type': 'text/plain' });
    res.end('denied');
  });
  const other = await startHttpServer((req, res) => sendJson(res, {}));
  opened.push({ server: other, session });
  session.connections.add({
    name: 'api',
    kind: 'http',
    baseUrl: server.url,
    auth: { type: 'bearer', token: 'supersecret' },
  });
  await session.run(`SELECT * FROM HTTP [api] (GET ${other.url}/elsewhere);`);
  assert.equal(other.requests[0].headers.authorization, undefined);
  await assert.rejects(session.run('SELECT * FROM HTTP [api] (GET /private?api_key=abc123&page=2);'), (e: Error) => {
    assert.match(
      e.message,
      /^HTTP 401 Unauthorized from GET http:\/\/127\.0\.0\.1:\d+\/private\?api_key=\*\*\*\*&page=2: denied$/,
    );
    assert.doesNotMatch(e.message, /supersecret|abc123/);
    return true;
  });
});

test('HTTP errors name the status, the call and the start of the body', async () => {
  const { server, session } = await setup((req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'no such order', detail: 'x'.repeat(500) }));
  });
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${server.url}/orders/9);`),
    (e: Error & { statement?: string }) => {
      assert.match(
        e.message,
        /^HTTP 404 Not Found from GET http:\/\/127\.0\.0\.1:\d+\/orders\/9: \{"error":"no such order","detail":"x+…$/,
      );
      assert.ok(e.message.length < 320);
      assert.equal(e.statement, 'SELECT FROM HTTP');
      return true;
    },
  );
});

test('a relative path without a connection, a refused connection and a bad URL are clear errors', async () => {
  const { session } = await setup((req, res) => sendJson(res, {}));
  await assert.rejects(
    session.run('SELECT * FROM HTTP (GET /orders);'),
    /'\/orders' is a relative path: name an HTTP connection/,
  );
  const closed = await startHttpServer(() => undefined);
  const url = closed.url;
  await closed.close();
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${url}/x);`),
    /connection refused by 127\.0\.0\.1:\d+: GET http:\/\/127\.0\.0\.1:\d+\/x/,
  );
  await assert.rejects(session.run('SELECT * FROM HTTP (GET ftp://127.0.0.1/x);'), /unsupported URL scheme 'ftp:'/);
});

test('TIMEOUT ends a call the server never answers', async () => {
  const { server, session } = await setup(() => undefined);
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${server.url}/slow) WITH TIMEOUT 0.3;`),
    /timed out after 0\.3 s: GET http:\/\/127\.0\.0\.1:\d+\/slow/,
  );
});

test('aborting the signal cancels a pending call at once', async () => {
  const { server, session } = await setup(() => undefined);
  const controller = new AbortController();
  const run = session.run(`SELECT * FROM HTTP (GET ${server.url}/never);`, { signal: controller.signal });
  await server.received(1);
  controller.abort();
  await assert.rejects(run, (e: Error & { kind?: string }) => {
    assert.equal(e.kind, 'cancelled');
    return true;
  });
});

test('RETURN_BYTES keeps the payload as bytes', async () => {
  const { server, session } = await setup((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(Buffer.from([0, 1, 254, 255]));
  });
  const ds = await load(session, `SELECT * FROM HTTP (GET ${server.url}/bin) WITH RETURN_BYTES;`);
  assert.deepEqual(schema(ds).slice(0, 1), ['payload:bytes']);
  assert.deepEqual([...(ds.rows()[0][0] as Uint8Array)], [0, 1, 254, 255]);
});

const PEOPLE = Array.from({ length: 7 }, (_, i) => ({ id: i + 1 }));

test("PAGING 'offset' grows the offset by each page's records until an empty page", async () => {
  const { server, session } = await setup((req, res) => {
    const url = new URL(req.url, 'http://x');
    const skip = Number(url.searchParams.get('skip') ?? 0);
    sendJson(res, { items: PEOPLE.slice(skip, skip + 3) });
  });
  const ds = await load(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/people?limit=3) APPLY TX 'items' WITH PAGING 'offset' PAGING_PARAM 'skip';`,
  );
  assert.deepEqual(
    plain(ds).map((r) => r[0]),
    [1, 2, 3, 4, 5, 6, 7],
  );
  assert.deepEqual(
    server.requests.map((r) => r.url),
    ['/people?limit=3', '/people?limit=3&skip=3', '/people?limit=3&skip=6', '/people?limit=3&skip=7'],
  );
});

test("PAGING 'page' counts pages from the URL's value; without APPLY TX a JSON array body is the page", async () => {
  const { server, session } = await setup((req, res) => {
    const page = Number(new URL(req.url, 'http://x').searchParams.get('p'));
    sendJson(res, PEOPLE.slice(page * 3, page * 3 + 3));
  });
  const ds = await load(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/people?p=0) WITH PAGING 'page' PAGING_PARAM 'p';`,
  );
  assert.equal(ds.rowCount, 4, 'three pages with records and the empty one, a row each');
  assert.deepEqual(
    server.requests.map((r) => r.url),
    ['/people?p=0', '/people?p=1', '/people?p=2', '/people?p=3'],
  );
});

test('an empty answer (204 No Content, an empty body) has no rows under APPLY TX: a page paging ends on, a join row without match', async () => {
  const { server, session } = await setup((req, res) => {
    const url = new URL(req.url, 'http://x');
    const page = Number(url.searchParams.get('page') ?? 1);
    if (url.pathname === '/people' && page <= 2) return sendJson(res, PEOPLE.slice(page * 2 - 2, page * 2));
    if (url.pathname === '/who') return sendJson(res, [{ who: 'a' }, { who: 'b' }]);
    if (url.pathname === '/crm/a') return sendJson(res, { segment: 'gold' });
    res.writeHead(url.pathname === '/crm/b' ? 200 : 204, { 'content-type': 'application/json' });
    res.end();
  });
  const paged = await load(session, `SELECT * FROM HTTP (GET ${server.url}/people) APPLY TX '$' WITH PAGING 'page';`);
  assert.deepEqual(
    plain(paged).map((r) => r[0]),
    [1, 2, 3, 4],
  );
  assert.equal(server.requests.length, 3);
  const none = await load(session, `SELECT * FROM HTTP (GET ${server.url}/nothing) APPLY TX '$';`);
  assert.equal(none.rowCount, 0);
  const joined = await load(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/who) APPLY TX '$';
     APPLY HTTP (GET ${server.url}/crm/{{who}}) APPLY TX '$' WITH PROCESSING 'left join';`,
  );
  assert.deepEqual(plain(joined), [
    ['a', 'gold'],
    ['b', null],
  ]);
});

test("PAGING 'link' follows the Link header's rel=next, or the link at PAGING_PATH", async () => {
  const { server, session } = await setup((req, res) => {
    const n = Number(new URL(req.url, 'http://x').searchParams.get('n') ?? 1);
    const headers: Record<string, string> =
      n < 3 ? { link: `<${server.url}/h?n=${n + 1}>; rel="next", </h?n=1>; rel="first"` } : {};
    if (req.url.startsWith('/h')) sendJson(res, [{ n }], 200, headers);
    else sendJson(res, { rows: [{ n }], paging: { next: n < 3 ? `/b?n=${n + 1}` : null } });
  });
  const byHeader = await load(session, `SELECT * FROM HTTP (GET ${server.url}/h) APPLY TX '$' WITH PAGING 'link';`);
  assert.deepEqual(plain(byHeader), [[1], [2], [3]]);
  const byBody = await load(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/b) APPLY TX 'rows' WITH PAGING 'link' PAGING_PATH 'paging.next';`,
  );
  assert.deepEqual(plain(byBody), [[1], [2], [3]]);
});

test("PAGING 'token' sends the token found at PAGING_PATH until there is none", async () => {
  const { server, session } = await setup((req, res) => {
    const token = new URL(req.url, 'http://x').searchParams.get('cursor');
    const at = token ? Number(token.slice(1)) : 0;
    sendJson(res, { data: PEOPLE.slice(at, at + 4), next: at + 4 < PEOPLE.length ? `c${at + 4}` : '' });
  });
  const ds = await load(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/people?size=4) APPLY TX 'data' WITH PAGING 'token' PAGING_PARAM 'cursor' PAGING_PATH 'next';`,
  );
  assert.deepEqual(
    plain(ds).map((r) => r[0]),
    [1, 2, 3, 4, 5, 6, 7],
  );
  assert.deepEqual(
    server.requests.map((r) => r.url),
    ['/people?size=4', '/people?size=4&cursor=c4'],
  );
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${server.url}/people) WITH PAGING 'token';`),
    /PAGING 'token' needs PAGING_PATH/,
  );
});

test('paging stops when a server ignores the paging parameter or repeats a link', async () => {
  const { server, session } = await setup((req, res) => {
    if (req.url.startsWith('/loop')) sendJson(res, { items: [1], next: '/loop' });
    else sendJson(res, { items: [{ same: 1 }] });
  });
  const same = await load(session, `SELECT * FROM HTTP (GET ${server.url}/same) APPLY TX 'items' WITH PAGING 'page';`);
  assert.equal(same.rowCount, 2, 'the repeated page is read once more, then paging stops');
  const loop = await load(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/loop) APPLY TX 'items' WITH PAGING 'link' PAGING_PATH 'next';`,
  );
  assert.equal(loop.rowCount, 2);
  assert.deepEqual(
    server.requests.map((r) => r.url),
    ['/same', '/same?page=2', '/loop', '/loop'],
  );
});

test('an inline APPLY PIPELINE runs once per page; BREAK_ON_EMPTY stops the paging', async () => {
  const { server, session } = await setup((req, res) => {
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);
    sendJson(res, { items: PEOPLE.slice((page - 1) * 3, page * 3) });
  });
  const out = await results(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/p) APPLY TX 'items' WITH PAGING 'page'
    APPLY PIPELINE ( PRINT 'page of #data.count() rows'; );`,
  );
  assert.deepEqual(messages(out), ['page of 3 rows', 'page of 3 rows', 'page of 1 rows', 'page of 0 rows']);
  assert.equal(session.dataset.rowCount, 7);
  const stopped = await results(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/p) APPLY TX 'items' WITH PAGING 'page'
    APPLY PIPELINE ( APPLY FILTER 'id < 3'; ) BREAK_ON_EMPTY;`,
  );
  assert.equal(stopped.filter((r) => r.kind === 'error').length, 0);
  assert.deepEqual(plain(session.dataset), [[1], [2]]);
});

test('the empty page that ends page paging keeps the columns, so an inline block naming them runs', async () => {
  const { server, session } = await setup((req, res) => {
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);
    sendJson(res, { items: PEOPLE.slice((page - 1) * 3, page * 3) });
  });
  const out = await results(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/p) APPLY TX 'items' WITH PAGING 'page'
    APPLY PIPELINE ( APPLY FILTER 'id <> 2'; ADD COLUMN 'int twice=@sql(id * 2)'; PRINT 'page of #data.count() rows'; );`,
  );
  assert.deepEqual(messages(out), ['page of 2 rows', 'page of 3 rows', 'page of 1 rows', 'page of 0 rows']);
  assert.deepEqual(session.dataset.columns.map((c) => c.name).slice(-1), ['twice']);
  assert.deepEqual(
    session.dataset.rows().map((r) => r.at(-1)),
    [2, 6, 8, 10, 12, 14],
  );
});

test('options of APPLY HTTP are rejected on SELECT FROM HTTP', async () => {
  const { server, session } = await setup((req, res) => sendJson(res, {}));
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${server.url}/) WITH PROCESSING 'enhance';`),
    /PROCESSING is an APPLY HTTP option/,
  );
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${server.url}/) WITH HEADERS 'x-key: abc';`),
    /HEADERS is not valid JSON; expected a JSON array/,
  );
  assert.equal(server.requests.length, 0);
});

test('the APPLY HTTP options reference.md gives SELECT FROM HTTP: RETRY_ON, CONTINUE_ON_HTTPERROR, CONTINUE_ON_ERRORS, TRACE INTO', async () => {
  let polls = 0;
  const { server, session } = await setup((req, res) => {
    const url = new URL(req.url, 'http://x');
    const page = Number(url.searchParams.get('page') ?? 1);
    if (url.pathname === '/export') {
      polls++;
      return sendJson(res, polls < 3 ? { state: 'queued' } : { state: 'done', rows: PEOPLE.slice(0, 2) });
    }
    if (url.pathname === '/gone' && page > 2) return sendJson(res, { error: 'no such page' }, 404);
    if (url.pathname === '/broken' && page > 1) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items": [');
      return;
    }
    sendJson(res, { items: PEOPLE.slice(page - 1, page) });
  });
  await session.run('%connection add tr sqlite:select-trace.db');
  const polled = await load(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/export) APPLY TX 'rows'
     WITH RETRY_ON 'queued' RETRY_PATH '$.state' RETRY_INTERVAL 0 RETRY_COUNT 5 TRACE INTO [tr] TABLE 'calls';`,
  );
  assert.deepEqual(
    plain(polled).map((r) => r[0]),
    [1, 2],
  );
  assert.equal(polls, 3);
  const traced = await load(session, 'SELECT * FROM DB [tr] (select method, status from calls);');
  assert.deepEqual(plain(traced), [['GET', 200]], 'the call that gave the page is traced');
  // TRUNCATE_APPEND (spec 4.2 TRACE): the table is emptied once, then every page's call is appended.
  const pagedTrace = `SELECT * FROM HTTP (GET ${server.url}/people) APPLY TX 'items' WITH PAGING 'page' TRACE INTO [tr] TABLE 'calls' TRUNCATE_APPEND;`;
  const pagesTraced = async () =>
    plain(await load(session, 'SELECT * FROM DB [tr] (select url from calls);')).map((r) =>
      String(r[0]).replace(/^.*\/people/, ''),
    );
  const pages = ['', ...Array.from({ length: PEOPLE.length }, (_, i) => `?page=${i + 2}`)];
  await load(session, pagedTrace);
  assert.deepEqual(await pagesTraced(), pages, 'every page, none of the calls before');
  await load(session, pagedTrace);
  assert.deepEqual(await pagesTraced(), pages);

  const out = await results(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/gone) APPLY TX 'items' WITH PAGING 'page' CONTINUE_ON_HTTPERROR '404';`,
  );
  assert.deepEqual(
    plain(session.dataset).map((r) => r[0]),
    [1, 2],
  );
  assert.match(
    out.flatMap((r) => (r.kind === 'warning' ? [r.text] : [])).join('\n'),
    /HTTP 404 from GET http:\/\/127\.0\.0\.1:\d+\/gone\?page=3 was let through; the read stops there/,
  );
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${server.url}/gone) APPLY TX 'items' WITH PAGING 'page';`),
    /HTTP 404 Not Found from GET/,
  );
  await load(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/broken) APPLY TX 'items' WITH PAGING 'page' CONTINUE_ON_ERRORS;`,
  );
  assert.deepEqual(
    plain(session.dataset).map((r) => r[0]),
    [1],
  );
});

test('with RETRY options, a 429 or 503 with Retry-After (seconds or an HTTP date) is tried again after that wait, counted in RETRY_COUNT', async () => {
  const calls = new Map<string, number>();
  const { server, session } = await setup((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const n = (calls.get(path) ?? 0) + 1;
    calls.set(path, n);
    if (path.startsWith('/always') || n === 1)
      return sendJson(res, { error: 'slow down' }, 429, { 'retry-after': '0' });
    // An HTTP date already past: no wait.
    if (n === 2) return sendJson(res, { error: 'busy' }, 503, { 'retry-after': new Date(0).toUTCString() });
    sendJson(res, { items: PEOPLE.slice(0, 2) });
  });
  const read = `SELECT * FROM HTTP (GET ${server.url}/limited) APPLY TX 'items'`;
  await session.run(`${read} WITH RETRY_ON 'queued' RETRY_COUNT 3;`);
  assert.deepEqual(
    plain(session.dataset).map((r) => r[0]),
    [1, 2],
  );
  assert.equal(calls.get('/limited'), 3);

  // Without RETRY options the first 429 is the answer.
  calls.clear();
  await assert.rejects(
    session.run(`${read};`),
    /HTTP 429 Too Many Requests from GET .*\/limited: \{"error":"slow down"\}/,
  );
  assert.equal(calls.get('/limited'), 1);

  // When RETRY_COUNT runs out, the last answer stands.
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${server.url}/always) WITH RETRY_ON 'queued' RETRY_COUNT 2;`),
    /HTTP 429 Too Many Requests from GET .*\/always/,
  );
  assert.equal(calls.get('/always'), 3);

  // APPLY HTTP, a call per row.
  calls.clear();
  session.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1]]));
  await session.run(
    `APPLY HTTP (GET ${server.url}/limited/{{id}}) APPLY TX 'items' WITH PROCESSING 'replace' RETRY_ONREGEX 'queued' RETRY_COUNT 2;`,
  );
  assert.deepEqual(
    plain(session.dataset).map((r) => r[0]),
    [1, 2],
  );
  assert.equal(calls.get('/limited/1'), 3);
});

test('a Retry-After wait of RETRY options is said in a warning, at most 60 s, and cut short by cancelling the statement', async () => {
  const hourAhead = () => new Date(Date.now() + 3_600_000).toUTCString();
  const { server, session } = await setup((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const asked = path.endsWith('/date') ? hourAhead() : path.endsWith('/short') ? '30' : '3600';
    sendJson(res, { error: 'come back later' }, 429, { 'retry-after': asked });
  });
  /** Runs `script`, cancels it at the first warning (the wait has begun); returns that warning. */
  const warnedThenCancelled = async (script: string) => {
    const controller = new AbortController();
    const warnings: string[] = [];
    let error: ScriptError | undefined;
    for await (const r of session.execute(script, { signal: controller.signal })) {
      if (r.kind === 'warning') {
        warnings.push(r.text);
        controller.abort();
      }
      if (r.kind === 'error') error = r.error;
    }
    assert.equal(error?.kind, 'cancelled', script);
    assert.equal(warnings.length, 1, script);
    return warnings[0];
  };
  const read = (path: string) => `SELECT * FROM HTTP (GET ${server.url}${path}) WITH RETRY_ON 'queued' RETRY_COUNT 1;`;
  assert.match(
    await warnedThenCancelled(read('/later')),
    /^HTTP 429 from GET http:\/\/127\.0\.0\.1:\d+\/later: Retry-After 3600 s; trying again in 60 s \(60 s at most\)$/,
  );
  assert.match(
    await warnedThenCancelled(read('/later/date')),
    /\/later\/date: Retry-After 3[56]\d\d s; trying again in 60 s \(60 s at most\)$/,
  );
  assert.match(await warnedThenCancelled(read('/short')), /\/short: Retry-After 30 s; trying again in 30 s$/);
  session.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1]]));
  assert.match(
    await warnedThenCancelled(
      `APPLY HTTP (GET ${server.url}/later/{{id}}) WITH PROCESSING 'left join' RETRY_ON 'queued' RETRY_COUNT 1;`,
    ),
    /\/later\/1: Retry-After 3600 s; trying again in 60 s \(60 s at most\)$/,
  );
  // Each cancelled during its wait: none was tried a second time.
  assert.equal(server.requests.length, 4);
});
