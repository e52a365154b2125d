import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../helpers/cli';
import { call, startServe, type Serve } from '../helpers/serve';
import { tempDir, tempSession } from '../helpers/session';
import { seeded } from './helpers';

const LIMITS = { timeout: 120_000 };
let serve: Serve;
let port: number;
let guid: string;
let key: string;

before(async () => {
  const dir = tempDir('fuzz-webhook');
  writeFileSync(join(dir, 'w.sql'), "ADD COLUMN 'int seen=1';\n");
  const cli = async (args: string[]) => {
    const r = await runCli(dir, [...args, '--workspace', 'ws']);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  guid = /([0-9a-f]{32})/.exec(await cli(['job', 'create', 'orders', '--writer', 'w.sql', '--webhook']))![1];
  key = (await cli(['webhook', 'key', 'new', '--name', 'fuzz'])).trim();
  serve = await startServe(dir, ['--workspace', 'ws', '--max-body', '64kb']);
  port = Number(new URL(serve.url).port);
});
after(async () => {
  await serve?.stop();
});

interface RawAnswer {
  status?: number;
  head: string;
  body: string;
}

/**
 * Writes `bytes` (one character a byte) on a new connection and reads until the listener closes it:
 * its first answer, if any. Every request here says `Connection: close` or is malformed, so the listener
 * closes once it answered. `cutAfterMs`: a request that may claim more than it sends (a mutated one)
 * is ended from this side after that long without an answer, as a client giving up; the listener then
 * drops it. (A half-close right after the request would make Node drop every request in flight.)
 * `to`: another listener's port.
 */
function raw(bytes: string, cutAfterMs?: number, to = port): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(to, '127.0.0.1');
    const chunks: Buffer[] = [];
    const cut = cutAfterMs === undefined ? undefined : setTimeout(() => socket.end(), cutAfterMs);
    socket.on('data', (d: Buffer) => {
      clearTimeout(cut);
      chunks.push(d);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
    socket.on('close', () => {
      clearTimeout(cut);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const head = end < 0 ? text : text.slice(0, end);
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(head);
      const length = /\r\ncontent-length: (\d+)/i.exec(head);
      const body = end < 0 ? '' : text.slice(end + 4, length ? end + 4 + Number(length[1]) : undefined);
      resolve({ status: status ? Number(status[1]) : undefined, head, body });
    });
    socket.write(Buffer.from(bytes, 'latin1'));
  });
}

const PATH = () => `/job/push?guid=${guid}`;
const request = (head: string, body = '') =>
  `${head.replace('{path}', PATH()).replace('{auth}', `Authorization: Bearer ${key}\r\n`)}\r\nConnection: close\r\n\r\n${body}`;

/** The refusal's JSON reason, checked to be one. */
function reason(a: RawAnswer): string {
  assert.match(a.head, /\r\ncontent-type: application\/json/i, a.head);
  const error = (JSON.parse(a.body) as { error?: unknown }).error;
  assert.equal(typeof error, 'string', a.body);
  return error as string;
}

/** The listener still takes a good call: no malformed one broke it. */
async function stillAnswers(): Promise<void> {
  const r = await call(serve.url, {
    key,
    query: { guid },
    headers: { 'content-type': 'application/json' },
    body: '[{"id": 1}]',
  });
  assert.equal(r.status, 200, r.text);
}

