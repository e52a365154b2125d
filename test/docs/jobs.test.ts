import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli as sqlcdc } from '../helpers/cli';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempDir } from '../helpers/session';
import { DocPage } from './harness';

/**
 * docs/jobs.md's commands run one by one through the CLI, on the scripts the page shows, against a
 * local `api` and `shop`; what each command's comment says it prints is checked.
 */
const page = new DocPage('jobs.md');
const dir = tempDir('docs-jobs');
let server: TestServer;
const job = (...args: string[]) => sqlcdc(dir, ['job', ...args, '--workspace', 'ws']);

before(async () => {
  server = await startHttpServer((req, res) =>
    req.url.startsWith('/orders?since=')
      ? sendJson(res, {
          items: [
            { id: 1, modified: '2024-03-01T10:00:00Z' },
            { id: 2, modified: '2024-03-02T09:30:00Z' },
          ],
        })
      : sendJson(res, { ok: true }),
  );
  writeFileSync(
    join(dir, 'connections.sql'),
    `%connection add api ${server.url}\n%connection add shop ${server.url}\n`,
  );
  const r = await sqlcdc(dir, ['run', 'connections.sql', '--workspace', 'ws']);
  assert.equal(r.code, 0, r.stderr);
});
after(() => server.close());

test('the commands run as listed and print what their comments say', async () => {
  const scripts = page.take('-- read.sql\nSELECT * FROM DRIVE');
  const [read, write] = scripts.code.split(/^(?=-- write\.sql$)/m);
  for (const [file, code] of Object.entries({
    'read.sql': read,
    'write.sql': write,
    'push-orders.sql': write,
    'w.sql': write,
  }))
    writeFileSync(join(dir, file), code);
  writeFileSync(join(dir, 'orders.csv'), 'id,amount\n1,12.5\n2,80\n');
  assert.equal((await job('create', 'report', '--writer', 'w.sql')).code, 0, 'the job the trigger runs');

  const commands = page.take('sqlcdc job create orders', 'sh');
  const said: Record<string, string> = {};
  for (const line of commands.code.trim().split('\n')) {
    const [command, comment = ''] = line.split(/ +# /);
    // `[--output json]` is an option the line shows: it runs with it.
    const args = command
      .replace(/\[([^\]]+)\]/g, '$1')
      .trim()
      .split(/ +/);
    assert.equal(args.shift(), 'sqlcdc');
    const r = await sqlcdc(dir, [...args, '--workspace', 'ws']);
    assert.equal(r.code, 0, `${line}: ${r.stderr}`);
    said[args.slice(0, 3).join(' ')] = r.stdout;
    if (/prints the guid \(32 hex\)/.test(comment)) assert.match(r.stdout, /^[0-9a-f]{32}\n$/);
    if (/prints "reader <guid>" and "writer <guid>"/.test(comment))
      assert.match(r.stdout, /^reader [0-9a-f]{32}\nwriter [0-9a-f]{32}\n$/);
    if (/also prints "signing secret whsec_…"/.test(comment)) assert.match(r.stdout, /^signing secret whsec_\S+$/m);
  }
  assert.deepEqual(
    server.requests.map((r) => `${r.method} ${r.url} ${r.body}`),
    ['POST /orders {"id": 1, "amount": 12.50}', 'POST /orders {"id": 2, "amount": 80.00}'],
    'job run sync: the reader captured, the writer pushed',
  );
  const listed = JSON.parse(said['job list --output']) as { name: string }[];
  assert.ok(listed.some((j) => j.name === 'sync'));
  assert.equal((JSON.parse(said['job runs sync']) as { outcome: string }[])[0].outcome, 'success');
});

test('the high watermark: the second run asks for what changed since the first', async () => {
  const block = page.take('-- read.sql\nSELECT * FROM HTTP [shop]');
  writeFileSync(join(dir, 'hwm.sql'), block.code);
  assert.equal((await job('create', 'hwm', '--reader', 'hwm.sql')).code, 0);
  const first = await job('run', 'hwm');
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /^next watermark: 2024-03-02/m);
  const before = server.requests.length;
  assert.equal((await job('run', 'hwm')).code, 0);
  assert.match(server.requests[before].url, /^\/orders\?since=2024-03-02T09%3A30%3A00/);
});

test('every example of docs/jobs.md ran', () => page.assertEveryExampleRan());
