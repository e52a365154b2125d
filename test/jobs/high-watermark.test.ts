import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli as sqlcdc } from '../helpers/cli';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempDir } from '../helpers/session';

const LIMITS = { timeout: 120_000 };
const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function cli(dir: string, args: string[]): Promise<string> {
  const r = await sqlcdc(dir, [...args, '--workspace', 'ws']);
  assert.equal(r.code, 0, `sqlcdc ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * An orders API that serves the orders modified after `since` (all of them without it) and a sink that
 * fails while `sinkDown` is set; it records the `since` of every read.
 */
async function ordersApi() {
  const state = {
    orders: [] as { id: number; modified: string }[],
    since: [] as string[],
    sinkDown: false,
  };
  const server = await startHttpServer((req, res) => {
    const url = new URL(req.url, 'http://api');
    if (url.pathname === '/orders') {
      const since = url.searchParams.get('since') ?? '';
      state.since.push(since);
      sendJson(res, { items: state.orders.filter((o) => o.modified > since) });
    } else if (state.sinkDown) res.writeHead(503).end('down for maintenance');
    else res.writeHead(200).end('{}');
  });
  servers.push(server);
  return { state, url: server.url };
}

test(
  'sqlcdc job run: @highwatermark is the job’s own, kept after each successful run; a failed run does not move it',
  LIMITS,
  async () => {
    const dir = tempDir('hwm-job');
    const api = await ordersApi();
    writeFileSync(
      join(dir, 'read.sql'),
      `SELECT * FROM HTTP (GET ${api.url}/orders?since={{@highwatermark}}) APPLY TX '$.items';
APPLY SCHEMA (
  int id
  datetime modified
);
PRINT 'next watermark: #data.calc_hwm(#data.calc(''Max(modified)''), {{@highwatermark}})';
PUSH INTO HTTP ON_UPSERT (POST ${api.url}/sink) PAYLOAD ({"id": {{id}}});
`,
    );
    await cli(dir, ['job', 'create', 'orders', '--reader', 'read.sql']);
    assert.match(await cli(dir, ['job', 'show', 'orders']), /^high watermark none$/m);
    const s = api.state;

    s.orders.push({ id: 1, modified: '2024-01-02T10:00:00' }, { id: 2, modified: '2024-03-05T11:30:00' });
    const first = await sqlcdc(dir, ['job', 'run', 'orders', '--workspace', 'ws']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /next watermark: 2024-03-05T11:30:00\n/);
    assert.match(await cli(dir, ['job', 'show', 'orders']), /^high watermark 2024-03-05T11:30:00 \(datetime\)$/m);

    s.orders.push({ id: 3, modified: '2024-04-01T08:00:00' });
    await cli(dir, ['job', 'run', 'orders']);

    // The push fails after the watermark was computed: the run fails and the watermark stays.
    s.orders.push({ id: 4, modified: '2024-05-01T08:00:00' });
    s.sinkDown = true;
    const failed = await sqlcdc(dir, ['job', 'run', 'orders', '--workspace', 'ws']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /next watermark: 2024-05-01T08:00:00\n[^]*HTTP 503/);
    assert.match(await cli(dir, ['job', 'show', 'orders']), /^high watermark 2024-04-01T08:00:00 \(datetime\)$/m);

    s.sinkDown = false;
    await cli(dir, ['job', 'run', 'orders']);
    await cli(dir, ['job', 'run', 'orders']);
    assert.deepEqual(s.since, [
      '',
      '2024-03-05T11:30:00',
      '2024-04-01T08:00:00',
      '2024-04-01T08:00:00',
      '2024-05-01T08:00:00',
    ]);
    // An empty read keeps the watermark: calc_hwm of null and the stored one is the stored one.
    assert.match(await cli(dir, ['job', 'show', 'orders']), /^high watermark 2024-05-01T08:00:00 \(datetime\)$/m);
    assert.deepEqual(
      (JSON.parse(await cli(dir, ['job', 'runs', 'orders', '--output', 'json'])) as { outcome: string }[]).map(
        (r) => r.outcome,
      ),
      ['success', 'success', 'failure', 'success', 'success'],
    );
  },
);

test('sqlcdc run keeps the high watermark per pipeline name: each script its own', LIMITS, async () => {
  const dir = tempDir('hwm-run');
  const script = (start: number) => `PRINT 'since [{{@highwatermark}}]';
PRINT '#data.calc_hwmnumber(#increment(#isnull({{@highwatermark}}, 0), ${start}), ${start})';
`;
  writeFileSync(join(dir, 'a.sql'), script(10));
  writeFileSync(join(dir, 'b.sql'), script(1));
  const run = async (file: string) => {
    const r = await sqlcdc(dir, ['run', file, '--workspace', 'ws']);
    assert.equal(r.code, 0, r.stderr);
    return /since \[(.*)\]/.exec(r.stderr)![1];
  };
  assert.equal(await run('a.sql'), '');
  assert.equal(await run('a.sql'), '10');
  assert.equal(await run('b.sql'), '');
  assert.equal(await run('a.sql'), '20');
  assert.equal(await run('b.sql'), '1');
});
