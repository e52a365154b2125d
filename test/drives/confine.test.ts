import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Dataset } from '../../runtime/index';
import { ScriptError } from '../../runtime/errors';
import type { Session } from '../../runtime/session';
import { ftpUnavailable, startFtpServer, type FtpServer } from '../helpers/ftp-server';
import { tempSession } from '../helpers/session';

// A drive connection confines every path of the script to its root (docs/drives.md "Where files go"):
// a leading `/` is the root itself, a `..` may not climb above it. Without a connection paths stay free.

const servers: FtpServer[] = [];
const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const server of servers) await server.close();
});

/** A session whose connection [lake] has the root folder `root`, beside a file outside it. */
function lake(): { s: Session; dir: string } {
  const { session: s, dir } = tempSession(
    { 'secret.csv': 'secret\nkept out\n', 'root/in.csv': 'id\n1\n', 'root/sub/in2.csv': 'id\n2\n' },
    'confine',
  );
  sessions.push(s);
  return { s, dir };
}

/** The statement fails with "'<path>' leaves the root of <kind> connection <name>", the caret under the path. */
async function refused(s: Session, statement: string, path: string, owner = 'drive connection lake'): Promise<void> {
  await assert.rejects(
    s.run(statement),
    (e: unknown) => {
      assert.ok(e instanceof ScriptError, String(e));
      assert.equal(e.message, `'${path}' leaves the root of ${owner}`);
      const quoted = statement.indexOf(`'${path.split('/')[0]}`);
      assert.ok(quoted >= 0);
      // The caret under the path's first character, as for every text argument.
      assert.equal(e.position?.column, quoted + 2, `caret under the path in ${statement}`);
      return true;
    },
    statement,
  );
}

const ids = (s: Session) => s.dataset.rows().map((r) => r[0]);

test('SELECT FROM DRIVE [conn]: a leading slash is the root, a .. may not climb above it, globs included', async () => {
  const { s, dir } = lake();
  await s.run('%connection add lake --drive root');
  await refused(s, "SELECT * FROM DRIVE [lake] '../secret.csv';", '../secret.csv');
  await refused(s, "SELECT * FROM DRIVE [lake] 'sub/../../secret.csv';", 'sub/../../secret.csv');
  await refused(s, "SELECT * FROM DRIVE [lake] '../*.csv';", '../*.csv');
  await refused(s, "SELECT * FROM DRIVE [lake] '..\\secret.csv';", '..\\secret.csv');

  await s.run("SELECT * FROM DRIVE [lake] '/in.csv';");
  assert.deepEqual(ids(s), ['1']);
  await s.run("SELECT * FROM DRIVE [lake] 'sub/../in.csv';");
  assert.deepEqual(ids(s), ['1']);
  await s.run("SELECT * FROM DRIVE [lake] '/**/*.csv';");
  assert.deepEqual(ids(s), ['1', '2']);
  // An absolute path names a file under the root, not the one of the local file system.
  await assert.rejects(s.run(`SELECT * FROM DRIVE [lake] '${join(dir, 'secret.csv')}';`), /file not found/);

  // Without a connection a path is the local file system's, relative to the working directory.
  await s.run("SELECT * FROM DRIVE 'root/../secret.csv';");
  assert.deepEqual(ids(s), ['kept out']);
  await s.run(`SELECT * FROM DRIVE '${join(dir, 'secret.csv')}';`);
  assert.deepEqual(ids(s), ['kept out']);
});

test('SINK and PUSH INTO DRIVE [conn]: FILE and CONTAINER stay inside the root; nothing is written outside it', async () => {
  const { s, dir } = lake();
  await s.run('%connection add lake --drive root');
  s.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1]]));
  await refused(s, "SINK INTO DRIVE [lake] FORMAT CSV FILE '../out.csv';", '../out.csv');
  await refused(s, "SINK INTO DRIVE [lake] FORMAT CSV FILE '../../x.csv' CONTAINER 'a';", '../x.csv');
  await s.run("CAPTURE 'items' ON KEYS 'id';");
  s.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1], [2]]));
  await refused(
    s,
    "CAPTURE 'items' ON KEYS 'id'; PUSH INTO DRIVE [lake] FORMAT CSV FILE '../pushed.csv';",
    '../pushed.csv',
  );
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.csv')),
    ['secret.csv'],
    'nothing written beside the root',
  );

  await assert.rejects(
    s.run("SINK INTO DRIVE [lake] FORMAT CSV FILE '/';"),
    /^ScriptError: FILE '\/' names a folder, not a file$/,
  );
  assert.deepEqual(readdirSync(dir).sort(), ['root', 'secret.csv', 'ws'], 'no staged copy beside the root');
  await s.run("SINK INTO DRIVE [lake] FORMAT CSV FILE '/out.csv';");
  assert.ok(existsSync(join(dir, 'root', 'out.csv')));
  await s.run("SINK INTO DRIVE [lake] FORMAT CSV FILE '/x.csv' CONTAINER '/a/../b';");
  assert.ok(existsSync(join(dir, 'root', 'b', 'x.csv')));
  // Without a connection, the local file system: a .. written in the script is the script's to write.
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'root/../free.csv';");
  assert.ok(existsSync(join(dir, 'free.csv')));
});

test('CAPTURE and LOAD WITH PATH [conn]: the change log folder stays inside the root', async () => {
  const { s, dir } = lake();
  await s.run('%connection add lake --drive root');
  s.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1]]));
  await refused(s, "CAPTURE 'items' ON KEYS 'id' WITH PATH [lake] '../logs';", '../logs');
  await refused(s, "LOAD UPSERTS FROM 'items' PATH [lake] '../logs';", '../logs');
  await s.run("CAPTURE 'items' ON KEYS 'id' WITH PATH [lake] '/logs';");
  s.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1], [2]]));
  await s.run("CAPTURE 'items' ON KEYS 'id' WITH PATH [lake] '/logs';");
  const logs = readdirSync(join(dir, 'root', 'logs'));
  assert.equal(logs.length, 2);
  assert.ok(
    logs.every((f) => /^items_\d+\.eds$/.test(f)),
    logs.join(),
  );
  await s.run("LOAD UPSERTS FROM 'items' PATH [lake] '/logs';");
  assert.deepEqual(ids(s), [1]);
  assert.ok(!existsSync(join(dir, 'logs')));
});

test(
  'an FTP connection confines paths to its folder on the site the same way',
  { skip: ftpUnavailable() },
  async () => {
    const server = await startFtpServer();
    servers.push(server);
    mkdirSync(join(server.root, 'drop'), { recursive: true });
    writeFileSync(join(server.root, 'secret.csv'), 'secret\nkept out\n');
    writeFileSync(join(server.root, 'drop', 'in.csv'), 'id\n1\n');
    const { session: s } = tempSession({}, 'confine');
    sessions.push(s);
    await s.run(`%connection add site ${server.url}drop`);
    await refused(s, "SELECT * FROM DRIVE [site] '../secret.csv';", '../secret.csv', 'ftp connection site');
    await refused(s, "SELECT * FROM DRIVE [site] '../*.csv';", '../*.csv', 'ftp connection site');
    s.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1]]));
    await refused(s, "SINK INTO DRIVE [site] FORMAT CSV FILE '../out.csv';", '../out.csv', 'ftp connection site');
    assert.ok(!existsSync(join(server.root, 'out.csv')));
    await s.run("SELECT * FROM DRIVE [site] '/in.csv';");
    assert.deepEqual(ids(s), ['1']);
  },
);
