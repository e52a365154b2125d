import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { readChangeLog } from '../../runtime/changelog/read';
import { writeChangeLog } from '../../runtime/changelog/write';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Column } from '../../runtime/dataset/types';
import { allTypes, makeCertificate, meta, openssl, tempDir } from './helpers';

const LIMITS = { timeout: 60_000 };

/** Words that must not appear in an encrypted file: in its header (uncompressed) and its cells. */
const SECRET_COLUMN = 'secret_column_name';
const SECRET_PIPELINE = 'confidential-pipeline';
const COLUMNS: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: SECRET_COLUMN, type: { base: 'string' } },
];

function secretData(): Dataset {
  return Dataset.fromRows(
    COLUMNS,
    Array.from({ length: 1000 }, (_, i) => [i, `patient record ${i}`]),
  );
}

test(
  "an encrypted log holds no plaintext; the store's private key reads it; openssl cms -decrypt gives the plain log",
  LIMITS,
  async () => {
    const ws = tempDir('changelog-ws');
    const cert = makeCertificate(ws, 'agent');
    const dir = tempDir('changelog');
    const ds = secretData();
    const plain = join(dir, 'plain.eds');
    const sealed = join(dir, 'sealed.eds');
    await writeChangeLog(plain, ds, Dataset.empty(), meta(ds, { pipeline: SECRET_PIPELINE }));
    const written = await writeChangeLog(sealed, ds, Dataset.empty(), meta(ds, { pipeline: SECRET_PIPELINE }), {
      encryptFor: cert,
    });
    assert.deepEqual(written.header.encryptedFor, { thumbprint: cert.thumbprint, subject: 'CN=agent' });

    // The plain log shows its header in clear (the control); the encrypted one shows nothing.
    assert.ok(readFileSync(plain).includes(SECRET_COLUMN));
    const bytes = readFileSync(sealed);
    for (const word of [SECRET_COLUMN, SECRET_PIPELINE, 'sqlcdc-changelog', 'patient record'])
      assert.ok(!bytes.includes(word), word);

    const log = await readChangeLog(sealed, { workspace: ws });
    assert.equal(log.encrypted, true);
    assert.equal(log.header.pipeline, SECRET_PIPELINE);
    assert.deepEqual(log.upserts.rows(), ds.rows());

    // Standard CMS: openssl decrypts it, and the result is a change log we read.
    const clear = openssl([
      'cms',
      '-decrypt',
      '-binary',
      '-inform',
      'DER',
      '-in',
      sealed,
      '-recip',
      cert.certFile,
      '-inkey',
      cert.keyFile,
    ]);
    const decrypted = join(dir, 'decrypted.eds');
    writeFileSync(decrypted, clear);
    assert.deepEqual((await readChangeLog(decrypted)).upserts.rows(), ds.rows());

    // …and we read what openssl encrypts.
    const theirs = join(dir, 'theirs.eds');
    writeFileSync(
      theirs,
      openssl(['cms', '-encrypt', '-binary', '-aes256', '-outform', 'DER', '-in', plain, cert.certFile]),
    );
    assert.deepEqual((await readChangeLog(theirs, { workspace: ws })).upserts.rows(), ds.rows());
  },
);

test(
  'an encrypted log fails clearly without the store, without the key, or for another certificate',
  LIMITS,
  async () => {
    const ws = tempDir('changelog-ws');
    const cert = makeCertificate(ws, 'agent');
    const dir = tempDir('changelog');
    const ds = secretData();
    const sealed = join(dir, 'sealed.eds');
    await writeChangeLog(sealed, ds, Dataset.empty(), meta(ds), { encryptFor: cert });
    await assert.rejects(
      readChangeLog(sealed),
      /^ScriptError: change log sealed\.eds: the change log is encrypted: reading it needs the workspace certificate store$/,
    );
    const other = tempDir('changelog-ws');
    makeCertificate(other, 'stranger');
    await assert.rejects(
      readChangeLog(sealed, { workspace: other }),
      /change log sealed\.eds: the content is not encrypted for any certificate of the workspace store that has its private key/,
    );
    const keyless = tempDir('changelog-ws');
    makeCertificate(keyless, 'public-only', { withKey: false });
    await assert.rejects(
      readChangeLog(sealed, { workspace: keyless }),
      /no certificate of the workspace store has a private key/,
    );
    // Damage inside the ciphertext: the padding or a frame checksum catches it.
    const bytes = readFileSync(sealed);
    bytes[Math.floor(bytes.length / 2)] ^= 1;
    writeFileSync(sealed, bytes);
    await assert.rejects(
      readChangeLog(sealed, { workspace: ws }),
      /change log sealed\.eds(: the encrypted content is damaged| is damaged: )/,
    );
  },
);

/** Rewrites the pipeline name in a signed (not encrypted) log and fixes the header checksum: a change only the signature sees. */
function tamper(path: string, from: string, to: string): void {
  assert.equal(from.length, to.length);
  const bytes = readFileSync(path);
  const start = bytes.indexOf('{"format"');
  const length = bytes.readUInt32LE(start - 4);
  const json = bytes.subarray(start, start + length);
  const at = json.indexOf(from);
  assert.ok(at >= 0);
  json.write(to, at);
  bytes.writeUInt32LE(crc32(json), start + length);
  writeFileSync(path, bytes);
}

