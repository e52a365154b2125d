import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli';
import { startHttpServer, type TestServer } from '../helpers/http-server';
import { tempDir } from '../helpers/session';
import { ReplProcess } from '../repl/harness';

/**
 * Issue 15 through the front ends a user has: the issue's own reproduction in the REPL process, and
 * SQLCDC_SECRET supplying the workspace key to `sqlcdc run` and `sqlcdc workspace rotate-key`.
 */
const LIMITS = { timeout: 120_000 };
const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** Every file under `dir`, recursively, as text. */
function textsUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? textsUnder(path) : [{ path, text: readFileSync(path, 'latin1') }];
  });
}

test(
  "the issue's reproduction in the REPL: %connection list shows the header's name with ****, never its value or the token",
  LIMITS,
  async (t) => {
    const dir = tempDir('issue15-repl');
    const repl = new ReplProcess(dir);
    t.after(() => repl.kill());
    await repl.response();
    const added = await repl.send(
      '%connection add api https://api.example.test/v1 --header "X-Api-Key: KEYVAL999" --bearer TOKEN4242',
    );
    const list = await repl.send('%connection list');
    assert.equal(await repl.close(), 0);
    for (const shown of [added, list]) {
      assert.ok(!shown.includes('KEYVAL999') && !shown.includes('TOKEN4242'), shown);
    }
    assert.match(list, /X-Api-Key\\?"?:\s*\\?"\*\*\*\*/, list);
    assert.match(list, /https:\/\/api\.example\.test\/v1/);
    for (const f of textsUnder(join(dir, 'ws'))) {
      assert.ok(!f.text.includes('KEYVAL999') && !f.text.includes('TOKEN4242'), `${f.path} holds a secret in clear`);
    }
  },
);

test(
  'SQLCDC_SECRET is the workspace key for sqlcdc run: no key file, the same secret opens the connection, another is refused without showing it; rotate-key moves to SQLCDC_NEW_SECRET',
  LIMITS,
  async () => {
    const server = await startHttpServer(
      (req, res) =>
        void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ auth: req.headers.authorization ?? null })),
    );
    servers.push(server);
    const dir = tempDir('issue15-env');
    const ws = join(dir, 'ws');
    writeFileSync(join(dir, 'add.sql'), `%connection add api ${server.url} --bearer ENVTOKEN77\nPRINT 'added';\n`);
    writeFileSync(join(dir, 'use.sql'), `SELECT * FROM HTTP [api] (GET /who) APPLY TX '$';\n`);
    const as = (secret: string, extra: Record<string, string> = {}) => ({
      env: { SQLCDC_HOME: ws, SQLCDC_SECRET: secret, ...extra },
    });

    const add = await runCli(dir, ['run', 'add.sql'], as('first secret'));
    assert.equal(add.code, 0, add.stderr);
    assert.equal(existsSync(join(ws, 'secret.key')), false, 'SQLCDC_SECRET replaces the key file');
    for (const f of textsUnder(ws)) assert.ok(!f.text.includes('ENVTOKEN77'), `${f.path} holds the token in clear`);

    const used = await runCli(dir, ['run', 'use.sql', '--output', 'json'], as('first secret'));
    assert.equal(used.code, 0, used.stderr);
    assert.equal(server.requests.at(-1)?.headers.authorization, 'Bearer ENVTOKEN77');

    const wrong = await runCli(dir, ['run', 'use.sql'], as('another secret'));
    assert.equal(wrong.code, 1);
    assert.ok(!(wrong.stdout + wrong.stderr).includes('ENVTOKEN77'), wrong.stderr);
    assert.equal(server.requests.length, 1, 'nothing is sent with a secret that did not open');

    const rotated = await runCli(
      dir,
      ['workspace', 'rotate-key'],
      as('first secret', { SQLCDC_NEW_SECRET: 'second secret' }),
    );
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.match(rotated.stdout, /1 connection/);
    assert.ok(!(rotated.stdout + rotated.stderr).includes('ENVTOKEN77'));
    const after = await runCli(dir, ['run', 'use.sql'], as('second secret'));
    assert.equal(after.code, 0, after.stderr);
    assert.equal(server.requests.at(-1)?.headers.authorization, 'Bearer ENVTOKEN77');
    const old = await runCli(dir, ['run', 'use.sql'], as('first secret'));
    assert.equal(old.code, 1, 'the old secret no longer opens it');
  },
);