test(
  'malformed HTTP gets its status with a JSON reason (Node answered a bare status line), then the listener goes on',
  LIMITS,
  async () => {
    const cases: [string, string, number, RegExp][] = [
      [
        'negative Content-Length',
        request('POST {path} HTTP/1.1\r\nHost: x\r\n{auth}Content-Length: -5', '{}'),
        400,
        /Content-Length/,
      ],
      [
        'huge Content-Length',
        request('POST {path} HTTP/1.1\r\nHost: x\r\n{auth}Content-Length: 99999999999999999999', '{}'),
        400,
        /Content-Length overflow/,
      ],
      [
        'two Content-Lengths',
        request('POST {path} HTTP/1.1\r\nHost: x\r\n{auth}Content-Length: 2\r\nContent-Length: 3', '{}'),
        400,
        /Duplicate Content-Length/,
      ],
      [
        'Content-Length and chunked',
        request(
          'POST {path} HTTP/1.1\r\nHost: x\r\n{auth}Content-Length: 2\r\nTransfer-Encoding: chunked',
          '2\r\n{}\r\n0\r\n\r\n',
        ),
        400,
        /Transfer-Encoding/,
      ],
      [
        'a chunk size that is not hex',
        request('POST {path} HTTP/1.1\r\nHost: x\r\n{auth}Transfer-Encoding: chunked', 'zz\r\n{}\r\n0\r\n\r\n'),
        400,
        /chunk size/,
      ],
      ['an unknown method', request('BREW {path} HTTP/1.1\r\nHost: x\r\n{auth}'), 400, /malformed HTTP request/],
      [
        'bytes that are not HTTP (a TLS hello)',
        Buffer.from('16030100a5010000a10303', 'hex').toString('latin1'),
        400,
        /malformed HTTP request/,
      ],
      [
        'bare LF line ends',
        request('POST {path} HTTP/1.1\nHost: x\nContent-Length: 2').replace('\r\n\r\n', '\n\n'),
        400,
        /malformed HTTP request/,
      ],
      [
        'no Host in HTTP/1.1',
        request('POST {path} HTTP/1.1\r\n{auth}Content-Length: 2', '{}'),
        400,
        /needs a Host header/,
      ],
      [
        'a 100 KB query string',
        request(`POST {path}&x=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n{auth}Content-Length: 2`, '{}'),
        431,
        /over 16 KB/,
      ],
      [
        'a 100 KB header',
        request(`POST {path} HTTP/1.1\r\nHost: x\r\n{auth}X-Long: ${'v'.repeat(100_000)}\r\nContent-Length: 2`, '{}'),
        431,
        /over 16 KB/,
      ],
      [
        'an Expect other than 100-continue',
        request('POST {path} HTTP/1.1\r\nHost: x\r\n{auth}Expect: teapot\r\nContent-Length: 2', '{}'),
        417,
        /Expect: teapot is not supported/,
      ],
      ['CONNECT', request('CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x'), 405, /method CONNECT is not allowed/],
    ];
    for (const [name, bytes, status, because] of cases) {
      const a = await raw(bytes);
      assert.equal(a.status, status, `${name}: ${a.head}`);
      assert.match(reason(a), because, name);
      if (status === 405) assert.match(a.head, /\r\nallow: GET, POST, PUT, PATCH, DELETE/i);
      await stillAnswers();
    }
  },
);

test('odd payloads, query strings and headers are answered as documented, the listener going on', LIMITS, async () => {
  const post = (body: string | Buffer, headers = 'Content-Type: application/json\r\n', path = PATH()) =>
    Buffer.concat([
      Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
        'latin1',
      ),
      Buffer.from(body),
    ]).toString('latin1');
  const xml = 'Content-Type: application/xml\r\n';
  const form = 'Content-Type: application/x-www-form-urlencoded\r\n';
  const cases: [string, string, number, RegExp?][] = [
    ['invalid UTF-8', post(Buffer.from([0x5b, 0x22, 0xff, 0xfe, 0x22, 0x5d])), 400, /not valid UTF-8/],
    ['invalid JSON', post('{"a":'), 400, /invalid JSON/],
    ['JSON nested 100,000 deep', post('['.repeat(20_000) + ']'.repeat(20_000)), 400, /nested too deeply/],
    // Read without the limit, 20,000 levels held the listener ~6 s, 100,000 for minutes (the namespace lookup walks the open elements).
    [
      'XML nested 9,000 deep (within --max-body)',
      post('<a>'.repeat(9_000) + '</a>'.repeat(9_000), xml),
      400,
      /bad payload: XML nested too deeply: elements inside one another more than 5,000 levels down/,
    ],
    ['a JSON document that is 0', post('0'), 200],
    ['a JSONPath filter rootpath on it', post('0', undefined, `${PATH()}&rootpath=%24%5B%3F(%40.a)%5D`), 200],
    [
      'a JSONPath jsonpath-plus cannot walk',
      post('{"a":1}', undefined, `${PATH()}&rootpath=%24%5B(%40.length-1)%5D`),
      400,
      /cannot be evaluated/,
    ],
    [
      'XML entities expanding a billion times',
      post('<!DOCTYPE a [<!ENTITY x "xx"><!ENTITY y "&x;&x;&x;&x;">]><a>&y;</a>', xml),
      400,
      /entity not found/,
    ],
    [
      'an external XML entity',
      post('<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>', xml),
      400,
      /entity not found/,
    ],
    ['mismatched XML', post('<a><b></a>', xml), 400, /invalid XML/],
    ['a form with repeated, empty and bad-% fields', post('a=1&a=2&b=&=3&%zz=%zz&d=%FF', form), 200],
    ['an unknown charset', post('{}', 'Content-Type: application/json; charset=klingon\r\n'), 400, /charset 'klingon'/],
    ['an unknown content type', post('[{"a":1}]', 'Content-Type: image/png\r\n'), 200],
    ['repeated and empty query parameters', post('{}', undefined, `${PATH()}&&=&guid=${guid}&=`), 200],
    ['a flag that is not 0/1', post('{}', undefined, `${PATH()}&startwriter=2`), 400, /startwriter must be 0 or 1/],
    ['an empty guid', post('{}', undefined, '/job/push?guid='), 400, /guid query parameter/],
    ['a percent-encoded path', post('{}', undefined, `/job/%70ush?guid=${guid}`), 404, /no such endpoint/],
    ['a body over --max-body', post(`[${'1,'.repeat(40_000)}1]`), 413, /over the listener's limit/],
    ['an empty Bearer', post('{}').replace(`Bearer ${key}`, 'Bearer '), 401, /access key/],
    ['odd-case Authorization', post('{}').replace('Authorization: Bearer', 'AUTHORIZATION: bearer'), 200],
  ];
  for (const [name, bytes, status, because] of cases) {
    const a = await raw(bytes);
    assert.equal(a.status, status, `${name}: ${a.head}\n${a.body}`);
    if (because) assert.match(reason(a), because, name);
    await stillAnswers();
  }
});

