import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Dataset, type Result } from '../../runtime/index';
import type { Session } from '../../runtime/session';
import { runCli } from '../helpers/cli';
import { postgresUnavailable, startPostgres } from '../helpers/postgres';
import { startHttpServer, type Handler, type TestServer } from '../helpers/http-server';
import { tempDir, tempSession } from '../helpers/session';

/**
 * Issue 12's contracts that no other test reaches through a public interface: binary prefixes and
 * pipeline variables in a call's path and headers, TRACE INTO's WITH_PAYLOAD / TRUNCATE /
 * TRUNCATE_APPEND on a push, and a push run by the CLI (its final message, a failing status, Ctrl-C).
 */
const servers: TestServer[] = [];
const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

async function server(handler: Handler): Promise<TestServer> {
  const s = await startHttpServer(handler);
  servers.push(s);
  return s;
}

function ok(_req: unknown, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json', 'x-answer': 'yes' }).end('{"ok": true}');
}

function session(files: Record<string, string> = {}): { session: Session; dir: string } {
  const t = tempSession(files, 'issue12');
  sessions.push(t.session);
  return t;
}

const messages = (results: Result[]) => results.flatMap((r) => (r.kind === 'message' ? [r.text] : []));

test('binary prefixes, #functions and pipeline variables are evaluated in the path and HEADERS of each call', async () => {
  const api = await server(ok);
  const { session: s } = session();
  await s.run(`%connection add api ${api.url}`);
  const name = `Zoë "O'Brien" 東京`;
  s.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'name', type: { base: 'string' } },
        { name: 'wide', type: { base: 'bytes' } },
        { name: 'raw', type: { base: 'bytes' } },
      ],
      [[1, name, Buffer.from('héllo', 'utf16le'), Buffer.from('ab/c', 'ascii')]],
    ),
  );
  await s.run(
    `PUSH INTO HTTP [api] ON_UPSERT (PUT /b/{{hex:raw}}/{{ascii:raw}}/{{@executionId}}) ` +
      `HEADERS '[{"X-Wide": "{{unicode:wide}}"}, {"X-Name": "{{base64:name}}"}, {"X-Upper": "#toupper(abc)"}]' ` +
      `PAYLOAD ({"name": "{{name}}", "wide": "{{unicode:wide}}", "b64": "{{base64:raw}}"});`,
  );
  const [req] = api.requests;
  const [, , hex, ascii, executionId] = req.url.split('/');
  assert.equal(hex, Buffer.from('ab/c').toString('hex'));
  assert.equal(ascii, 'ab%2Fc', "a field's value in the path is one percent-encoded component");
  assert.match(executionId, /^\d{13,}$/, '{{@executionId}} is the run’s execution id');
  assert.equal(req.headers['x-wide'], 'héllo', '{{unicode:f}} decodes UTF-16LE');
  assert.equal(Buffer.from(String(req.headers['x-name']), 'base64').toString('utf8'), name);
  assert.equal(req.headers['x-upper'], 'ABC');
  assert.deepEqual(JSON.parse(req.body), { name, wide: 'héllo', b64: Buffer.from('ab/c').toString('base64') });
});

test('TRACE INTO on a push: WITH_PAYLOAD keeps the answer, every column is filled, TRUNCATE and TRUNCATE_APPEND empty the table first, neither appends', async () => {
  const api = await server(ok);
  const { session: s } = session();
  await s.run(`%connection add api ${api.url}`);
  await s.run('%connection add tr sqlite:issue12-trace.db');
  s.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1], [2], [3]]));
  const push = (trace: string) =>
    s.run(
      `PUSH INTO HTTP [api] ON_UPSERT (POST /t/{{id}}) PAYLOAD ({"id": {{id}}}) TRACE INTO [tr] TABLE 'calls' ${trace};`,
    );
  const count = async () => {
    const saved = s.dataset;
    await s.run('SELECT * FROM DB [tr] (SELECT count(*) AS n FROM calls);');
    const n = s.dataset.rows()[0][0];
    s.setDataset(saved);
    return Number(n);
  };
  await push('WITH_PAYLOAD');
  assert.equal(await count(), 3);
  await push('');
  assert.equal(await count(), 6, 'without TRUNCATE the calls are appended');
  await push('TRUNCATE');
  assert.equal(await count(), 3, 'TRUNCATE empties the table when the statement starts');
  await push('TRUNCATE_APPEND WITH_PAYLOAD');
  assert.equal(await count(), 3, 'TRUNCATE_APPEND empties it once, then appends every call');
  await s.run(
    'SELECT * FROM DB [tr] (SELECT time, method, url, status, duration_ms, request_headers, request_body, response_headers, response_body FROM calls ORDER BY url);',
  );
  const rows = s.dataset.rows();
  const [time, method, url, status, duration, reqHeaders, reqBody, resHeaders, resBody] = rows[0];
  assert.ok(time !== null && !Number.isNaN(new Date(time as string).getTime()), `time ${String(time)}`);
  assert.equal(method, 'POST');
  assert.match(String(url), /^http:\/\/127\.0\.0\.1:\d+\/t\/1$/);
  assert.equal(status, 200);
  assert.ok(Number.isInteger(Number(duration)) && Number(duration) >= 0, `duration_ms ${String(duration)}`);
  assert.match(
    String((JSON.parse(String(reqHeaders)) as Record<string, string>)['Idempotency-Key'] ?? ''),
    /-upsert-1$/,
  );
  assert.equal(reqBody, '{"id": 1}');
  assert.equal((JSON.parse(String(resHeaders)) as Record<string, string>)['x-answer'], 'yes');
  assert.equal(resBody, '{"ok": true}', 'WITH_PAYLOAD stores the response body');
});

