import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Session } from '../../runtime/session';
import { sendJson, startHttpServer, type Handler, type TestServer } from '../helpers/http-server';
import { plain, sessionWith } from './helpers';

// The size limit on HTTP answers (docs/sources.md "Answer size"), checked in the transport that
// SELECT FROM HTTP, APPLY HTTP and PUSH INTO HTTP share.

const opened: { server: TestServer; session: Session }[] = [];

after(async () => {
  for (const { server, session } of opened) {
    await session.close();
    await server.close();
  }
});

/** A server, and a session with connection [api] to it whose answers may be 64 KiB at most. */
async function setup(handler: Handler): Promise<{ server: TestServer; session: Session }> {
  const server = await startHttpServer(handler);
  const { session } = sessionWith();
  opened.push({ server, session });
  await session.run(`%connection add api ${server.url} --bearer s3cret --max-answer 64kb`);
  return { server, session };
}

/** Resolves when the client has closed the connection of `res` before its answer ended. */
function closedEarly(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => res.on('close', () => resolve(!res.writableFinished)));
}

test('an answer announcing more than the limit (Content-Length) fails before its body is read, and its connection is closed', async () => {
  let closed: Promise<boolean> | undefined;
  const { server, session } = await setup((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 ** 2) });
    // A start of the body, then nothing: only the announced length can make the client stop.
    res.write('['.padEnd(1024, ' '));
    closed = closedEarly(res);
  });
  await assert.rejects(
    session.run("SELECT * FROM HTTP [api] (GET /big?api_key=k3y) APPLY TX '$[*]';"),
    (e: Error & { statement?: string }) => {
      assert.match(
        e.message,
        /^the answer of GET http:\/\/127\.0\.0\.1:\d+\/big\?api_key=\*\*\*\* announces 10485760 bytes \(Content-Length\), over the limit of 64kb \(65536 bytes\); raise it with %connection add api … --max-answer SIZE$/,
      );
      assert.equal(e.statement, 'SELECT FROM HTTP');
      assert.doesNotMatch(e.message, /k3y|s3cret/);
      return true;
    },
  );
  assert.equal(server.requests.length, 1);
  assert.equal(await closed, true, 'the connection is closed, not drained');
});

test('a chunked answer growing past the limit fails as it passes it; reading stops and the connection is closed', async () => {
  let sent = 0;
  const total = 64 * 1024 ** 2;
  let closed: Promise<boolean> | undefined;
  const { session } = await setup(async (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    closed = closedEarly(res);
    const gone = new Promise((resolve) => res.once('close', resolve));
    // Far more than socket buffers hold (bounded): the server only gets this far if the client reads it all.
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), gone]);
    }
    res.end();
  });
  await assert.rejects(
    session.run('SELECT * FROM HTTP [api] (GET /stream);'),
    /the answer of GET http:\/\/127\.0\.0\.1:\d+\/stream passed \d+ bytes before the end, over the limit of 64kb \(65536 bytes\); raise it with %connection add api … --max-answer SIZE$/,
  );
  assert.equal(await closed, true);
  assert.ok(sent < total, `the server stopped sending (${sent} of ${total} bytes sent)`);
});

test('without a connection the default limit is 256mb, and the error says how to raise it', async () => {
  const server = await startHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(300 * 1024 ** 2) });
    res.write('a');
  });
  const { session } = sessionWith();
  opened.push({ server, session });
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${server.url}/huge);`),
    /announces 314572800 bytes \(Content-Length\), over the limit of 256mb \(268435456 bytes\); give the call a connection with a larger limit \(%connection add NAME URL --max-answer SIZE\)$/,
  );
});

test('the limit is per answer: each page of a paged read, each call of APPLY HTTP and PUSH INTO HTTP', async () => {
  const page = (n: number) => Array.from({ length: 400 }, (_, i) => ({ id: n * 1000 + i, pad: 'x'.repeat(100) }));
  const { server, session } = await setup((req, res) => {
    const url = new URL(req.url, 'http://x');
    const n = Number(url.searchParams.get('page') ?? 1);
    if (url.pathname === '/pages') return sendJson(res, n <= 3 ? { items: page(n) } : { items: [] });
    if (url.pathname === '/small') return sendJson(res, { id: 1 });
    sendJson(res, { items: [...page(8), ...page(9)] });
  });
  // Three pages of ~48 KiB each: more than 64 KiB together, each under it.
  await session.run("SELECT * FROM HTTP [api] (GET /pages) APPLY TX 'items' WITH PAGING 'page';");
  assert.equal(session.dataset.rowCount, 1200);

  session.setDataset(Dataset.fromRows([{ name: 'path', type: { base: 'string' } }], [['small'], ['large']]));
  await assert.rejects(
    session.run("APPLY HTTP [api] (GET /{{path}}) APPLY TX '$' WITH PROCESSING 'inner join';"),
    (e: Error & { statement?: string }) => {
      assert.match(e.message, /^the answer of GET http:\/\/127\.0\.0\.1:\d+\/large passed \d+ bytes before the end/);
      assert.equal(e.statement, 'APPLY HTTP');
      return true;
    },
  );
  await session.run("APPLY HTTP [api] (GET /{{path}}) APPLY TX '$' WITH PROCESSING 'inner join' CONTINUE_ON_ERRORS;");
  assert.deepEqual(plain(session.dataset), [['small', 1]]);

  session.setDataset(Dataset.fromRows([{ name: 'path', type: { base: 'string' } }], [['large']]));
  // Not retried: the same call would get the same answer.
  const before = server.requests.length;
  await assert.rejects(
    session.run('PUSH INTO HTTP [api] ON_UPSERT (POST /{{path}}) WITH RETRY LINEAR (3, 0);'),
    /over the limit of 64kb/,
  );
  assert.equal(server.requests.length, before + 1);
});

test('--max-answer takes a size as `sqlcdc serve --max-body` does, and %connection list shows it', async () => {
  const { session } = sessionWith();
  opened.push({ server: await startHttpServer(() => undefined), session });
  for (const bad of ['abc', '0', '-1mb', '10 tb'])
    await assert.rejects(
      session.run(`%connection add x http://127.0.0.1:1/ --max-answer '${bad}'`),
      /--max-answer takes a size like 10mb, 1gb, 512kb or a number of bytes/,
    );
  await session.run('%connection add x http://127.0.0.1:1/ --max-answer 1.5gb');
  const out = await session.run('%connection list');
  assert.match(JSON.stringify(out), /\\"maxAnswer\\":1610612736/);
});