/**
 * Seeded mutations of a good request's bytes (a byte dropped, doubled, replaced by an odd one): every
 * answer is a documented status, a refusal has a JSON reason, and the listener takes the next call.
 * A request cut short by the mutation may get no answer: its connection ends first.
 */
test(
  'mutated requests: a documented status with a JSON reason, or no answer to a cut request; never a crash',
  LIMITS,
  async () => {
    const random = seeded(1127);
    const good = Buffer.from(
      `POST ${PATH()}&rootpath=%24.items HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 22\r\nConnection: close\r\n\r\n{"items": [{"id": 1}]}`,
      'latin1',
    );
    const odd = [0x00, 0x0a, 0x0d, 0x20, 0x22, 0x25, 0x3a, 0x7b, 0x7f, 0xc3, 0xff];
    const documented = new Set([200, 202, 400, 401, 403, 404, 405, 413, 417, 431, 500]);
    let refused = 0;
    for (let i = 0; i < 60; i++) {
      const bytes = [...good];
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        const at = Math.floor(random() * bytes.length);
        const r = random();
        if (r < 0.35) bytes.splice(at, 1);
        else if (r < 0.6) bytes.splice(at, 0, bytes[at]);
        else bytes[at] = odd[Math.floor(random() * odd.length)];
      }
      const sent = Buffer.from(bytes).toString('latin1');
      const a = await raw(sent, 300);
      if (a.status !== undefined) {
        assert.ok(documented.has(a.status), `${JSON.stringify(sent)}: ${a.head}`);
        if (a.status >= 400) {
          reason(a);
          refused++;
        }
      }
      await stillAnswers();
    }
    assert.ok(refused > 30, `most mutations are refused (${refused})`);
  },
);

test("%webhook start's listener answers malformed HTTP with a JSON reason too", LIMITS, async () => {
  const { session } = tempSession({}, 'fuzz-webhook');
  try {
    const started = (await session.run('%webhook start')).flatMap((r) => (r.kind === 'message' ? [r.text] : []));
    const url = new URL(/webhook listening: (\S+)/.exec(started.join('\n'))![1]);
    const to = Number(url.port);
    const bad = await raw('POST /job/push HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n', undefined, to);
    assert.equal(bad.status, 400, bad.head);
    assert.match(reason(bad), /malformed HTTP request \(Invalid character in Content-Length\)/);
    const hostless = await raw(
      `POST ${url.pathname}${url.search} HTTP/1.1\r\nConnection: close\r\n\r\n`,
      undefined,
      to,
    );
    assert.equal(hostless.status, 400, hostless.head);
    assert.match(reason(hostless), /needs a Host header/);
  } finally {
    await session.close();
  }
});
