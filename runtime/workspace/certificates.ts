import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { ScriptError } from '../errors';

/**
 * The workspace certificate store (reference.md C.5): PEM files in <workspace>/certs, each holding a
 * certificate and optionally its private key (or the key in a sibling <name>.key file). A
 * certificate is named by its thumbprint: the SHA-1 of its DER bytes in hex, any case, colons and
 * spaces ignored. What is done with them is CMS (cms.ts).
 */
export interface StoredCertificate {
  thumbprint: string;
  subject: string;
  file: string;
  certPem: string;
  keyPem?: string;
  /** The file `keyPem` was read from: `file`, or the .key file beside it. */
  keyFile?: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

export function normalizeThumbprint(t: string): string {
  return t.replace(/[\s:]/g, '').toLowerCase();
}

export function certificatesDir(workspace: string): string {
  return join(workspace, 'certs');
}

export function listCertificates(workspace: string): StoredCertificate[] {
  const dir = certificatesDir(workspace);
  if (!existsSync(dir)) return [];
  const out: StoredCertificate[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!['.pem', '.crt', '.cer'].includes(extname(name).toLowerCase())) continue;
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    const blocks = [...text.matchAll(PEM_BLOCK)];
    const certBlock = blocks.find((b) => b[1] === 'CERTIFICATE');
    if (!certBlock) continue;
    let keyPem = blocks.find((b) => b[1].endsWith('PRIVATE KEY'))?.[0];
    let keyFile = keyPem ? file : undefined;
    const besideIt = join(dir, `${basename(name, extname(name))}.key`);
    if (!keyPem && existsSync(besideIt)) [keyPem, keyFile] = [readFileSync(besideIt, 'utf8'), besideIt];
    const x509 = certificateIn(certBlock[0], file);
    out.push({
      thumbprint: normalizeThumbprint(x509.fingerprint),
      subject: x509.subject.replace(/\n/g, ', '),
      file,
      certPem: certBlock[0],
      keyPem,
      keyFile,
    });
  }
  return out;
}

export function findCertificate(workspace: string, thumbprint: string): StoredCertificate {
  const want = normalizeThumbprint(thumbprint);
  const all = listCertificates(workspace);
  const found = all.find((c) => c.thumbprint === want);
  if (!found) {
    const known =
      all.map((c) => `${c.thumbprint} (${c.subject})`).join('; ') ||
      `none: add PEM files to ${certificatesDir(workspace)}`;
    const asked = want === '' ? 'the thumbprint is empty' : `no certificate with thumbprint ${want}`;
    throw new ScriptError(`${asked} (known: ${known})`, 'runtime');
  }
  return found;
}

/** OpenSSL's reason without its code: `error:1E08010C:DECODER routines::unsupported` says little alone. */
function reasonOf(e: unknown): string {
  return (e as Error).message.replace(/^error:[0-9A-F]+:/, '');
}

/** A store's certificate block, or an error naming its file: one bad file must say which it is. */
function certificateIn(pem: string, file: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (e) {
    throw new ScriptError(
      `the certificate in ${file} does not read (${reasonOf(e)}): replace it with a PEM certificate`,
      'runtime',
    );
  }
}

/**
 * The private key of `c`, for `purpose` (" to sign with", or nothing); missing, or not readable (damaged,
 * protected by a passphrase, not a key), it is an error naming the file to fix.
 */
export function privateKeyOf(c: StoredCertificate, purpose = ''): KeyObject {
  if (!c.keyPem)
    throw new ScriptError(
      `certificate ${c.thumbprint} has no private key${purpose} (put it in ${c.file} or a .key file beside it)`,
      'runtime',
    );
  try {
    return createPrivateKey(c.keyPem);
  } catch (e) {
    throw new ScriptError(
      `the private key of certificate ${c.thumbprint} in ${c.keyFile ?? c.file} does not read (${reasonOf(e)}): it must be an unencrypted PEM private key`,
      'runtime',
    );
  }
}