test(
  'a signed log verifies with CHECK_SIGNATURE and with openssl cms -verify; a tampered one fails clearly',
  LIMITS,
  async () => {
    const ws = tempDir('changelog-ws');
    const signer = makeCertificate(ws, 'signer');
    const dir = tempDir('changelog');
    const ds = allTypes();
    const path = join(dir, 'signed.eds');
    await writeChangeLog(path, ds, ds, meta(ds, { pipeline: 'pipeline-a' }), { signWith: signer });
    const log = await readChangeLog(path, { workspace: ws, checkSignature: true });
    assert.deepEqual(log.signers, [{ thumbprint: signer.thumbprint, subject: 'CN=signer' }]);
    assert.equal(log.upserts.rowCount, ds.rowCount);

    const content = openssl(['cms', '-verify', '-binary', '-inform', 'DER', '-in', path, '-CAfile', signer.certFile]);
    const verified = join(dir, 'verified.eds');
    writeFileSync(verified, content);
    assert.equal((await readChangeLog(verified)).header.pipeline, 'pipeline-a');

    // Changed after signing: readable without the check (its checksums are right), refused with it.
    tamper(path, 'pipeline-a', 'pipeline-b');
    assert.equal((await readChangeLog(path)).header.pipeline, 'pipeline-b');
    await assert.rejects(
      readChangeLog(path, { workspace: ws, checkSignature: true }),
      /^ScriptError: change log signed\.eds: the content was changed after it was signed \(its digest does not match the signed one\)$/,
    );
    assert.throws(() =>
      openssl(['cms', '-verify', '-binary', '-inform', 'DER', '-in', path, '-CAfile', signer.certFile]),
    );

    // A log openssl signs (DER, definite lengths) passes our check too.
    const theirs = join(dir, 'openssl-signed.eds');
    writeFileSync(
      theirs,
      openssl([
        'cms',
        '-sign',
        '-binary',
        '-nodetach',
        '-outform',
        'DER',
        '-in',
        verified,
        '-signer',
        signer.certFile,
        '-inkey',
        signer.keyFile,
      ]),
    );
    const checked = await readChangeLog(theirs, { workspace: ws, checkSignature: true });
    assert.equal(checked.signers[0].thumbprint, signer.thumbprint);
    assert.equal(checked.header.pipeline, 'pipeline-a');
  },
);

test(
  'CHECK_SIGNATURE fails on an unsigned log, a forged signature and a signer outside the store',
  LIMITS,
  async () => {
    const ws = tempDir('changelog-ws');
    const signer = makeCertificate(ws, 'signer');
    const dir = tempDir('changelog');
    const ds = allTypes();
    const unsigned = join(dir, 'unsigned.eds');
    await writeChangeLog(unsigned, ds, Dataset.empty(), meta(ds));
    await assert.rejects(
      readChangeLog(unsigned, { workspace: ws, checkSignature: true }),
      /^ScriptError: change log unsigned\.eds: the change log is not signed$/,
    );

    const forged = join(dir, 'forged.eds');
    await writeChangeLog(forged, ds, Dataset.empty(), meta(ds), { signWith: signer });
    const bytes = readFileSync(forged);
    // The file ends with the RSA signature, then the end-of-contents of SignedData, [0] and ContentInfo.
    bytes[bytes.length - 6 - 20] ^= 1;
    writeFileSync(forged, bytes);
    await assert.rejects(
      readChangeLog(forged, { workspace: ws, checkSignature: true }),
      /change log forged\.eds: the signature does not verify with the signer's certificate/,
    );

    const stranger = tempDir('changelog-ws');
    const outsider = makeCertificate(stranger, 'outsider');
    const theirs = join(dir, 'outsider.eds');
    await writeChangeLog(theirs, ds, Dataset.empty(), meta(ds), { signWith: outsider });
    await assert.rejects(
      readChangeLog(theirs, { workspace: ws, checkSignature: true }),
      new RegExp(
        `signed by CN=outsider \\(thumbprint ${outsider.thumbprint}\\), which is not a certificate of the workspace store`,
      ),
    );
  },
);

test(
  'encrypted and signed: signed inside the envelope, verified after decryption, and openssl takes it apart the same way',
  LIMITS,
  async () => {
    const ws = tempDir('changelog-ws');
    const agent = makeCertificate(ws, 'agent');
    const signer = makeCertificate(ws, 'signer');
    const dir = tempDir('changelog');
    const ds = secretData();
    const path = join(dir, 'both.eds');
    await writeChangeLog(path, ds, Dataset.empty(), meta(ds), { encryptFor: agent, signWith: signer });
    assert.ok(!readFileSync(path).includes(SECRET_COLUMN));
    const log = await readChangeLog(path, { workspace: ws, checkSignature: true });
    assert.equal(log.encrypted, true);
    assert.equal(log.signers[0].thumbprint, signer.thumbprint);
    assert.deepEqual(log.header.signedBy, { thumbprint: signer.thumbprint, subject: 'CN=signer' });
    assert.deepEqual(log.upserts.rows(), ds.rows());

    const signed = openssl([
      'cms',
      '-decrypt',
      '-binary',
      '-inform',
      'DER',
      '-in',
      path,
      '-recip',
      agent.certFile,
      '-inkey',
      agent.keyFile,
    ]);
    const content = openssl(['cms', '-verify', '-binary', '-inform', 'DER', '-CAfile', signer.certFile], signed);
    const plain = join(dir, 'plain.eds');
    writeFileSync(plain, content);
    assert.deepEqual((await readChangeLog(plain)).upserts.rows(), ds.rows());
  },
);
