import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { driveFor, type Drive } from '../../runtime/drives/index';
import { runCliInTemp } from '../helpers/cli';
import { ftpUnavailable, startFtpServer, type FtpServer } from '../helpers/ftp-server';
import { tempDir, tempSession } from '../helpers/session';

const servers: FtpServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** The same round trip on every kind of drive: publish, list, fetch, replace, move, remove. */
async function roundTrip(drive: Drive, visible: (path: string) => string[]): Promise<void> {
  assert.deepEqual(await drive.list('logs'), [], 'a missing folder lists as empty');
  const staged = drive.stage('logs/a.eds');
  writeFileSync(staged, 'first');
  assert.deepEqual(
    visible('logs').filter((n) => n.endsWith('.eds')),
    [],
    'a staged file is not visible under its name',
  );
  await drive.publish(staged, 'logs/a.eds');
  assert.equal(existsSync(staged), false, 'the staged file is gone after publishing');
  assert.deepEqual(
    (await drive.list('logs')).map((e) => [e.name, e.size]),
    [['a.eds', 5]],
  );
  const again = drive.stage('logs/a.eds');
  writeFileSync(again, 'second!');
  await drive.publish(again, 'logs/a.eds');
  const fetched = await drive.fetch('logs/a.eds');
  assert.equal(readFileSync(fetched.file, 'utf8'), 'second!', 'publishing replaces');
  fetched.done();
  assert.equal(await drive.exists('logs/a.eds'), true);
  await drive.move('logs/a.eds', 'logs/dlq/a.eds');
  assert.equal(await drive.exists('logs/a.eds'), false);
  assert.deepEqual(
    (await drive.list('logs/dlq')).map((e) => e.name),
    ['a.eds'],
  );
  await drive.remove('logs/dlq/a.eds');
  assert.deepEqual(await drive.list('logs/dlq'), []);
  assert.deepEqual(
    visible('logs').filter((n) => n.includes('.tmp')),
    [],
    'no temp file left behind',
  );
}

test('a local folder drive: durable publish, list, fetch, move, remove', async () => {
  const { session, dir } = tempSession({}, 'drives');
  await roundTrip(driveFor(session, undefined), (p) => (existsSync(join(dir, p)) ? readdirSync(join(dir, p)) : []));
});

// FTPS is not in this loop: pyftpdlib resets every TLS data connection basic-ftp opens (TLS 1.2 and 1.3
// alike, with or without protected data required), so there is no real FTPS server to test against here.
test('an FTP drive against a real server: the same round trip', { skip: ftpUnavailable() }, async () => {
  const server = await startFtpServer();
  servers.push(server);
  const { session } = tempSession({}, 'drives');
  await session.run(`%connection add site ${server.url}incoming`);
  const drive = driveFor(session, { name: 'site' } as never);
  assert.doesNotMatch(drive.label, new RegExp(server.password), 'the label never shows the password');
  const root = join(server.root, 'incoming');
  await roundTrip(drive, (p) => (existsSync(join(root, p)) ? readdirSync(join(root, p)) : []));
});

test('a wrong FTP password is a clear error that does not show it', { skip: ftpUnavailable() }, async () => {
  const server = await startFtpServer();
  servers.push(server);
  const { session } = tempSession({}, 'drives');
  await session.run(`%connection add site ftp://${server.user}:WRONGPW9@127.0.0.1:${server.port}/`);
  const drive = driveFor(session, { name: 'site' } as never);
  await assert.rejects(drive.list('x'), (e: Error) => {
    assert.match(e.message, /FTP listing of x on ftp:\/\/uploader@127\.0\.0\.1:\d+\/ failed/);
    assert.doesNotMatch(e.message, /WRONGPW9/);
    return true;
  });
});

test(
  'a SINK to FTP whose file cannot be written (Parquet without columns) uploads nothing and leaves no staged copy',
  { skip: ftpUnavailable() },
  async () => {
    const server = await startFtpServer();
    servers.push(server);
    const dir = tempDir('drives');
    writeFileSync(
      join(dir, 'sink.sql'),
      `%connection add site ${server.url}\nSINK INTO DRIVE [site] FORMAT PARQUET FILE 'x.parquet';\n`,
    );
    const out = await runCliInTemp(dir, ['run', 'sink.sql'], { env: { SQLCDC_HOME: join(dir, 'ws') } });
    assert.equal(out.code, 1, out.stdout);
    assert.match(out.stderr, /a Parquet file needs at least one column; the dataset has none/);
    assert.deepEqual(out.leftInTemp, [], 'no staged copy left in the temp folder');
    assert.deepEqual(readdirSync(server.root), []);
  },
);

test(
  'Ctrl-C during a slow FTP upload stops it at once: the statement is cancelled, and no part of the file is left on the site',
  { skip: ftpUnavailable(), timeout: 120_000 },
  async () => {
    // 4 MB at 16 KB a second: about four minutes, far beyond this test's time, were the transfer waited for.
    const server = await startFtpServer({ rateLimit: 16 * 1024 });
    servers.push(server);
    const { session } = tempSession({ 'big.csv': `id,name\n${'1,abcdefgh\n'.repeat(400_000)}` }, 'ftp-upload-cancel');
    try {
      await session.run(`%connection add site ${server.url}out\nSELECT * FROM DRIVE 'big.csv';`);
      const controller = new AbortController();
      // Whether the upload has begun or not by then, the statement must end with it.
      const timer = setTimeout(() => controller.abort(), 1_000);
      const results = [];
      for await (const r of session.execute("SINK INTO DRIVE [site] FORMAT CSV FILE 'big.csv';", {
        signal: controller.signal,
      }))
        results.push(r);
      clearTimeout(timer);
      const error = results.find((r) => r.kind === 'error');
      assert.equal(error?.kind === 'error' && error.error.kind, 'cancelled');
      const out = join(server.root, 'out');
      assert.deepEqual(existsSync(out) ? readdirSync(out) : [], [], 'neither the file nor its partial temp copy');
    } finally {
      await session.close();
    }
  },
);
