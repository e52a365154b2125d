import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli as sqlcdc } from '../helpers/cli';
import { startHttpServer, sendJson, type TestServer } from '../helpers/http-server';
import { Session } from '../../runtime/session';
import { tempDir, tempSession } from '../helpers/session';
import { columnOf, DocPage, runOk } from './harness';

/**
 * docs/changelog.md's read and write pipelines run as the scripts the page names, its output block
 * and `show --output json` answer compared; its openssl commands make the certificate a log is
 * encrypted and signed with, then open that log as the page says openssl does.
 */
const page = new DocPage('changelog.md');
const { session, dir } = tempSession({}, 'docs-changelog');
let shop: TestServer;
before(async () => {
  shop = await startHttpServer((req, res) => sendJson(res, { ok: true }));
});
after(async () => {
  await session.close();
  await shop.close();
});

/** The block after `block` when it is a plain one (an output shown), as lines. */
const shownAfter = (block: ReturnType<DocPage['take']>) => page.after(block).code.split('\n');

test('the read pipeline prints what the page shows, the write pipeline plays its log', async () => {
  const read = page.take('-- read pipeline, e.g. capture-orders.sql');
  const write = page.take('-- write pipeline, e.g. push-orders.sql');
  writeFileSync(join(dir, 'capture-orders.sql'), read.code);
  writeFileSync(join(dir, 'orders.csv'), 'id,status,amount\n1,new,10\n2,new,20\n3,new,30\n');
  const first = await sqlcdc(dir, ['run', 'capture-orders.sql', '--workspace', 'ws']);
  assert.equal(first.code, 0, first.stderr);
  writeFileSync(join(dir, 'orders.csv'), 'id,status,amount\n1,new,10\n2,paid,20\n4,new,40\n');
  const second = await sqlcdc(dir, ['run', 'capture-orders.sql', '--workspace', 'ws']);
  assert.equal(second.code, 0, second.stderr);
  const [command, said, ...table] = shownAfter(read);
  assert.equal(command, '$ sqlcdc run capture-orders.sql');
  const message = said.replace(/ +← stderr$/, '').replace('1764000000123', '\\d+');
  assert.match(second.stderr, new RegExp(`^${message}$`, 'm'));
  assert.equal(second.stdout, table.map((line) => line.replace(/ +← .*$/, '')).join('\n'));

  await session.run(`%connection add shop ${shop.url}\n%connection add warehouse sqlite:warehouse.db`);
  await runOk(session, write.code, `changelog.md:${write.line}`);
  // The oldest log first: the first run's three inserts.
  assert.deepEqual(
    shop.requests.map((r) => `${r.method} ${r.url} ${r.body}`),
    ['PUT /orders/1 {"status": "new"}', 'PUT /orders/2 {"status": "new"}', 'PUT /orders/3 {"status": "new"}'],
  );
  await runOk(session, 'SELECT * FROM DB [warehouse] ( select id, status from orders order by id );', 'the table');
  assert.deepEqual(columnOf(session, 'status'), ['new', 'new', 'new']);
});

test('a certificate made as the page says encrypts and signs a log that openssl opens as the page says', async () => {
  const make = page.take('openssl req -x509', 'sh');
  const open = page.take('# decrypt', 'sh');
  // The page's commands write into `.sqlcdc/certs`: the workspace a session in that folder finds.
  const here = tempDir('docs-changelog');
  writeFileSync(join(here, 'orders.csv'), 'id,status\n1,new\n');
  const certified = new Session({ workspace: join(here, '.sqlcdc'), cwd: here });
  try {
    mkdirSync(join(here, '.sqlcdc/certs'), { recursive: true });
    const printed = execFileSync('sh', ['-ec', make.code], { cwd: here, encoding: 'utf8', stdio: 'pipe' });
    const thumbprint = /Fingerprint=([0-9A-F:]+)/i.exec(printed)![1];
    await runOk(
      certified,
      `SELECT * FROM DRIVE 'orders.csv';
CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs' ENCRYPT_CERT '${thumbprint}' SIGN_CERT '${thumbprint}';`,
      'an encrypted, signed capture',
    );
    const [log] = readdirSync(join(here, 'logs'));
    copyFileSync(join(here, 'logs', log), join(here, 'orders_1700000000000.eds'));
    for (const [from, to] of [
      ['agent.pem', 'agent.pem'],
      ['agent.key', 'agent.key'],
      ['agent.pem', 'signer.pem'],
    ])
      copyFileSync(join(here, '.sqlcdc/certs', from), join(here, to));
    execFileSync('sh', ['-ec', open.code], { cwd: here, stdio: 'pipe' });
    await runOk(certified, "LOAD UPSERTS FROM 'plain.eds' PATH '.';", 'the log openssl opened');
    assert.deepEqual(certified.dataset.rows(), [['1', 'new']]);
  } finally {
    await certified.close();
  }
});

test('changelog show --output json prints a log as the page shows it', async () => {
  const shown = page.blocks.find((b) => b.lang === 'json' && b.code.includes('"upserts"'))!;
  const { session: orders, dir: here } = tempSession(
    { 'orders.csv': 'id,status\n1,new\n2,new\n3,new\n' },
    'docs-changelog',
  );
  try {
    const capture = `%pipeline orders
SELECT * FROM DRIVE 'orders.csv'; APPLY SCHEMA ( long id );
CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs' CDCMARKER 'op';`;
    await runOk(orders, capture, 'the first capture');
    writeFileSync(join(here, 'orders.csv'), 'id,status\n1,new\n2,paid\n4,new\n');
    await runOk(orders, capture, 'the second capture');
  } finally {
    await orders.close();
  }
  const log = readdirSync(join(here, 'logs')).sort().at(-1)!;
  const r = await sqlcdc(here, ['changelog', 'show', join('logs', log), '--output', 'json', '--workspace', 'ws']);
  assert.equal(r.code, 0, r.stderr);
  const expected = JSON.parse(shown.code) as Record<string, unknown>;
  const got = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.deepEqual({ ...got, executionId: expected.executionId }, expected);
});

test('every example of docs/changelog.md ran', () => page.assertEveryExampleRan());
