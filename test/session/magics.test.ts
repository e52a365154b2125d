import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';
import type { Result } from '../../runtime/results';

function newSession(): Session {
  return tempSession({}, 'magic').session;
}

async function collect(session: Session, text: string): Promise<Result[]> {
  const out: Result[] = [];
  for await (const r of session.execute(text)) out.push(r);
  return out;
}

function cells(result: Result): string[][] {
  assert.equal(result.kind, 'table');
  return result.dataset.rows().map((r) => r.map(String));
}

test('%connection add, list and remove keep connections in the workspace without showing secrets', async () => {
  const s = newSession();
  await s.run('%connection add shop http://127.0.0.1:9/api --bearer s3cret-token --header "X-Tenant: acme"');
  await s.run('%connection add [my files] --drive ./data');
  const [list] = await s.run('%connection list');
  const rows = cells(list);
  assert.deepEqual(rows.map((r) => r[0]).sort(), ['my files', 'shop']);
  assert.deepEqual(rows.find((r) => r[0] === 'my files')!.slice(1), ['drive', '{"root":"./data"}']);
  const shop = rows.find((r) => r[0] === 'shop')!;
  assert.equal(shop[1], 'http');
  assert.match(shop[2], /\*\*\*\*/);
  assert.doesNotMatch(shop[2], /s3cret/);
  assert.match(shop[2], /X-Tenant/);

  const stored = readFileSync(join(s.workspace, 'connections.json'), 'utf8');
  assert.doesNotMatch(stored, /s3cret-token|acme/, 'secrets and header values are sealed at rest');
  assert.equal(statSync(join(s.workspace, 'connections.json')).mode & 0o077, 0, 'connections file is private');

  // a new session on the same workspace sees the connection
  const again = new Session({ workspace: s.workspace, cwd: s.cwd });
  const shopAgain = again.connections.get('SHOP');
  assert.ok(shopAgain.kind === 'http' && shopAgain.auth?.type === 'bearer');
  assert.equal(shopAgain.auth.token, 's3cret-token', 'the workspace keeps the secret to use it');
  assert.equal(shopAgain.headers?.['X-Tenant'], 'acme');

  await s.run('%connection remove shop');
  assert.equal(s.connections.find('shop'), undefined);
  await assert.rejects(s.run('%connection remove shop'), /unknown connection \[shop\]/);
});

test('%connection rejects bad input with a clear message', async () => {
  const s = newSession();
  await assert.rejects(s.run('%connection add api not-a-url'), /'not-a-url' is not a connection URL scheme/);
  await assert.rejects(
    s.run('%connection add api gopher://x'),
    /'gopher:' is not a connection URL scheme \(known: http: https: sqlite: postgres: postgresql: ftp: ftps:\)/,
  );
  await assert.rejects(s.run('%connection add api http://u:pw@[bad'), /'http:\/\/\*\*\*\*@\[bad' is not a valid URL/);
  await assert.rejects(s.run('%connection add api http://x --bogus 1'), /unknown option --bogus/);
  await assert.rejects(s.run('%connection add api http://x --basic nocolon'), /--basic must look like a:b/);
  await assert.rejects(s.run('%connection frobnicate'), /unknown subcommand 'frobnicate'/);
});

test('%limit, %workspace, %help and an unknown magic', async () => {
  const s = newSession();
  assert.deepEqual(await s.run('%limit 5'), [{ kind: 'message', text: 'display limit: 5 rows' }]);
  assert.equal(s.displayLimit, 5);
  await assert.rejects(s.run('%limit zero'), /%limit takes a whole number/);
  const [ws] = await s.run('%workspace');
  assert.equal(ws.kind, 'message');
  assert.ok(ws.kind === 'message' && ws.text.includes(s.workspace));
  const [help] = await s.run('%help');
  const names = cells(help).map((r) => r[0]);
  for (const m of ['%connection', '%limit', '%reset', '%workspace', '%help'])
    assert.ok(
      names.some((n) => n.startsWith(m)),
      m,
    );
  const results = await collect(s, '%nosuch');
  assert.equal(results.length, 1);
  assert.equal(results[0].kind, 'error');
  assert.match(results[0].kind === 'error' ? results[0].error.message : '', /unknown magic %nosuch/);
});

test('%pipeline shows and sets the pipeline name; a name that cannot name a file is refused', async () => {
  const { session: s } = tempSession({}, 'magics');
  const shown = await s.run('%pipeline');
  assert.deepEqual(shown, [{ kind: 'message', text: 'pipeline: repl' }], 'the REPL default');
  assert.deepEqual(await s.run('%pipeline orders_sync'), [{ kind: 'message', text: 'pipeline: orders_sync' }]);
  assert.equal(s.pipeline, 'orders_sync');
  await assert.rejects(s.run('%pipeline ../escape'), /a pipeline name is letters, digits/);
  assert.equal(s.pipeline, 'orders_sync');
});

test('docs/session.md lists every magic %help lists', () => {
  const doc = readFileSync(resolve(__dirname, '../../../docs/session.md'), 'utf8');
  const table = doc.slice(doc.indexOf('## Magics'));
  for (const m of newSession().magics.all())
    assert.match(
      table,
      new RegExp(`^\\| \`%${m.name}[ \`]`, 'm'),
      `%${m.name} is not in docs/session.md's table of magics`,
    );
});
