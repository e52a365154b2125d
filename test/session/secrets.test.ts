import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { caretLines } from '../../runtime/errors';
import type { Result } from '../../runtime/results';
import { inspect } from '../../runtime/services/inspect';
import { Session } from '../../runtime/session';
import { JobDefinitions, JobStore } from '../../runtime/jobs/store';
import { ConnectionStore } from '../../runtime/workspace/connections';
import { rotateWorkspaceKey } from '../../runtime/workspace/rotate-key';
import { holdsSecret, MAGIC_OPTION_NAMES } from '../../runtime/workspace/secret-input';
import { magicTable } from '../../runtime/magics';
import { connectInfoMagic } from '../../kernel/connect-info';
import { WorkspaceKey } from '../../runtime/workspace/workspace-key';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { runCli } from '../helpers/cli';
import { ftpUnavailable, startFtpServer } from '../helpers/ftp-server';

const SECRETS = ['BEARERTOK1', 'BASICPW2', 'APIKEY3', 'HDRVAL4', 'PGPASS5', 'FTPPASS6', 'INLINEPW7'];

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** Every file under `dir`, recursively, as text. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path) : [{ path, text: readFileSync(path, 'latin1') }];
  });
}

function shown(results: Result[]): string {
  return results
    .map((r) => {
      if (r.kind === 'table') return JSON.stringify(r.dataset.rows());
      if (r.kind === 'error') return `${r.error.message}`;
      return r.text;
    })
    .join('\n');
}

async function outputOf(session: Session, text: string): Promise<string> {
  const out: Result[] = [];
  for await (const r of session.execute(text)) out.push(r);
  return shown(out);
}

function assertNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} shows ${secret}:\n${text}`);
}

test('connection secrets of every kind are sealed at rest, used, and never shown', async () => {
  const server = await startHttpServer((req, res) =>
    sendJson(res, { auth: req.headers.authorization ?? null, key: req.headers['x-api-key'] ?? null }),
  );
  servers.push(server);
  const { session, dir } = tempSession({}, 'secrets');
  const closed = 'http://127.0.0.1:9';
  const added = await outputOf(
    session,
    [
      `%connection add bearer ${server.url} --bearer BEARERTOK1`,
      `%connection add basic http://alice:BASICPW2@127.0.0.1:${server.port}/`,
      `%connection add apikey ${server.url} --apikey "X-Api-Key: APIKEY3" --header "X-Custom: HDRVAL4"`,
      '%connection add pg postgres://app:PGPASS5@127.0.0.1:1/shop?sslmode=disable',
      '%connection add files ftp://uploader:FTPPASS6@127.0.0.1:2121/',
      `%connection add refused ${closed} --bearer BEARERTOK1`,
    ].join('\n'),
  );
  assertNoSecret(added, 'adding');

  // Used: the server receives them.
  const [bearer] = (await session.run(`SELECT * FROM HTTP [bearer] (GET /a) APPLY TX '$';`)).filter(
    (r) => r.kind === 'table',
  );
  assert.ok(bearer.kind === 'table');
  assert.deepEqual(bearer.dataset.rows()[0], ['Bearer BEARERTOK1', null]);
  await session.run(`SELECT * FROM HTTP [basic] (GET /b) APPLY TX '$';`);
  assert.equal(session.dataset.rows()[0][0], `Basic ${Buffer.from('alice:BASICPW2').toString('base64')}`);
  await session.run(`SELECT * FROM HTTP [apikey] (GET /c) APPLY TX '$';`);
  assert.deepEqual(session.dataset.rows()[0], [null, 'APIKEY3']);

  // Shown: listings, inspect, errors of refused and failing calls, URLs given inline.
  const list = await outputOf(session, '%connection list');
  assertNoSecret(list, '%connection list');
  assert.match(list, /postgres:\/\/app:\*\*\*\*@127\.0\.0\.1:1\/shop\?sslmode=disable/);
  assert.match(list, /ftp:\/\/uploader:\*\*\*\*@127\.0\.0\.1:2121\//);
  assert.match(list, /X-Custom.*\*\*\*\*/);
  for (const name of ['bearer', 'basic', 'apikey', 'pg', 'files']) {
    const found = inspect(session, `SELECT * FROM HTTP [${name}] (GET /)`, 21);
    assert.ok(found.found, name);
    assertNoSecret(found.text + (found.markdown ?? ''), `inspect [${name}]`);
  }
  assertNoSecret(await outputOf(session, 'SELECT * FROM HTTP [refused] (GET /x);'), 'a refused connection');
  assertNoSecret(
    await outputOf(session, `SELECT * FROM HTTP (GET http://bob:INLINEPW7@127.0.0.1:9/x);`),
    'an inline URL',
  );
  assertNoSecret(await outputOf(session, `SELECT * FROM DRIVE [pg] 'x.csv';`), 'a connection of the wrong kind');

  // At rest: no file of the workspace holds one, and the connections file is private.
  for (const f of filesUnder(join(dir, 'ws'))) assertNoSecret(f.text, f.path);
  assert.equal(statSync(join(dir, 'ws', 'connections.json')).mode & 0o077, 0);

  // Another session on the workspace reads them back.
  const again = new Session({ workspace: join(dir, 'ws'), cwd: dir });
  const pg = again.connections.getOf('pg', 'postgres');
  assert.equal(pg.password, 'PGPASS5');
  assert.equal(pg.url, 'postgres://app@127.0.0.1:1/shop?sslmode=disable');
  await session.close();
});

