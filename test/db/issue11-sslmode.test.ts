import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../helpers/cli';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../helpers/postgres';
import { tempDir } from '../helpers/session';

/*
 * Issue 11's connection line `postgres://user:pass@host:port/db` (also `postgresql://`, and `?sslmode=`),
 * against a real server that takes TLS with a self-signed certificate, as managed PostgreSQL services
 * do. `sslmode` means what it means to psql (libpq): `require` encrypts without checking the
 * certificate, `verify-full` checks it and the host name, `prefer` (libpq's default) encrypts when the
 * server takes TLS and talks plain text when it does not.
 */

const LIMITS = { timeout: 60_000, skip: postgresUnavailable() };
let tls: PostgresServer | undefined;
let plain: PostgresServer | undefined;

before(() => {
  if (postgresUnavailable()) return;
  tls = startPostgres({ tls: true });
  plain = startPostgres({ tcp: true });
});
after(() => {
  tls?.stop();
  plain?.stop();
});

/** `sqlcdc run` of a script that reads, over `url`, whether its own connection is encrypted. */
async function sslOf(url: string) {
  const dir = tempDir('pg-sslmode');
  writeFileSync(
    join(dir, 'ssl.sql'),
    `%connection add sec ${url}\nSELECT * FROM DB [sec] (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid());\n`,
  );
  return runCli(dir, ['run', 'ssl.sql', '--output', 'json', '--workspace', 'ws']);
}

test(
  'sslmode=require, in a postgres:// or a postgresql:// URL, encrypts as psql does, and prints no warning',
  LIMITS,
  async () => {
    for (const scheme of ['postgres', 'postgresql']) {
      const r = await sslOf(`${scheme}://postgres:pw@127.0.0.1:${tls!.port}/postgres?sslmode=require`);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '[{"ssl":true}]\n', scheme);
      assert.equal(
        r.stderr,
        'connection [sec] added (postgres)\n',
        'nothing but the connection line, no driver warning',
      );
    }
  },
);

test(
  'sslmode=verify-full refuses a certificate no authority signed: an error on the statement, no password',
  LIMITS,
  async () => {
    const r = await sslOf(`postgres://postgres:SECRETPW@127.0.0.1:${tls!.port}/postgres?sslmode=verify-full`);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^ssl\.sql:2:1: SELECT FROM DB: .*self[- ]signed certificate/m);
    assert.doesNotMatch(r.stderr, /SECRETPW|WARNING/);
  },
);

test('sslmode=disable talks plain text; so do no sslmode (pg) and the Unix socket', LIMITS, async () => {
  const tcp = `postgres://postgres@127.0.0.1:${tls!.port}/postgres`;
  for (const url of [`${tcp}?sslmode=disable`, tcp, await tls!.newDatabase()]) {
    const r = await sslOf(url);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '[{"ssl":false}]\n', url);
  }
});

test(
  'sslmode=prefer encrypts when the server takes TLS, and talks plain text to one without, as psql does',
  LIMITS,
  async () => {
    const url = (server: PostgresServer) => `postgres://postgres:pw@127.0.0.1:${server.port}/postgres?sslmode=prefer`;
    for (const [server, ssl] of [
      [tls!, true],
      [plain!, false],
    ] as const) {
      const r = await sslOf(url(server));
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `[{"ssl":${ssl}}]\n`, url(server));
      assert.equal(r.stderr, 'connection [sec] added (postgres)\n', 'no driver warning');
    }
  },
);
