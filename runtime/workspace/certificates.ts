import { X509Certificate } from 'node:crypto';
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
    const keyFile = join(dir, `${basename(name, extname(name))}.key`);
    if (!keyPem && existsSync(keyFile)) keyPem = readFileSync(keyFile, 'utf8');
    const x509 = new X509Certificate(certBlock[0]);
    out.push({
      thumbprint: normalizeThumbprint(x509.fingerprint),
      subject: x509.subject.replace(/\n/g, ', '),
      file,
      certPem: certBlock[0],
      keyPem,
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