test('secrets outside the user info: a PostgreSQL password parameter, a key in a base URL, a password that breaks its URL', async () => {
  const server = await startHttpServer((req, res) => sendJson(res, { url: req.url }));
  servers.push(server);
  const { session, dir } = tempSession({}, 'secrets');
  const added = await outputOf(
    session,
    [
      '%connection add pg postgres://app@127.0.0.1:1/shop?sslmode=disable&password=PGPASS5',
      `%connection add fn ${server.url}/api?code=APIKEY3`,
    ].join('\n'),
  );
  assertNoSecret(added, 'adding');
  await session.run(`SELECT * FROM HTTP [fn] (GET /orders) APPLY TX '$';`);
  assert.equal(session.dataset.rows()[0][0], '/api/orders?code=APIKEY3', 'the key is still sent');
  const list = await outputOf(session, '%connection list');
  assertNoSecret(list, '%connection list');
  assert.match(list, /postgres:\/\/app:\*\*\*\*@127\.0\.0\.1:1\/shop\?sslmode=disable\\"/);
  assert.match(list, /\/api\?code=\*\*\*\*\\"/);
  assertNoSecret(
    await outputOf(session, 'SELECT * FROM HTTP [fn] (GET http://127.0.0.1:9/x?code=APIKEY3);'),
    'an error',
  );
  // A SAS token written without percent-encoding leaves its signature a parameter of the URL: sealed too.
  await session.run('%connection add blob az://salesdata@lake/data?sas=sv%3D2024&sig=SASSIG12');
  for (const f of filesUnder(join(dir, 'ws'))) {
    assertNoSecret(f.text, f.path);
    assert.ok(!f.text.includes('SASSIG12'), `${f.path} holds the SAS signature`);
  }
  const again = new Session({ workspace: join(dir, 'ws'), cwd: dir });
  assert.equal(again.connections.getOf('blob', 'az').url, 'az://salesdata@lake/data?sas=&sig=SASSIG12');
  assert.equal(again.connections.getOf('pg', 'postgres').password, 'PGPASS5');
  assert.equal(again.connections.getOf('fn', 'http').baseUrl, `${server.url}/api?code=APIKEY3`);

  // A '%' in a password that starts no %XX escape is the character it is (a UTF-8 %C3%A9 is decoded).
  const pct = await outputOf(
    session,
    [
      '%connection add pct postgres://app:BASICPW2%zz%C3%A9@127.0.0.1:1/db',
      '%connection add pcth http://bob:BASICPW2%zz@127.0.0.1:9/',
      '%connection list',
    ].join('\n'),
  );
  assertNoSecret(pct, 'a password with a bare %');
  assert.equal(session.connections.getOf('pct', 'postgres').password, 'BASICPW2%zzé');
  const pcth = session.connections.getOf('pcth', 'http');
  assert.ok(pcth.auth?.type === 'basic' && pcth.auth.password === 'BASICPW2%zz');

  // A password with '/' or a blank breaks the URL: the error does not echo it.
  for (const line of [
    '%connection add bad postgres://app:INLINE/PW7@127.0.0.1:5432/db',
    '%connection add bad https://bob:INLINE/PW7@127.0.0.1/',
    '%connection add bad postgres://app:INLINE PW7@127.0.0.1/db',
    '%connection add bad postgres://app:INLINEPW7/127.0.0.1/db',
  ]) {
    const error = await outputOf(session, line);
    assert.match(error, /not a valid URL|unexpected words after the URL/, line);
    assert.ok(!/INLINE|PW7/.test(error), `${line} shows the password: ${error}`);
  }
  await session.close();
});

test('a token as the user of an http(s) URL, and ?pass= / ?session= values, are masked in errors and listings', async () => {
  const { session } = tempSession({}, 'secrets');
  const failed = await outputOf(
    session,
    'SELECT * FROM HTTP (GET https://ghp_USERTOKEN8@127.0.0.1:9/repos?pass=PASSVAL9&session=SESSVAL10&bypasstriggers=1);',
  );
  for (const secret of ['USERTOKEN8', 'PASSVAL9', 'SESSVAL10'])
    assert.ok(!failed.includes(secret), `the error shows ${secret}:\n${failed}`);
  assert.match(failed, /https:\/\/127\.0\.0\.1:9\/repos\?pass=\*\*\*\*&session=\*\*\*\*&bypasstriggers=1/);
  const listed = await outputOf(session, '%connection add gh https://ghp_USERTOKEN8@127.0.0.1:9/api\n%connection list');
  assert.ok(!listed.includes('USERTOKEN8'), `the listing shows the token:\n${listed}`);
  assert.match(listed, /"user\\":\\"\*\*\*\*\\"/);
  // A user name beside a password, or in a database URL, is no secret: only the password is masked.
  const pg = await outputOf(session, '%connection add pg postgres://app@127.0.0.1:1/shop\n%connection list');
  assert.match(pg, /postgres:\/\/app@127\.0\.0\.1:1\/shop/);
  await session.close();
});

test('an encrypted variable sent where nothing marks it as a secret is masked where a server quotes it in an error', async () => {
  // A server answering 500 with the request it got: its headers, then its body.
  const server = await startHttpServer((req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(
      `${Object.entries(req.headers)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join('\n')}\n\n${req.body}`,
    );
  });
  servers.push(server);
  const { session } = tempSession({}, 'secrets');
  await session.run('%var set --encrypted tenantkey VARSECRET11');
  for (const statement of [
    `SELECT * FROM HTTP (GET ${server.url}/a) HEADERS '{"X-Tenant": "#trygetvar(tenantkey)"}';`,
    `SELECT * FROM HTTP (POST ${server.url}/a) PAYLOAD ({"key": "#trygetvar(tenantkey)"});`,
  ]) {
    const failed = await outputOf(session, statement);
    assert.match(failed, /HTTP 500 Internal Server Error from (GET|POST) http:\/\/127\.0\.0\.1:\d+\/a: .*\*\*\*\*/);
    assert.ok(!failed.includes('VARSECRET11'), `the error shows the variable's value:\n${failed}`);
  }
  await session.close();
});

/** The line a magic's error shows under its caret (the cell's line the error is on), and its message. */
async function magicError(session: Session, cell: string): Promise<{ line: string; message: string }> {
  const results: Result[] = [];
  for await (const r of session.execute(cell)) results.push(r);
  const error = results.find((r) => r.kind === 'error');
  assert.ok(error?.kind === 'error', `${cell}: no error`);
  return { line: caretLines(error.source, error.error.position!)[0], message: error.error.message };
}

test('a magic’s error masks in its caret line only the arguments its secretArgs declare: secrets never show, a job name, trigger kind or variable name do', async () => {
  const { session } = tempSession({}, 'secrets');
  await session.run("%%job known writer\nPRINT 'x';\n");
  const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  const stars = (text: string) => text.replace(/\S/g, '*');
  const url = 'http://127.0.0.1:9';
  // [cell, the words its caret line masks]: each magic whose arguments may hold a secret, and one that has none.
  const cases: [string, ...string[]][] = [
    // %job: only --signing-secret's value; a name, a trigger kind, a file are what the error is about.
    ['%job trigger known --on sometimes --run nosuch'],
    ['%job trigger nosuch --on success --run known'],
    [`%job update known --signing-secret ${secret} --bogus`, secret],
    [`%job update known --signing-secret=${secret} --bogus`, secret],
    // A switch with create: a secret written after it by mistake; a misspelt option's value.
    [`%job create other --writer w.sql --signing-secret ${secret}`, secret],
    [`%job update known --signing-secrt ${secret}`, secret],
    // %var: set's value, however many words it was written as; the name shows.
    ['%var set --encrypted token hello SECRETVAL1 world', 'hello SECRETVAL1 world'],
    // After an option the magic does not know, the next word may be its value, or a positional one.
    ['%var set --bogus token SECRETVAL1', 'token SECRETVAL1'],
    // A subcommand the magic does not know: every word after it.
    ['%var sett token SECRETVAL1', 'token SECRETVAL1'],
    // %connection: the URL (and words after it), --basic/--bearer/--apikey/--header/--postgres values; the name shows.
    [
      '%connection add api http://u:SECRETPW2@127.0.0.1:9 --basic SECRETPW3',
      'http://u:SECRETPW2@127.0.0.1:9',
      'SECRETPW3',
    ],
    [`%connection add api ${url} --bearer=SECRETTOK4 --timeout soon`, url, 'SECRETTOK4'],
    [`%connection add api ${url} --barer SECRETTOK5`, url, 'SECRETTOK5'],
    [`%connection add api ${url} --apikey "X-Key SECRETKEY6"`, url, '"X-Key SECRETKEY6"'],
    [`%connection add api ${url} --header "X-Key SECRETKEY7"`, url, '"X-Key SECRETKEY7"'],
    ['%connection add pg --postgres postgres://app:SECRETPW8@h/db --bogus', 'postgres://app:SECRETPW8@h/db'],
    // A magic none of whose arguments is a secret shows its line as written.
    ['%webhook start --job nosuch'],
  ];
  for (const [cell, ...hidden] of cases) {
    const error = await magicError(session, cell);
    const line = hidden.reduce((text, word) => text.replace(word, stars(word)), cell);
    assert.equal(error.line, line, `${cell}: ${error.message}`);
    assert.ok(!error.message.includes(secret) && !error.message.includes('SECRET'), `${cell}: ${error.message}`);
  }
  // The cell form's first line likewise.
  const cell = await magicError(session, `%%job nightly writer --signing-secret ${secret}\nPRINT 1;\n`);
  assert.equal(cell.line, `%%job nightly writer --signing-secret ${stars(secret)}`);
  await session.close();
});

test('a connections file with secrets in clear is rewritten sealed on first use', async () => {
  const { dir } = tempSession({}, 'secrets');
  const ws = join(dir, 'legacy');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(ws);
  writeFileSync(
    join(ws, 'connections.json'),
    JSON.stringify([
      {
        name: 'api',
        kind: 'http',
        baseUrl: 'http://127.0.0.1:9/',
        auth: { type: 'bearer', token: 'BEARERTOK1' },
        headers: { 'X-Custom': 'HDRVAL4' },
      },
      { name: 'pg', kind: 'postgres', target: 'postgres://app:PGPASS5@127.0.0.1:1/shop' },
      { name: 'pg2', kind: 'postgres', url: 'postgres://app@127.0.0.1:1/shop?password=INLINEPW7' },
      { name: 'lite', kind: 'sqlite', target: 'shop.db' },
    ]),
  );
  const session = new Session({ workspace: ws, cwd: dir });
  assertNoSecret(await outputOf(session, '%connection list'), 'list');
  for (const f of filesUnder(ws)) assertNoSecret(f.text, f.path);
  const api = session.connections.getOf('api', 'http');
  assert.ok(api.auth?.type === 'bearer' && api.auth.token === 'BEARERTOK1');
  assert.equal(session.connections.getOf('pg', 'postgres').password, 'PGPASS5');
  assert.equal(session.connections.getOf('pg2', 'postgres').password, 'INLINEPW7');
  assert.equal(session.connections.getOf('lite', 'sqlite').file, 'shop.db');
});

test('a sealed connection whose stored URL still shows a secret (an older file: a SAS token’s unencoded sig) is rewritten on first use', async () => {
  const { session, dir } = tempSession({}, 'secrets');
  const ws = join(dir, 'ws');
  await session.run('%connection add blob az://salesdata@lake/data?sas=sv%3D2024&sig=SASSIG12');
  const file = join(ws, 'connections.json');
  const written = readFileSync(file, 'utf8');
  assert.ok(written.includes('"sealed"') && written.includes('sig=****'), written);
  // What sqlcdc wrote before such URLs were sealed: the SAS sealed, the URL beside it in clear.
  writeFileSync(file, written.replace('sig=****', 'sig=SASSIG12'));
  const again = new Session({ workspace: ws, cwd: dir });
  assert.equal(again.connections.getOf('blob', 'az').url, 'az://salesdata@lake/data?sas=&sig=SASSIG12');
  assert.ok(!readFileSync(file, 'utf8').includes('SASSIG12'), 'rewritten without the signature in clear');
  await again.close();
  await session.close();
});

test('rotating the workspace key reseals variables and connections; the old key no longer opens them', async () => {
  const { session, dir } = tempSession({}, 'secrets');
  const ws = join(dir, 'ws');
  await session.run('%connection add api http://127.0.0.1:9/ --bearer BEARERTOK1\n%var set --encrypted token APIKEY3');
  const oldKey = readFileSync(join(ws, 'secret.key'), 'utf8');
  const rotation = rotateWorkspaceKey(ws);
  assert.deepEqual(
    { variables: rotation.variables, connections: rotation.connections, jobs: rotation.jobs },
    { variables: 1, connections: 1, jobs: 0 },
  );
  assert.notEqual(readFileSync(join(ws, 'secret.key'), 'utf8'), oldKey);
  const after = new Session({ workspace: ws, cwd: dir });
  const api = after.connections.getOf('api', 'http');
  assert.ok(api.auth?.type === 'bearer' && api.auth.token === 'BEARERTOK1');
  assert.deepEqual(
    (await after.run("PRINT '#trygetvar(token)';")).map((r) => (r.kind === 'message' ? r.text : '')),
    ['APIKEY3'],
  );
  for (const f of filesUnder(ws)) assertNoSecret(f.text, f.path);
  // With the old key put back, nothing opens: the values really are sealed under the new one.
  writeFileSync(join(ws, 'secret.key'), oldKey);
  const withOld = new Session({ workspace: ws, cwd: dir });
  assert.throws(() => withOld.connections.get('api'), /cannot be decrypted with this workspace key/);
});

test('rotate-key run again after a rotation stopped half-way finishes it with the same new key', async () => {
  const { session, dir } = tempSession({}, 'secrets');
  const ws = join(dir, 'ws');
  await session.run('%connection add api http://127.0.0.1:9/ --bearer BEARERTOK1');
  const jobs = new JobStore(ws, session.openSession);
  jobs.create({
    name: 'hook',
    writer: "PRINT 'x';\n",
    webhook: true,
    saveSample: false,
    signingSecret: 'whsec_SIGNSECRET8',
  });
  // As a rotation leaves things when stopped after resealing the jobs: the new key in secret.key.next,
  // the job sealed under it, the connection still under the old key. Both still read.
  const interrupted = randomBytes(32);
  writeFileSync(join(ws, 'secret.key.next'), `${interrupted.toString('base64')}\n`, { mode: 0o600 });
  assert.equal(new JobDefinitions(ws).resealWith(new WorkspaceKey(ws, interrupted)), 1);
  assert.equal(jobs.signingSecret(jobs.get('hook')), 'whsec_SIGNSECRET8');

  const rotation = rotateWorkspaceKey(ws);
  assert.deepEqual([rotation.connections, rotation.jobs], [1, 1]);
  assert.equal(Buffer.from(readFileSync(join(ws, 'secret.key'), 'utf8').trim(), 'base64').equals(interrupted), true);
  assert.ok(!existsSync(join(ws, 'secret.key.next')));
  const after = new Session({ workspace: ws, cwd: dir });
  const api = after.connections.getOf('api', 'http');
  assert.ok(api.auth?.type === 'bearer' && api.auth.token === 'BEARERTOK1');
  assert.equal(new JobDefinitions(ws).signingSecret(jobs.get('hook')), 'whsec_SIGNSECRET8');
  for (const f of filesUnder(ws)) assert.ok(!f.text.includes('SIGNSECRET8'), f.path);
});

test('sqlcdc workspace rotate-key reseals through the CLI; with SQLCDC_SECRET it needs SQLCDC_NEW_SECRET', async () => {
  const { session, dir } = tempSession({}, 'secrets');
  await session.run('%connection add api http://127.0.0.1:9/ --bearer BEARERTOK1');
  const ws = join(dir, 'ws');
  const rotated = await runCli(dir, ['workspace', 'rotate-key', '--workspace', ws]);
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.match(rotated.stdout, /0 encrypted variables, 1 connection and 0 job signing secrets resealed/);
  assertNoSecret(rotated.stdout + rotated.stderr, 'rotate-key output');
  const refused = await runCli(dir, ['workspace', 'rotate-key', '--workspace', ws], {
    env: { SQLCDC_SECRET: 'old-secret' },
  });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /give the new one in SQLCDC_NEW_SECRET/);
  const usage = await runCli(dir, ['workspace', 'frob']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /unknown workspace command 'frob'/);
});

test(
  'a change log captured to an FTP connection with a password, and sqlcdc job show, never show a secret',
  { skip: ftpUnavailable() },
  async () => {
    const server = await startFtpServer();
    const { session, dir } = tempSession({ 'orders.csv': 'id,amount\n1,10\n2,20\n' }, 'secrets');
    try {
      await session.run(`%connection add site ftp://${server.user}:${server.password}@127.0.0.1:${server.port}/`);
      const out = await outputOf(
        session,
        "SELECT * FROM DRIVE 'orders.csv';\nCAPTURE 'orders' ON KEYS 'id' WITH PATH [site] '/logs';",
      );
      assert.doesNotMatch(out, new RegExp(server.password));
      const [log] = readdirSync(join(server.root, 'logs'));
      assert.match(log, /^orders_\d+\.eds$/);
      assert.ok(
        !readFileSync(join(server.root, 'logs', log), 'latin1').includes(server.password),
        'the log holds no password',
      );
      const shown = await runCli(dir, ['changelog', 'show', join(server.root, 'logs', log), '--output', 'json']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.ok(!shown.stdout.includes(server.password));
      for (const f of filesUnder(join(dir, 'ws'))) assert.ok(!f.text.includes(server.password), f.path);
    } finally {
      await session.close();
      await server.close();
    }
    writeFileSync(
      join(dir, 'writer.sql'),
      `%connection add api http://127.0.0.1:9/ --bearer BEARERTOK1 --header "X-Api-Key: APIKEY3"\n%connection add pg postgres://app:PGPASS5@127.0.0.1:1/shop\nPUSH INTO HTTP [api] ON_UPSERT (POST /x) PAYLOAD ({{id}});\n`,
    );
    const created = await runCli(dir, [
      'job',
      'create',
      'sync',
      '--writer',
      'writer.sql',
      '--workspace',
      join(dir, 'ws'),
    ]);
    assert.equal(created.code, 0, created.stderr);
    const shownJob = await runCli(dir, ['job', 'show', 'sync', '--workspace', join(dir, 'ws')]);
    assert.equal(shownJob.code, 0, shownJob.stderr);
    assertNoSecret(shownJob.stdout + shownJob.stderr, 'sqlcdc job show');
    assert.match(shownJob.stdout, /--bearer \*\*\*\*/);
    assert.match(shownJob.stdout, /app:\*\*\*\*@127\.0\.0\.1:1\/shop/);
  },
);

test('a secret saved while a rotation is under way is sealed under the new key: it still opens once the rotation ends', async () => {
  const { session, dir } = tempSession({}, 'secrets');
  const ws = join(dir, 'ws');
  await session.run('%connection add api http://127.0.0.1:9/ --bearer BEARERTOK1');
  // What rotate-key does before it renames secret.key.next over secret.key: the new key written,
  // connections.json resealed under it.
  const next = randomBytes(32);
  writeFileSync(join(ws, 'secret.key.next'), `${next.toString('base64')}\n`, { mode: 0o600 });
  new ConnectionStore(ws, new WorkspaceKey(ws)).resealWith(new WorkspaceKey(ws, next));
  // Meanwhile another session on the workspace saves a connection and a variable.
  const other = new Session({ workspace: ws, cwd: dir });
  await other.run('%connection add pg postgres://app:PGPASS5@127.0.0.1:5/app\n%var set --encrypted token APIKEY3');
  await other.close();
  // The rotation ends.
  renameSync(join(ws, 'secret.key.next'), join(ws, 'secret.key'));
  const after = new Session({ workspace: ws, cwd: dir });
  const api = after.connections.getOf('api', 'http');
  assert.ok(api.auth?.type === 'bearer' && api.auth.token === 'BEARERTOK1');
  assert.equal(after.connections.getOf('pg', 'postgres').password, 'PGPASS5');
  assert.deepEqual(
    (await after.run("PRINT '#trygetvar(token)';")).map((r) => (r.kind === 'message' ? r.text : '')),
    ['APIKEY3'],
  );
  await after.close();
});

/** The error result of running `cell`, with its source. */
async function errorOf(session: Session, cell: string): Promise<Extract<Result, { kind: 'error' }>> {
  const results: Result[] = [];
  for await (const r of session.execute(cell)) results.push(r);
  const error = results.find((r) => r.kind === 'error');
  assert.ok(error?.kind === 'error', `${cell}: no error`);
  return error;
}

test('an error result’s source masks the secrets of every magic line of its cell, whatever failed, keeping each width', async () => {
  const { session, dir } = tempSession({}, 'secrets');
  const stars = (text: string) => text.replace(/\S/g, '*');
  const bearer = '%connection add api http://127.0.0.1:9 --bearer BEARERTOK1';
  const maskedBearer = `%connection add api ${stars('http://127.0.0.1:9')} --bearer ${stars('BEARERTOK1')}`;
  const variable = '%var set --encrypted token APIKEY3';
  const cases: [string, string][] = [
    // A statement that does not parse, one that fails when it runs, a later magic that fails.
    [`${bearer}\nSELEC 1;`, `${maskedBearer}\nSELEC 1;`],
    [`${bearer}\nPRINT '#nosuchfunction()';`, `${maskedBearer}\nPRINT '#nosuchfunction()';`],
    [
      `${bearer}\n${variable}\n%var sett x`,
      `${maskedBearer}\n%var set --encrypted token ${stars('APIKEY3')}\n%var sett *`,
    ],
    // A statement's own secrets: a URL's password, a secret-named query value, a CREDENTIALS value.
    [
      `${bearer}\nSELECT * FROM HTTP (GET http://bob:INLINEPW7@127.0.0.1:9/x?api_key=APIKEY3);`,
      `${maskedBearer}\nSELECT * FROM HTTP (GET http://bob:${stars('INLINEPW7')}@127.0.0.1:9/x?api_key=${stars('APIKEY3')});`,
    ],
    [
      "SELECT * FROM HTTP (GET http://127.0.0.1:9/x) TRACE INTO [nosuch] TABLE 't' STAGE ON 'in' CREDENTIALS\n  'u:BASICPW2';",
      `SELECT * FROM HTTP (GET http://127.0.0.1:9/x) TRACE INTO [nosuch] TABLE 't' STAGE ON 'in' CREDENTIALS\n  '${stars('u:BASICPW2')}';`,
    ],
    // A magic the session does not know (a typo): any of its words may be a secret.
    [
      '%conection add pg postgres://app:PGPASS5@127.0.0.1:1/shop',
      `%conection ${stars('add pg postgres://app:PGPASS5@127.0.0.1:1/shop')}`,
    ],
  ];
  for (const [cell, source] of cases) {
    const error = await errorOf(session, cell);
    assert.equal(error.source, source, error.error.message);
    assertNoSecret(error.error.message, cell);
  }
  // A job's script failing under `%job run`: the error is placed in that script, shown masked too.
  writeFileSync(join(dir, 'writer.sql'), `${bearer}\nPRINT '#nosuchfunction()';\n`);
  await session.run('%job create leaky --writer writer.sql');
  const failed = await errorOf(session, '%job run leaky');
  assert.equal(failed.source, `${maskedBearer}\nPRINT '#nosuchfunction()';\n`);
  assert.equal(failed.error.script?.text, failed.source);
  await session.close();
});

test('a magic line with an option no magic takes is kept out of the histories: it may be a misspelt --bearer or --encrypted', () => {
  const taken = new Set<string>();
  for (const magic of magicTable([connectInfoMagic('kernel.json')]).all()) {
    for (const spec of Object.values(magic.options ?? {})) for (const name of Object.keys(spec)) taken.add(name);
    for (const name of Object.keys(magic.cellArgs?.options ?? {})) taken.add(name);
  }
  assert.deepEqual(
    [...MAGIC_OPTION_NAMES].sort(),
    [...taken].sort(),
    "the names the history knows are the tables' names",
  );

  assert.equal(holdsSecret('%var set --encypted token S3CRET-VALUE'), true);
  assert.equal(holdsSecret('%connection add api https://h.example --barer S3CRET-VALUE'), true);
  assert.equal(holdsSecret('%connection add api https://h.example --timeout=5 --tken=S3CRET-VALUE'), true);
  // Lines whose options all exist stay in the history, and so does SQL with a comment.
  assert.equal(holdsSecret('%job create nightly --reader r.sql --writer w.sql --webhook'), false);
  assert.equal(holdsSecret('%webhook start --port 8080 --no-auth'), false);
  assert.equal(
    holdsSecret("%connection add api https://h.example --header 'X-Mode: --fast'"),
    true,
    '--header is secret anyway',
  );
  assert.equal(holdsSecret("SELECT * FROM DRIVE 'a.csv'; --not-an-option here"), false);
});
