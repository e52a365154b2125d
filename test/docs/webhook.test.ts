import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli as sqlcdc } from '../helpers/cli';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { startServe, type Serve } from '../helpers/serve';
import { tempDir, tempSession } from '../helpers/session';
import { columnOf, DocPage, runOk, statementsOf } from './harness';
import { curl, sh } from './shell';

/**
 * docs/webhook.md's commands run with this build's `sqlcdc`, and each curl example of "Status codes"
 * is sent to a running `sqlcdc serve` (with fetch) and answered with the status the prose before it
 * names; the job behind `$G` pushes to a local target.
 */
const page = new DocPage('webhook.md');
const dir = tempDir('docs-webhook');
let target: TestServer;
let serve: Serve;
const env: Record<string, string> = {};

async function cli(...args: string[]): Promise<string> {
  const r = await sqlcdc(dir, args);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

before(async () => {
  target = await startHttpServer((req, res) => sendJson(res, { ok: true }));
  writeFileSync(join(dir, 'connections.sql'), `%connection add target ${target.url}\n`);
  writeFileSync(
    join(dir, 'writer.sql'),
    "LOAD UPSERTS FROM 'orders';\nPUSH INTO HTTP [target] ON_UPSERT (POST /orders);\n",
  );
  writeFileSync(join(dir, 'read.sql'), "SELECT * FROM DRIVE 'orders.csv';\nCAPTURE 'sync' ON KEYS 'id';\n");
  writeFileSync(join(dir, 'sync-writer.sql'), "LOAD UPSERTS FROM 'sync';\nPRINT 'played';\n");
  await cli('run', 'connections.sql');
  env.G = await cli('job', 'create', 'orders', '--writer', 'writer.sql', '--webhook');
  const direct = await cli('job', 'create', 'sync', '--reader', 'read.sql', '--writer', 'sync-writer.sql', '--webhook');
  env.WRITER_GUID_OF_DIRECT_JOB = /^writer (\w+)$/m.exec(direct)![1];
  env.NOT_A_WEBHOOK_JOB = await cli('job', 'create', 'plain', '--writer', 'writer.sql');
  env.KEY = await cli('webhook', 'key', 'new', '--name', 'docs');
  serve = await startServe(dir, []);
  env.U = serve.url;
});
after(async () => {
  await serve?.stop();
  await target.close();
});

test('access keys: made, listed without the key, revoked at once', async () => {
  const block = page.take('KEY=$(sqlcdc webhook key new --name ci)', 'sh');
  const r = await sh(dir, `${block.code}\necho "key: $KEY"`);
  assert.equal(r.code, 0, r.stderr);
  const key = /^key: (\S+)$/m.exec(r.stdout)![1];
  assert.match(r.stdout, /\bci\b/, 'the list names it');
  assert.equal(r.stdout.split(key).length, 2, 'the key is printed once, by key new, never by the list');
  const refused = await curl(`curl -H "Authorization: Bearer ${key}" "$U?guid=$G" -d '{}'`, env);
  assert.equal(refused.status, 401, 'revoked: refused without a restart');
});

test('each status code example is answered with that status', async () => {
  const statusOf = (before: string) => Number([...before.matchAll(/\*\*(\d{3})\*\*/g)].at(-1)![1]);
  const examples = page.blocks.filter((b) => b.lang === 'sh' && b.code.includes('curl '));
  assert.ok(examples.length >= 9, `curl examples: ${examples.length}`);
  for (const example of examples) {
    const block = page.take(example.code, 'sh');
    const status = statusOf(block.before);
    if (status === 422)
      await curl(
        `curl -H "Authorization: Bearer $KEY" -H 'Idempotency-Key: order-42' "$U?guid=$G" -d '{"id": 42}'`,
        env,
      );
    if (/while the PUSH target is down/.test(block.code)) await target.close();
    for (const line of block.code.trim().split('\n')) {
      const answer = await curl(line, env);
      assert.equal(answer.status, status, `webhook.md:${block.line}: ${line} → ${answer.text}`);
      if (status === 200) {
        const json = page.blocks.find((b) => b.lang === 'json' && b.code.includes('"executionId"'))!;
        const shown = JSON.parse(json.code) as Record<string, unknown>;
        const got = JSON.parse(answer.text) as Record<string, unknown>;
        assert.deepEqual(Object.keys(got), Object.keys(shown));
        assert.deepEqual({ ...got, executionId: '', changeLog: '' }, { ...shown, executionId: '', changeLog: '' });
      }
      if (status === 405) assert.ok(answer.headers.get('allow'), 'the Allow header lists the methods');
      if (status === 500)
        assert.match(
          (JSON.parse(answer.text) as { writer: { error: string } }).writer.error,
          /ECONNREFUSED|connect|refused/i,
        );
    }
  }
});

test("%webhook start: a session's statements reach its listener through @webhookurl and @webhookkey", async () => {
  const block = page.take('SELECT * FROM HTTP (POST {{@webhookurl}})');
  const { session } = tempSession({ 'items.csv': 'id\n1\n2\n' }, 'docs-webhook');
  try {
    await runOk(session, '%webhook start', 'the listener');
    const [select, push] = statementsOf(block.code);
    await runOk(session, select, `webhook.md:${block.line}`);
    assert.deepEqual(columnOf(session, 'rows'), [1]);
    await runOk(session, "SELECT * FROM DRIVE 'items.csv';", 'the items');
    const { said } = await runOk(session, push, `webhook.md:${block.line}`);
    assert.ok(
      said.some((s) => /2 rows/.test(s)),
      said.join(' | '),
    );
  } finally {
    await session.close();
  }
});

/**
 * A request written as bytes (what fetch cannot send) to the listener at `url`, and its answer: status
 * and JSON body. With `stall`, the connection stays open after the bytes, as a sender that stopped.
 */
async function raw(
  request: string,
  { url = env.U, stall = false } = {},
): Promise<{ status: number; body: { error?: string } }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  if (stall) socket.write(request);
  else socket.end(request);
  let answer = '';
  for await (const chunk of socket) answer += String(chunk);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  return { status, body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error?: string } };
}

