import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readChangeLog } from '../../runtime/changelog/read';
import { runCliInTemp } from '../helpers/cli';
import { ftpUnavailable, startFtpServer, type FtpServer } from '../helpers/ftp-server';
import { makeCertificate } from './helpers';
import { CAPTURE, cell, Folder, idOf, rows } from './pipelines';

const LIMITS = { timeout: 120_000, skip: ftpUnavailable() };
const servers: FtpServer[] = [];
const folders: Folder[] = [];
after(async () => {
  for (const f of folders) await f.close();
  for (const s of servers) await s.close();
});

// Plain FTP only: pyftpdlib resets the TLS data connections basic-ftp opens (test/drives/drives.test.ts).
test(
  "PATH [ftp] '/folder': CAPTURE uploads whole logs under increasing ids, LOAD reads them back in order, encrypted ones too",
  LIMITS,
  async () => {
    const server = await startFtpServer();
    servers.push(server);
    const f = new Folder();
    folders.push(f);
    const agent = makeCertificate(f.workspace, 'agent');
    const s = f.session({ pipeline: 'to-ftp' });
    await cell(s, `%connection add site ${server.url}`);
    const script = `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH [site] '/cdc/orders' ENCRYPT_CERT '${agent.thumbprint}';`;
    f.orders([
      [1, 'new', 10],
      [2, 'new', 20],
    ]);
    const first = await cell(s, script);
    assert.match(
      first.messages.join('\n'),
      /^change log \[site\] \/cdc\/orders\/orders_\d+\.eds: 2 inserts, 0 updates, 0 deletes$/,
    );
    f.orders([
      [2, 'paid', 20],
      [3, 'new', 30],
    ]);
    await cell(s, script);

    const remote = join(server.root, 'cdc', 'orders');
    const files = readdirSync(remote).sort();
    assert.equal(files.length, 2, `only whole logs, no temp file: ${files.join(', ')}`);
    assert.ok(idOf(files[1]) > idOf(files[0]));
    assert.equal(readFileSync(join(remote, files[1])).includes('paid'), false, 'encrypted on the server');
    const second = await readChangeLog(join(remote, files[1]), { workspace: f.workspace });
    assert.deepEqual(rows(second.upserts), [
      ['2', 'paid', '20'],
      ['3', 'new', '30'],
    ]);
    assert.deepEqual(rows(second.deletes), [['1', null, null]]);
    assert.deepEqual(readdirSync(f.dir).sort(), ['orders.csv', 'ws'], 'nothing staged in the working directory');

    // The write side, in another pipeline: FROM [conn] or PATH [conn], by name after the watermark.
    const w = f.session({ pipeline: 'from-ftp' });
    const load1 = await cell(w, `LOAD UPSERTS DELETES FROM [site] 'orders' PATH '/cdc/orders';`);
    assert.deepEqual(load1.messages, [
      `change log [site] /cdc/orders/${files[0]} loaded: 2 inserts, 0 updates, 0 deletes`,
    ]);
    const load2 = await cell(w, `LOAD UPSERTS DELETES FROM 'orders' PATH [site] '/cdc/orders';`);
    assert.deepEqual(rows(load2.dataset), [
      ['2', 'paid', '20'],
      ['3', 'new', '30'],
    ]);
    const none = await cell(w, `LOAD UPSERTS DELETES FROM 'orders' PATH [site] '/cdc/orders';`);
    assert.match(
      none.messages[0],
      /^no new change log of 'orders' in \[site\] \/cdc\/orders after execution id \d+: nothing to load, the rest of the pipeline is skipped$/,
    );
    const byName = await cell(w, `LOAD DELETES FROM '${files[1]}' PATH [site] '/cdc/orders';`);
    assert.deepEqual(rows(byName.dataset), [['1', null, null]]);
    await assert.rejects(
      cell(w, `LOAD DELETES FROM 'orders_1.eds' PATH [site] '/cdc/orders';`),
      /no change log orders_1\.eds in \[site\] \/cdc\/orders/,
    );
    for (const m of [...first.messages, ...load1.messages])
      assert.equal(m.includes(server.password), false, 'no password in messages');
  },
);

test(
  'a CAPTURE to FTP that fails while writing its log (SIGN_CERT without a private key) uploads nothing and leaves no staged copy',
  LIMITS,
  async () => {
    const server = await startFtpServer();
    servers.push(server);
    const f = new Folder();
    const keyless = makeCertificate(f.workspace, 'keyless', { withKey: false });
    f.orders([[1, 'new', 10]]);
    f.write(
      'capture.sql',
      `%connection add site ${server.url}\n${CAPTURE}\nCAPTURE 'orders' ON KEYS 'id' WITH PATH [site] '/cdc' SIGN_CERT '${keyless.thumbprint}';\n`,
    );
    const out = await runCliInTemp(f.dir, ['run', 'capture.sql'], { env: { SQLCDC_HOME: f.workspace } });
    assert.equal(out.code, 1, out.stdout);
    assert.match(out.stderr, /has no private key to sign with/);
    assert.deepEqual(out.leftInTemp, [], 'no staged copy left in the temp folder');
    assert.deepEqual(existsSync(join(server.root, 'cdc')) ? readdirSync(join(server.root, 'cdc')) : [], []);
  },
);

test('a LOAD from FTP whose download is refused fails saying so, and leaves no downloaded copy', LIMITS, async () => {
  // 'el': the user may list and size files (LOAD finds the log) but not download them.
  const server = await startFtpServer({ perm: 'el' });
  servers.push(server);
  mkdirSync(join(server.root, 'cdc'));
  writeFileSync(join(server.root, 'cdc', 'orders_1.eds'), 'a log the server will not hand out');
  const f = new Folder();
  f.write('load.sql', `%connection add site ${server.url}\nLOAD UPSERTS FROM 'orders_1.eds' PATH [site] '/cdc';\n`);
  const out = await runCliInTemp(f.dir, ['run', 'load.sql'], { env: { SQLCDC_HOME: f.workspace } });
  assert.equal(out.code, 1, out.stdout);
  assert.match(out.stderr, /FTP download of \/?cdc\/orders_1\.eds on ftp:\/\/uploader@127\.0\.0\.1:\d+\/ failed: 550/);
  assert.doesNotMatch(out.stderr, new RegExp(server.password));
  assert.deepEqual(out.leftInTemp, [], 'no downloaded copy left in the temp folder');
});
