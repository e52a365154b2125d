import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import type { Result } from '../../runtime/index';
import type { Session } from '../../runtime/session';
import { sendJson, startHttpServer, type Handler, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

/**
 * docs/push.md promises that its examples run. Each ```sql block runs on the rows of the ```csv block,
 * after the block marked <!-- setup -->, against a local server playing the `shop` API the prose
 * describes. Markers before a block say more: <!-- expect error: … --> (the block fails with that),
 * <!-- says: … --> (a message or warning of the block holds that), <!-- rows: n; columns: a, b --> (the
 * dataset the block leaves); <!-- bodies --> before a plain block says each of its lines is a line of a
 * body the block before it sent.
 */

const DOC = readFileSync(resolve(__dirname, '../../../docs/push.md'), 'utf8');

interface Block {
  lang: string;
  code: string;
  /** The HTML comments between the previous block and this one. */
  markers: string[];
}

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  let last = 0;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    const markers = [...markdown.slice(last, m.index).matchAll(/<!-- ([\s\S]*?) -->/g)].map((c) => c[1]);
    out.push({ lang: m[1], code: m[2], markers });
    last = fence.lastIndex;
  }
  return out;
}

const ORDERS: Record<string, { order: string; amount: number }[]> = {
  ann: [{ order: 'A-1', amount: 39.8 }],
  bob: [
    { order: 'B-1', amount: 149 },
    { order: 'B-2', amount: 12.5 },
  ],
  cy: [],
};

/** The `shop` API of the examples; `seen` is what it remembers between calls, cleared per block. */
function shop(seen: Set<string>): Handler {
  return (req, res) => {
    const path = req.url;
    const body = (req.headers['content-type'] === 'application/json' ? JSON.parse(req.body) : {}) as Record<
      string,
      unknown
    >;
    let m = /^\/customers\/(\w+)\/orders$/.exec(path);
    if (m) return sendJson(res, { orders: ORDERS[m[1]] });
    m = /^\/crm\/(\w+)$/.exec(path);
    if (m)
      return m[1] === 'cy'
        ? sendJson(res, { error: 'unknown customer' }, 404)
        : sendJson(res, { segment: 'retail', since: 2019 });
    if (path === '/rates/EUR') return sendJson(res, { currency: 'EUR', rate: 1.08 });
    if (path === '/legacy/orders/2') return sendJson(res, { error: 'duplicate order 2' }, 409);
    if (path === '/validate')
      return sendJson(res, { status: Number(body.qty) > 3 ? 'rejected: qty above 3' : 'accepted' });
    if (path.startsWith('/flaky/') && !seen.has(path)) {
      seen.add(path);
      return sendJson(res, { error: 'busy' }, 503, { 'retry-after': '0' });
    }
    if (path === '/jobs') {
      const job = `job ${String(body.id)}`;
      const state = seen.has(job) ? 'done' : 'queued';
      seen.add(job);
      return sendJson(res, { state });
    }
    sendJson(res, { ok: true });
  };
}

const servers: TestServer[] = [];
const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

test('every example of docs/push.md runs against the shop API as the text says', async () => {
  const all = blocks(DOC);
  const csv = all.find((b) => b.lang === 'csv');
  const setup = all.find((b) => b.markers.includes('setup'));
  assert.ok(csv && setup, 'the document has its data and its setup block');
  const seen = new Set<string>();
  const server = await startHttpServer(shop(seen), { maxRequests: 10_000 });
  servers.push(server);
  const { session, dir } = tempSession({}, 'push-docs');
  sessions.push(session);
  writeFileSync(join(dir, 'orders.csv'), csv.code);
  await session.run(`%connection add shop ${server.url}`);
  const examples = all.filter((b) => b.lang === 'sql' && b !== setup);
  assert.ok(examples.length >= 10, `examples found: ${examples.length}`);
  let sent: string[] = [];
  for (const [i, example] of all.entries()) {
    if (example.markers.includes('bodies')) {
      const lines = new Set(sent.flatMap((b) => b.split('\n')));
      for (const line of example.code.split('\n').filter(Boolean))
        assert.ok(lines.has(line), `a body line the example before sent: ${line}`);
      continue;
    }
    if (!examples.includes(example)) continue;
    seen.clear();
    await session.run(setup.code);
    const before = server.requests.length;
    const said: string[] = [];
    let error: Error | undefined;
    for await (const r of session.execute(example.code) as AsyncIterable<Result>) {
      if (r.kind === 'message' || r.kind === 'warning') said.push(r.text);
      if (r.kind === 'error') error = r.error;
    }
    sent = server.requests.slice(before).map((r) => r.body);
    const expected = example.markers.find((m) => m.startsWith('expect error: '))?.slice('expect error: '.length);
    const where = `block ${i}: ${example.code.split('\n')[0]}`;
    if (expected)
      assert.ok(error?.message.includes(expected), `${where} fails with "${expected}" (got: ${error?.message})`);
    else assert.equal(error, undefined, `${where} runs`);
    const shape = example.markers.map((m) => /^rows: (\d+); columns: (.+)$/.exec(m)).find(Boolean);
    if (shape) {
      assert.equal(session.dataset.rowCount, Number(shape[1]), `${where} leaves ${shape[1]} rows`);
      assert.deepEqual(
        session.dataset.columns.map((c) => c.name),
        shape[2].split(', '),
        `${where} leaves those columns`,
      );
    }
    for (const says of example.markers.filter((m) => m.startsWith('says: ')).map((m) => m.slice('says: '.length))) {
      assert.ok(
        said.some((text) => text.includes(says)),
        `${where} says "${says}" (said: ${said.join(' | ')})`,
      );
    }
  }
});
