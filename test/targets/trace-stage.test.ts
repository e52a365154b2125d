import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Dataset, type Result } from '../../runtime/index';
import type { Session } from '../../runtime/session';
import { ftpUnavailable, startFtpServer, type FtpServer } from '../helpers/ftp-server';
import { postgresUnavailable, startPostgres } from '../helpers/postgres';
import { startS3Server, type S3Server } from '../helpers/s3-server';
import { startAzureServer, type AzureServer } from '../helpers/azure-server';
import { startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

const sessions: Session[] = [];
const servers: (TestServer | FtpServer | S3Server | AzureServer)[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

/** A session with an API answering 200, a SQLite trace database [tr], and `rows` rows to push. */
async function setup(rows: number): Promise<{ session: Session; dir: string }> {
  const server = await startHttpServer((_req, res) => void res.writeHead(200).end('{}'), { maxRequests: 10_000 });
  servers.push(server);
  const { session, dir } = tempSession({}, 'trace-stage');
  sessions.push(session);
  await session.run(`%connection add api ${server.url}`);
  await session.run('%connection add tr sqlite:trace.db');
  session.setDataset(
    Dataset.fromRows(
      [{ name: 'id', type: { base: 'int' } }],
      Array.from({ length: rows }, (_, i) => [i + 1]),
    ),
  );
  return { session, dir };
}

async function failure(session: Session, text: string) {
  const results: Result[] = [];
  for await (const r of session.execute(text)) results.push(r);
  const error = results.find((r) => r.kind === 'error');
  assert.ok(error?.kind === 'error', JSON.stringify(results));
  return error.error;
}

const PUSH = 'PUSH INTO HTTP [api] ON_UPSERT (POST /items/{{id}}) PAYLOAD ({"id": {{id}}})';

test('TRACE … STAGE ON a folder: every batch goes through a file of the stage into the table, and the stage is left empty', async () => {
  const { session, dir } = await setup(1203);
  await session.run(`${PUSH} TRACE INTO [tr] TABLE 'calls' ADD_TRACKING_FIELDS STAGE ON 'stage/traces';`);
  await session.run(
    'SELECT * FROM DB [tr] (SELECT count(*) AS n, count(DISTINCT url) AS urls, min(status) AS lo, max(status) AS hi FROM calls);',
  );
  assert.deepEqual(session.dataset.rows(), [[1203, 1203, 200, 200]]);
  // Times come back from the stage's text as times, in the table's datetime column.
  await session.run("SELECT * FROM DB [tr] (SELECT time, execution_date FROM calls WHERE url LIKE '%/items/1');");
  const [[time, executionDate]] = session.dataset.rows();
  assert.ok(time instanceof Date && executionDate instanceof Date, `${String(time)} ${String(executionDate)}`);
  assert.ok(Math.abs(time.getTime() - Date.now()) < 10 * 60_000, time.toISOString());
  // Three batches (500, 500, 203) went through the stage; none is left there.
  assert.deepEqual(readdirSync(join(dir, 'stage', 'traces')), []);
});

test('a batch the table does not take stays in the stage, whole, and the error says where', async () => {
  const { session, dir } = await setup(3);
  // EXEC fails in the batch's transaction, after the calls were made: the batch is not in the table.
  const error = await failure(
    session,
    `${PUSH} TRACE INTO [tr] TABLE 'calls' STAGE ON 'stage' EXEC (insert into nosuch values (1));`,
  );
  const files = readdirSync(join(dir, 'stage'));
  assert.equal(files.length, 1, files.join(', '));
  assert.match(files[0], /^calls_\d+_[0-9a-f]{6}_0001\.jsonl$/);
  const kept = join(dir, 'stage', files[0]);
  assert.ok(
    error.message.startsWith(`TRACE: 3 traced calls stay in the stage, in ${kept}: loading them into calls failed: `),
    error.message,
  );
  const rows = readFileSync(kept, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.match(error.message, /no such table: nosuch/);
  // The batch's transaction made the table and was rolled back: nothing of it is in the database.
  await assert.rejects(session.run('SELECT * FROM DB [tr] (SELECT count(*) AS n FROM calls);'), /no such table: calls/);
  assert.deepEqual(
    rows.map((r) => [r.method, String(r.url).replace(/^http:\/\/127\.0\.0\.1:\d+/, ''), r.status, r.request_body]),
    [
      ['POST', '/items/1', 200, '{"id": 1}'],
      ['POST', '/items/2', 200, '{"id": 2}'],
      ['POST', '/items/3', 200, '{"id": 3}'],
    ],
  );
});

test('STAGE ON is confined to its drive connection, and CREDENTIALS are refused where there is nothing to sign in to', async () => {
  const { session, dir } = await setup(1);
  await session.run(`%connection add box --drive ${join(dir, 'box')}`);
  let text = `${PUSH} TRACE INTO [tr] TABLE 'calls' STAGE ON [box] '../out';`;
  let error = await failure(session, text);
  assert.match(error.message, /'\.\.\/out' leaves the root of drive connection box/);
  // The caret under the text's first character, as for every text argument.
  assert.equal(error.position?.column, text.indexOf("'../out'") + 2);
  text = `${PUSH} TRACE INTO [tr] TABLE 'calls' STAGE ON 'stage' CREDENTIALS 'me:s3cret';`;
  error = await failure(session, text);
  assert.equal(
    error.message,
    'CREDENTIALS sign in to a remote stage (FTP user:password, S3 KEY_ID:SECRET, Azure ACCOUNT:KEY); a folder on this machine takes none',
  );
  assert.equal(error.position?.column, text.indexOf("'me:s3cret'") + 2);
  assert.equal(existsSync(join(dir, 'stage')), false, 'refused before any call or file');
});

test(
  'STAGE ON an FTP connection: CREDENTIALS user:password sign in instead of the connection’s own',
  { skip: ftpUnavailable() },
  async () => {
    const ftp = await startFtpServer();
    servers.push(ftp);
    const { session } = await setup(2);
    // The connection names another user, with no password: only the CREDENTIALS can sign in.
    await session.run(`%connection add site ftp://nobody@127.0.0.1:${ftp.port}/drop`);
    const text = `${PUSH} TRACE INTO [tr] TABLE 'calls' STAGE ON [site] 'stage'`;
    const error = await failure(session, `${text};`);
    assert.match(error.message, /^FTP .* on ftp:\/\/nobody@127\.0\.0\.1:\d+\/drop failed/);
    const results = await session.run(`${text} CREDENTIALS '${ftp.user}:${ftp.password}';`);
    assert.doesNotMatch(JSON.stringify(results), new RegExp(ftp.password));
    // The failed attempt staged nothing (the stage refused its login), so the table holds this push's two calls.
    await session.run('SELECT * FROM DB [tr] (SELECT count(*) AS n FROM calls);');
    assert.deepEqual(session.dataset.rows(), [[2]]);
    assert.deepEqual(readdirSync(join(ftp.root, 'drop', 'stage')), [], 'the staged batch is removed once loaded');
  },
);

/** A cloud store whose connection cannot sign in, and the CREDENTIALS that can. */
const CLOUD_STAGES: Record<
  string,
  () => Promise<{ url: string; credentials: string; refused: RegExp; keys(): Promise<string[]> }>
> = {
  async s3() {
    const s3 = await startS3Server('AKIASTAGEWRITER');
    servers.push(s3);
    return {
      // s3rver refuses an access key id it does not know.
      url: `s3://AKIAUNKNOWN:nope@lake/traces?endpoint=${s3.endpoint}`,
      credentials: 'AKIASTAGEWRITER:s3cr3t/Stage+Key',
      refused: /S3 upload of stage\/calls_\S+\.jsonl on s3:\/\/lake\/traces failed: InvalidAccessKeyId/,
      keys: () => s3.keys(),
    };
  },
  async az() {
    const az = await startAzureServer();
    servers.push(az);
    return {
      // Azurite checks the signature against the account key.
      url: `az://${az.account}:${encodeURIComponent(Buffer.alloc(32, 1).toString('base64'))}@lake/traces?endpoint=${az.endpoint}`,
      credentials: `${az.account}:${az.key}`,
      refused:
        /Azure upload of stage\/calls_\S+\.jsonl on az:\/\/salesdata\/lake\/traces failed: Authori[sz]ationFailure/,
      keys: () => az.names(),
    };
  },
};

for (const [kind, start] of Object.entries(CLOUD_STAGES))
  test(`STAGE ON a ${kind} connection: CREDENTIALS sign in instead of the connection’s own`, async () => {
    const store = await start();
    const { session } = await setup(2);
    await session.run(`%connection add lake ${store.url}`);
    const text = `${PUSH} TRACE INTO [tr] TABLE 'calls' STAGE ON [lake] 'stage'`;
    const error = await failure(session, `${text};`);
    assert.match(error.message, store.refused);
    const results = await session.run(`${text} CREDENTIALS '${store.credentials}';`);
    assert.doesNotMatch(JSON.stringify(results), new RegExp(store.credentials.split(':')[1].replace(/[+/]/g, '\\$&')));
    await session.run('SELECT * FROM DB [tr] (SELECT count(*) AS n FROM calls);');
    assert.deepEqual(session.dataset.rows(), [[2]]);
    assert.deepEqual(await store.keys(), [], 'the staged batch is removed once loaded');
  });

test(
  'STAGE ON into a PostgreSQL trace table: the staged rows land typed, times as timestamps',
  { skip: postgresUnavailable() },
  async () => {
    const pg = startPostgres();
    try {
      const { session, dir } = await setup(3);
      await session.run(`%connection add pg ${await pg.newDatabase()}`);
      await session.run(`${PUSH} TRACE INTO [pg] TABLE 'calls' ADD_TRACKING_FIELDS STAGE ON 'stage';`);
      await session.run(
        'SELECT * FROM DB [pg] (SELECT status, duration_ms, pg_typeof(time)::text AS t, pg_typeof(execution_date)::text AS d FROM calls ORDER BY url);',
      );
      const rows = session.dataset.rows();
      assert.equal(rows.length, 3);
      for (const [status, duration, t, d] of rows) {
        assert.equal(status, 200);
        assert.equal(typeof duration, 'number');
        assert.match(`${String(t)} ${String(d)}`, /^timestamp\b.* timestamp\b/);
      }
      assert.deepEqual(readdirSync(join(dir, 'stage')), []);
    } finally {
      pg.stop();
    }
  },
);