test('TRUNCATE_APPEND on both sections of one push: the table is emptied once, and holds the upsert and the delete calls', async () => {
  const api = await server(ok);
  const { session: s } = session({ 'day1.csv': 'id,v\n1,a\n2,b\n', 'day2.csv': 'id,v\n2,b\n3,c\n' });
  await s.run(`%connection add api ${api.url}`);
  await s.run('%connection add tr sqlite:issue12-sections.db');
  await s.run("SELECT * FROM DRIVE 'day1.csv'; CAPTURE 'x' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';");
  const trace = `TRACE INTO [tr] TABLE 'calls' TRUNCATE_APPEND`;
  await s.run(
    `SELECT * FROM DRIVE 'day2.csv'; CAPTURE 'x' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';
     PUSH INTO HTTP [api] ON_UPSERT (PUT /u/{{id}}) ${trace} ON_DELETE (DELETE /d/{{id}}) ${trace};`,
  );
  assert.deepEqual(
    api.requests.map((r) => `${r.method} ${r.url}`),
    ['PUT /u/3', 'DELETE /d/1'],
  );
  await s.run('SELECT * FROM DB [tr] (SELECT method, url FROM calls ORDER BY method DESC);');
  assert.deepEqual(
    s.dataset.rows().map((r) => `${String(r[0])} ${String(r[1]).replace(/^http:\/\/127\.0\.0\.1:\d+/, '')}`),
    ['PUT /u/3', 'DELETE /d/1'],
  );
});

test('sqlcdc run: a push states calls, rows, retries and failures; a refused call exits 1 naming the status, the request and the body', async () => {
  const api = await server((req, res) =>
    req.url.endsWith('/2') ? void res.writeHead(409).end('order 2 exists already') : ok(req, res),
  );
  const dir = tempDir('issue12-cli');
  writeFileSync(join(dir, 'items.csv'), 'id,name\n1,a\n2,b\n3,c\n');
  const push = (options: string) =>
    `SELECT * FROM DRIVE 'items.csv';\nPUSH INTO HTTP ON_UPSERT (POST ${api.url}/items/{{id}}) PAYLOAD ({"id": {{id}}}) ${options};\n`;
  writeFileSync(join(dir, 'let.sql'), push("CONTINUE_ON_HTTP '409'"));
  writeFileSync(join(dir, 'stop.sql'), push(''));
  const let409 = await runCli(dir, ['run', 'let.sql']);
  assert.equal(let409.code, 0, let409.stderr);
  assert.match(
    let409.stderr,
    /PUSH INTO HTTP: 3 calls made, 3 rows sent, 0 retries, 1 failure let through by CONTINUE_ON_HTTP/,
  );
  const stop = await runCli(dir, ['run', 'stop.sql']);
  assert.equal(stop.code, 1);
  assert.match(
    stop.stderr,
    /^stop\.sql:2:\d+: PUSH INTO HTTP: HTTP 409 Conflict from POST http:\/\/127\.0\.0\.1:\d+\/items\/2: order 2 exists already/m,
  );
  assert.equal(stop.stdout, '');
});

