import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { crc32 } from 'node:zlib';
import { makeCertificate } from './helpers';
import { CAPTURE, cell, Folder, rows } from './pipelines';

const LIMITS = { timeout: 120_000 };
const folders: Folder[] = [];
after(async () => {
  for (const f of folders) await f.close();
});

function folder(): Folder {
  const f = new Folder();
  folders.push(f);
  return f;
}

/** Words of the source that must not be readable in an encrypted log. */
const SECRET = ['confidential', 'status', 'orders-secret-pipeline'];

test(
  "ENCRYPT_CERT: the log holds no plaintext; LOAD decrypts it with the store's private key; a store without the key cannot",
  LIMITS,
  async () => {
    const f = folder();
    const agent = makeCertificate(f.workspace, 'agent');
    const s = f.session({ pipeline: 'orders-secret-pipeline' });
    f.orders([
      [1, 'confidential', 10],
      [2, 'confidential', 20],
    ]);
    const out = await cell(
      s,
      `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs' ENCRYPT_CERT '${agent.thumbprint.toLowerCase()}';`,
    );
    assert.match(out.messages.join('\n'), /^change log logs\/orders_\d+\.eds: 2 inserts/);
    const [file] = f.logs('logs');
    const bytes = readFileSync(join(f.dir, 'logs', file));
    for (const word of SECRET) assert.equal(bytes.includes(word), false, `'${word}' is readable in the encrypted log`);

    const loaded = await cell(f.session(), `LOAD UPSERTS FROM 'orders' PATH 'logs';`);
    assert.deepEqual(rows(loaded.dataset), [
      ['1', 'confidential', '10'],
      ['2', 'confidential', '20'],
    ]);

    // Another workspace: the certificate without its private key.
    const other = folder();
    cpSync(join(f.dir, 'logs'), join(other.dir, 'logs'), { recursive: true });
    makeCertificate(other.workspace, 'stranger');
    await assert.rejects(
      cell(other.session(), `LOAD UPSERTS FROM 'orders' PATH 'logs';`),
      /change log orders_\d+\.eds: the content is not encrypted for/,
    );
  },
);

/** Changes the pipeline name in a signed (not encrypted) log and fixes the header checksum: only the signature sees it. */
function tamper(path: string, from: string, to: string): void {
  const bytes = readFileSync(path);
  const start = bytes.indexOf('{"format"');
  const length = bytes.readUInt32LE(start - 4);
  const json = bytes.subarray(start, start + length);
  const at = json.indexOf(from);
  assert.ok(at >= 0 && from.length === to.length);
  json.write(to, at);
  bytes.writeUInt32LE(crc32(json), start + length);
  writeFileSync(path, bytes);
}

test(
  'SIGN_CERT and LOAD … WITH CHECK_SIGNATURE: a signed log loads; a tampered or an unsigned one fails clearly',
  LIMITS,
  async () => {
    const f = folder();
    const signer = makeCertificate(f.workspace, 'signer');
    const s = f.session({ pipeline: 'pipeline-a' });
    f.orders([[1, 'new', 10]]);
    await cell(s, `${CAPTURE} CAPTURE 'orders.eds' ON KEYS 'id' WITH PATH 'signed' SIGN_CERT '${signer.thumbprint}';`);
    await cell(f.session({ pipeline: 'unsigned' }), `${CAPTURE} CAPTURE 'orders.eds' ON KEYS 'id' WITH PATH 'plain';`);
    const check = (path: string) =>
      cell(f.session(), `LOAD UPSERTS FROM 'orders.eds' PATH '${path}' WITH CHECK_SIGNATURE;`);
    assert.deepEqual(rows((await check('signed')).dataset), [['1', 'new', '10']]);
    await assert.rejects(check('plain'), /change log orders\.eds: the change log is not signed/);
    assert.equal(
      (await cell(f.session(), `LOAD UPSERTS FROM 'orders.eds' PATH 'plain';`)).dataset.rowCount,
      1,
      'without the check an unsigned log loads',
    );

    tamper(join(f.dir, 'signed', 'orders.eds'), 'pipeline-a', 'pipeline-b');
    assert.equal((await f.read('signed/orders.eds')).header.pipeline, 'pipeline-b', 'the change passes every checksum');
    await assert.rejects(check('signed'), (e: Error) => {
      assert.match(e.message, /change log orders\.eds: the content was changed after it was signed/);
      return true;
    });
  },
);

test('encrypted and signed: LOAD decrypts, then checks the signature', LIMITS, async () => {
  const f = folder();
  const agent = makeCertificate(f.workspace, 'agent');
  const signer = makeCertificate(f.workspace, 'signer');
  const s = f.session();
  f.orders([[1, 'confidential', 10]]);
  await cell(
    s,
    `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs' ENCRYPT_CERT '${agent.thumbprint}' SIGN_CERT '${signer.thumbprint}';`,
  );
  const bytes = readFileSync(join(f.dir, 'logs', f.logs('logs')[0]));
  assert.equal(bytes.includes('confidential'), false);
  const out = await cell(f.session(), `LOAD UPSERTS FROM 'orders' PATH 'logs' WITH CHECK_SIGNATURE;`);
  assert.deepEqual(rows(out.dataset), [['1', 'confidential', '10']]);
  const log = await f.read(`logs/${f.logs('logs')[0]}`, { checkSignature: true });
  assert.deepEqual(log.header.signedBy, { thumbprint: signer.thumbprint, subject: 'CN=signer' });
  assert.deepEqual(log.header.encryptedFor, { thumbprint: agent.thumbprint, subject: 'CN=agent' });
});

test(
  'a damaged private key or certificate in the store is an error naming its file, not an OpenSSL code',
  LIMITS,
  async () => {
    const f = folder();
    const signer = makeCertificate(f.workspace, 'signer');
    const s = f.session();
    f.orders([[1, 'new', 10]]);
    const key = readFileSync(signer.keyFile, 'utf8');
    // The body of the key cut short: still a PEM block, no longer a key.
    writeFileSync(signer.keyFile, key.replace(/\n[A-Za-z0-9+/=]{64}\n/, '\n'));
    await assert.rejects(
      cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs' SIGN_CERT '${signer.thumbprint}';`),
      (e: Error) => {
        assert.ok(
          e.message.includes(`the private key of certificate ${signer.thumbprint} in ${signer.keyFile} does not read`),
          e.message,
        );
        assert.match(e.message, /it must be an unencrypted PEM private key/);
        assert.doesNotMatch(e.message, /error:[0-9A-F]{8}:/);
        return true;
      },
    );
    assert.deepEqual(f.logs('logs'), [], 'nothing written');

    writeFileSync(signer.keyFile, key);
    const cert = readFileSync(signer.certFile, 'utf8');
    writeFileSync(signer.certFile, cert.replace(/\n[A-Za-z0-9+/=]{64}\n/, '\n'));
    await assert.rejects(
      cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs' SIGN_CERT '${signer.thumbprint}';`),
      (e: Error) => {
        assert.ok(e.message.includes(`the certificate in ${signer.certFile} does not read`), e.message);
        assert.doesNotMatch(e.message, /error:[0-9A-F]{8}:/);
        return true;
      },
    );
  },
);
