import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliInTemp } from '../helpers/cli';
import { Session } from '../../runtime/session';
import type { Result } from '../../runtime/results';
import { ftpUnavailable, startFtpServer, type FtpServer } from '../helpers/ftp-server';
import { tempDir } from '../helpers/temp';

const servers: FtpServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
});

/** Runs `script` with `sqlcdc run` beside a connection `site` to the server's `drop` folder. */
async function run(server: FtpServer, script: string) {
  const dir = tempDir('ftp-read');
  writeFileSync(join(dir, 'read.sql'), `%connection add site ${server.url}drop\n${script}\n`);
  return runCliInTemp(dir, ['run', 'read.sql', '--output', 'json'], { env: { SQLCDC_HOME: join(dir, 'ws') } });
}

test(
  'SELECT FROM DRIVE reads files of an FTP connection: one file, a glob in name order, every format',
  { skip: ftpUnavailable() },
  async () => {
    const server = await startFtpServer();
    servers.push(server);
    mkdirSync(join(server.root, 'drop', 'in'), { recursive: true });
    writeFileSync(join(server.root, 'drop', 'in', '2024-02.csv'), 'id;name\n3;c\n');
    writeFileSync(join(server.root, 'drop', 'in', '2024-01.csv'), 'id;name\n1;a\n2;b\n');
    writeFileSync(join(server.root, 'drop', 'in', 'notes.txt'), 'not a csv');
    writeFileSync(join(server.root, 'drop', 'orders.json'), '[{"id": 9007199254740993, "total": 1.5}]');

    const one = await run(server, "SELECT * FROM DRIVE [site] 'orders.json';");
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout.trim(), '[{"id":9007199254740993,"total":1.5}]');
    assert.deepEqual(one.leftInTemp, [], 'the downloaded copy is removed');

    const glob = await run(server, "SELECT * FROM DRIVE [site] 'in/2024-*.csv' OPTIONS 'delimiter:;';");
    assert.equal(glob.code, 0, glob.stderr);
    assert.equal(glob.stdout.trim(), '[{"id":"1","name":"a"},{"id":"2","name":"b"},{"id":"3","name":"c"}]');
    assert.deepEqual(glob.leftInTemp, []);

    const none = await run(server, "SELECT * FROM DRIVE [site] 'in/*.parquet';");
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stderr, /no file matches 'in\/\*\.parquet'/);
  },
);

test(
  'FTP reads: a missing file, a wildcard in a folder name and a bad document are clear errors without the password',
  { skip: ftpUnavailable() },
  async () => {
    const server = await startFtpServer();
    servers.push(server);
    mkdirSync(join(server.root, 'drop'), { recursive: true });
    writeFileSync(join(server.root, 'drop', 'bad.json'), '{"id": 1,');

    const missing = await run(server, "SELECT * FROM DRIVE [site] 'nothing.csv';");
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /read\.sql:2:29: SELECT FROM DRIVE: file not found: nothing\.csv on ftp:\/\/uploader@/,
    );
    const folders = await run(server, "SELECT * FROM DRIVE [site] '*/x.csv';");
    assert.equal(folders.code, 1);
    assert.match(folders.stderr, /on ftp:\/\/uploader@[^,]*, wildcards go in the file name only, not in '\*'/);
    const bad = await run(server, "SELECT * FROM DRIVE [site] 'bad.json';");
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /bad\.json: invalid JSON/);
    const dir = tempDir('ftp-read');
    writeFileSync(
      join(dir, 'down.sql'),
      `%connection add gone ftp://${server.user}:${server.password}@127.0.0.1:1/\nSELECT * FROM DRIVE [gone] 'x.csv';\n`,
    );
    const down = await runCliInTemp(dir, ['run', 'down.sql'], { env: { SQLCDC_HOME: join(dir, 'ws') } });
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      /FTP download of x\.csv on ftp:\/\/uploader@127\.0\.0\.1:1\/ failed: connect ECONNREFUSED/,
    );
    for (const out of [missing, folders, bad, down]) {
      assert.doesNotMatch(out.stderr + out.stdout, new RegExp(server.password));
      assert.deepEqual(out.leftInTemp, []);
    }
  },
);

test(
  'Ctrl-C during a slow FTP download stops it at once: the statement is cancelled, not left to finish the transfer',
  { skip: ftpUnavailable(), timeout: 120_000 },
  async () => {
    // 4 MB at 16 KB a second: about four minutes, far beyond this test's time, were the transfer waited for.
    const server = await startFtpServer({ rateLimit: 16 * 1024 });
    servers.push(server);
    mkdirSync(join(server.root, 'drop'));
    const big = `id,name\n${'1,abcdefgh\n'.repeat(400_000)}`;
    writeFileSync(join(server.root, 'drop', 'big.csv'), big);
    // LOAD fetches a change log the same way; never read whole, its content does not matter.
    writeFileSync(join(server.root, 'drop', 'big.eds'), big);
    const dir = tempDir('ftp-cancel');
    const session = new Session({ workspace: join(dir, 'ws'), cwd: dir });
    try {
      for (const [k, statement] of [
        "SELECT * FROM DRIVE [site0] 'big.csv';",
        "LOAD UPSERTS FROM [site1] 'big.eds';",
      ].entries()) {
        const controller = new AbortController();
        // Whether the transfer has begun or not by then, the statement must end with it.
        const timer = setTimeout(() => controller.abort(), 1_000);
        const results: Result[] = [];
        for await (const r of session.execute(`%connection add site${k} ${server.url}drop\n${statement}`, {
          signal: controller.signal,
        }))
          results.push(r);
        clearTimeout(timer);
        const error = results.find((r) => r.kind === 'error');
        assert.equal(error?.kind === 'error' && error.error.kind, 'cancelled', statement);
      }
    } finally {
      await session.close();
    }
  },
);
