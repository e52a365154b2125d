import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { runCli } from '../helpers/cli';
import { call, startServe, type Serve } from '../helpers/serve';
import { tempDir } from '../helpers/session';

/**
 * Slow senders against the real `sqlcdc serve` (docs/webhook.md, "Slow senders"): with
 * `--read-timeout 2`, headers must arrive within 2 s and a body may not pause longer than that, while
 * a body that keeps coming takes as long as it needs. Before, Node's limits held a staller's
 * connection 60 s (headers) or 5 minutes (the whole request), and cut a slow large body at 5 minutes.
 */

const LIMITS = { timeout: 60_000 };
let dir: string;
let serve: Serve;
let port: number;
let guid: string;

before(async () => {
  dir = tempDir('slow-senders');
  writeFileSync(join(dir, 'w.sql'), "ADD COLUMN 'int seen=1';\n");
  const r = await runCli(dir, ['job', 'create', 'orders', '--writer', 'w.sql', '--webhook', '--workspace', 'ws']);
  assert.equal(r.code, 0, r.stderr);
  guid = /([0-9a-f]{32})/.exec(r.stdout)![1];
  serve = await startServe(dir, ['--workspace', 'ws', '--no-auth', '--read-timeout', '2']);
  port = Number(new URL(serve.url).port);
});
after(async () => {
  await serve?.stop();
});

interface RawAnswer {
  status?: number;
  body: string;
}

/**
 * Writes `pieces` on a new connection, each `gapMs` after the one before, and never ends it from this
 * side: the answer is whatever the listener wrote before it closed the connection.
 */
function send(pieces: string[], gapMs = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]) || undefined, body: text.slice(end + 4) });
    });
    void (async () => {
      for (const [k, piece] of pieces.entries()) {
        if (k > 0) await delay(gapMs);
        if (socket.destroyed) return;
        socket.write(piece);
      }
    })();
  });
}

const head = (headers: string, id = guid) =>
  `POST /job/push?guid=${id} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n${headers}\r\n`;

const error = (a: RawAnswer) => (JSON.parse(a.body) as { error: string }).error;

test('headers that stop coming are answered 408 with a JSON reason after the read timeout', LIMITS, async () => {
  const a = await send([`POST /job/push?guid=${guid} HTTP/1.1\r\nHost: x\r\n`]);
  assert.equal(a.status, 408, a.body);
  assert.equal(error(a), 'the request did not arrive whole in time');
});

test(
  'a body that stalls short of its Content-Length, or a chunked body without its last chunk, is answered 408',
  LIMITS,
  async () => {
    const short = await send([head('Content-Length: 100\r\n') + '[{"id": 1}']);
    assert.equal(short.status, 408, short.body);
    assert.equal(error(short), 'the body stalled: nothing arrived for 2 s');
    const chunked = await send([head('Transfer-Encoding: chunked\r\n') + 'a\r\n[{"id": 1}\r\n']);
    assert.equal(chunked.status, 408, chunked.body);
    assert.equal(error(chunked), 'the body stalled: nothing arrived for 2 s');
  },
);

test(
  'a refused call whose body stalls gets its refusal after the read timeout, not a connection held',
  LIMITS,
  async () => {
    const other = '0123456789abcdef0123456789abcdef';
    const a = await send([head('Content-Length: 100\r\n', other) + '[{"id": 1}']);
    assert.equal(a.status, 404, a.body);
    assert.equal(error(a), `no job has guid ${other}`);
  },
);

test('a body that keeps coming takes longer than the read timeout and is taken whole', LIMITS, async () => {
  const body = JSON.stringify(Array.from({ length: 16 }, (_, id) => ({ id })));
  // 16 pieces 250 ms apart: about 4 s in all, twice the read timeout, never a pause near it.
  const size = Math.ceil(body.length / 16);
  const pieces = Array.from({ length: 16 }, (_, k) => body.slice(k * size, (k + 1) * size));
  const a = await send([head(`Content-Length: ${body.length}\r\n`), ...pieces], 250);
  assert.equal(a.status, 200, a.body);
  assert.equal((JSON.parse(a.body) as { rows?: number }).rows, 16, a.body);
  // The listener goes on taking calls.
  const r = await call(serve.url, {
    query: { guid },
    headers: { 'content-type': 'application/json' },
    body: '[{"id": 1}]',
  });
  assert.equal(r.status, 200, r.text);
});

test('--read-timeout takes seconds; anything else is a usage error', LIMITS, async () => {
  const r = await runCli(dir, ['serve', '--port', '0', '--no-auth', '--read-timeout', 'soon', '--workspace', 'ws']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--read-timeout must be a number of seconds like 60 or 60s, not 'soon'/);
});