test('sqlcdc run: Ctrl-C cancels a push waiting on a silent server at once (exit 130, the statement named)', async () => {
  const api = await server(() => undefined);
  const dir = tempDir('issue12-cancel');
  writeFileSync(join(dir, 'items.csv'), 'id\n1\n2\n');
  writeFileSync(
    join(dir, 'push.sql'),
    `SELECT * FROM DRIVE 'items.csv';\nPUSH INTO HTTP ON_UPSERT (POST ${api.url}/x) PAYLOAD ({{id}}) WITH TIMEOUT 0;\n`,
  );
  const outcome = await runCli(dir, ['run', 'push.sql'], {
    started: (child) => void api.received(1).then(() => child.kill('SIGINT')),
  });
  assert.equal(outcome.code, 130, outcome.stderr);
  assert.match(outcome.stderr, /^push\.sql:2:1: PUSH INTO HTTP: cancelled/m);
  assert.equal(api.requests.length, 1);
});

test('a push reports its final message through Session.execute as a message result', async () => {
  const api = await server(ok);
  const { session: s } = session();
  s.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1], [2]]));
  const out = await s.run(`PUSH INTO HTTP ON_UPSERT (POST ${api.url}/x) PAYLOAD ([@concatjson({{id}})]) WITH BATCH 2;`);
  assert.deepEqual(messages(out), [
    'PUSH INTO HTTP: 1 call made, 2 rows sent, 0 retries, 0 failures let through by CONTINUE_ON_HTTP',
  ]);
  assert.deepEqual(JSON.parse(api.requests[0].body), [1, 2]);
});

test(
  'TRACE INTO a PostgreSQL table (no stage): one row per call of both sections, TRUNCATE empties it once, the API key masked',
  { skip: postgresUnavailable() },
  async () => {
    const pg = startPostgres();
    try {
      const api = await server(ok);
      const { session: s } = session({ 'day1.csv': 'id,v\n1,a\n2,b\n', 'day2.csv': 'id,v\n2,b\n3,c\n' });
      await s.run(`%connection add api ${api.url} --header "X-Api-Key: PGTRACEKEY1"`);
      await s.run(`%connection add pg ${await pg.newDatabase()}`);
      await s.run("SELECT * FROM DRIVE 'day1.csv'; CAPTURE 'x' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';");
      const trace = `TRACE INTO [pg] TABLE 'calls' WITH_PAYLOAD TRUNCATE`;
      const push = `PUSH INTO HTTP [api] ON_UPSERT (PUT /u/{{id}}) ${trace} ON_DELETE (DELETE /d/{{id}}) ${trace};`;
      await s.run(
        `SELECT * FROM DRIVE 'day2.csv'; CAPTURE 'x' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';\n${push}`,
      );
      await s.run(push);
      await s.run(
        'SELECT * FROM DB [pg] (SELECT method, status, request_headers, response_body, pg_typeof(time)::text AS t FROM calls ORDER BY method DESC);',
      );
      const rows = s.dataset.rows();
      assert.deepEqual(
        rows.map((r) => [r[0], r[1], r[3], String(r[4]).split(' ')[0]]),
        [
          ['PUT', 200, '{"ok": true}', 'timestamp'],
          ['DELETE', 200, '{"ok": true}', 'timestamp'],
        ],
        'the second push emptied the table once and kept both of its calls',
      );
      assert.doesNotMatch(JSON.stringify(rows), /PGTRACEKEY1/);
      assert.match(String(rows[0][2]), /X-Api-Key/i);
    } finally {
      pg.stop();
    }
  },
);

test("APPLY HTTP per row with RETRY_ON / RETRY_PATH / RETRY_COUNT: each row's call is repeated until its answer stops asking", async () => {
  const tries = new Map<string, number>();
  const api = await server((req, res) => {
    const n = (tries.get(req.url) ?? 0) + 1;
    tries.set(req.url, n);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ state: n < 3 ? 'busy' : 'done', id: req.url.split('/').pop() }));
  });
  const { session: s } = session();
  s.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1], [2]]));
  await s.run(
    `APPLY HTTP (GET ${api.url}/job/{{id}}) APPLY TX '$' WITH PROCESSING 'left join' RETRY_ON 'busy' RETRY_PATH '$.state' RETRY_INTERVAL 0 RETRY_COUNT 5;`,
  );
  assert.deepEqual(
    api.requests.map((r) => r.url),
    ['/job/1', '/job/1', '/job/1', '/job/2', '/job/2', '/job/2'],
  );
  const state = s.dataset.columns.findIndex((c) => c.name === 'state');
  assert.deepEqual(
    s.dataset.rows().map((r) => r[state]),
    ['done', 'done'],
  );
  tries.clear();
  await s.run(`APPLY HTTP (GET ${api.url}/job/9) WITH PROCESSING 'replace' RETRY_ONREGEX 'bu+sy' RETRY_INTERVAL 0;`);
  assert.equal(
    api.requests.filter((r) => r.url === '/job/9').length,
    2,
    'RETRY_COUNT defaults to 1: the call and one repeat',
  );
});