/** The page's quote that starts with `start`, up to its closing backtick; a closing `…` stands for the rest. */
function quoted(start: string): string {
  const text = page.blocks
    .map((b) => b.before)
    .join('')
    .replace(/\s+/g, ' ');
  const i = text.indexOf(`\`${start}`);
  assert.ok(i >= 0, `webhook.md quotes ${start}`);
  return text.slice(i + 1, text.indexOf('`', i + 1)).replace(/ …$/, '');
}

test('the refusals answer the JSON reasons the page quotes', async () => {
  const auth = { authorization: `Bearer ${env.KEY}`, 'content-type': 'application/json' };
  const post = async (query: string, body: string, headers: Record<string, string> = {}) => {
    const r = await fetch(`${env.U}?guid=${env.G}${query}`, { method: 'POST', body, headers: { ...auth, ...headers } });
    return { status: r.status, error: ((await r.json()) as { error?: string }).error ?? '' };
  };
  const nested = await post('', `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
  assert.equal(nested.status, 400);
  assert.ok(nested.error.startsWith(quoted('bad payload: the document is nested too deeply')), nested.error);
  const rootpath = await post('&rootpath=$.data.itemz', '{"data": {"items": []}}');
  assert.equal(rootpath.status, 400);
  assert.ok(rootpath.error.startsWith(quoted("bad payload: rootpath '$.data.itemz'")), rootpath.error);
  await post('', '{"id": 42}', { 'idempotency-key': 'order-42' });
  const reused = await post('', '{"id": 43}', { 'idempotency-key': 'order-42' });
  assert.equal(reused.status, 422);
  assert.ok(reused.error.startsWith(quoted("Idempotency-Key 'order-42'")), reused.error);
  const guid = `/job/push?guid=${env.G}`;
  const twice = await raw(`POST ${guid} HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}`);
  assert.deepEqual(twice, { status: 400, body: JSON.parse(quoted('{"error": "malformed HTTP request')) as unknown });
  const hostless = await raw(
    `POST ${guid} HTTP/1.1\r\nAuthorization: Bearer ${env.KEY}\r\nContent-Length: 2\r\n\r\n{}`,
  );
  assert.deepEqual(hostless, { status: 400, body: { error: quoted('an HTTP/1.1 request needs a Host header') } });
});

test('408, 417 and 431 answer the JSON reasons the page quotes, the 408s after a short --read-timeout', async () => {
  const slow = await startServe(dir, ['--read-timeout', '0.5s']);
  try {
    const guid = `/job/push?guid=${env.G}`;
    const head = `POST ${guid} HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer ${env.KEY}\r\n`;
    const headless = await raw(`${head}Content-Type: application/json\r\n`, { url: slow.url, stall: true });
    assert.deepEqual(headless, { status: 408, body: { error: quoted('the request did not arrive whole in time') } });
    const stalled = await raw(`${head}Content-Length: 10\r\n\r\n{"id`, { url: slow.url, stall: true });
    const stall = quoted('the body stalled: nothing arrived for 60 s').replace('60 s', '0.5 s');
    assert.deepEqual(stalled, { status: 408, body: { error: stall } });
  } finally {
    await slow.stop();
  }
  const refusal = quoted('Expect: ');
  const expect = /^Expect: (\S+) /.exec(refusal)![1];
  const expecting = await raw(`POST /job/push?guid=${env.G} HTTP/1.1\r\nHost: h\r\nExpect: ${expect}\r\n\r\n`);
  assert.deepEqual(expecting, { status: 417, body: { error: refusal } });
  const large = await raw(`POST /job/push?guid=${env.G} HTTP/1.1\r\nHost: h\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`);
  assert.deepEqual(large, { status: 431, body: { error: quoted('the request line and headers are over 16 KB') } });
});

test('every example of docs/webhook.md ran', () => page.assertEveryExampleRan());
