import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type forge from 'node-forge';
import { ScriptError } from '../errors';

/**
 * The workspace certificate store (reference.md C.5): PEM files in <workspace>/certs, each holding a
 * certificate and optionally its private key (or the key in a sibling <name>.key file). A
 * certificate is named by its thumbprint: the SHA-1 of its DER bytes in hex, any case, colons and
 * spaces ignored. Encryption is CMS EnvelopedData (RSA key transport, AES-256-CBC) and signing CMS
 * SignedData, both DER, so `openssl cms` reads what we write and we read what it writes.
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
    out.push({ thumbprint: normalizeThumbprint(x509.fingerprint), subject: x509.subject.replace(/\n/g, ', '), file, certPem: certBlock[0], keyPem });
  }
  return out;
}

export function findCertificate(workspace: string, thumbprint: string): StoredCertificate {
  const want = normalizeThumbprint(thumbprint);
  const all = listCertificates(workspace);
  const found = all.find((c) => c.thumbprint === want);
  if (!found) {
    const known = all.map((c) => `${c.thumbprint} (${c.subject})`).join('; ') || `none: add PEM files to ${certificatesDir(workspace)}`;
    throw new ScriptError(`no certificate with thumbprint ${want} (known: ${known})`, 'runtime');
  }
  return found;
}

/** node-forge (42 modules, 30 ms) loads when a certificate is used, not with the interpreter. */
function forgeLib(): typeof forge {
  return require('node-forge') as typeof forge;
}

function privateKeyOf(c: StoredCertificate): forge.pki.rsa.PrivateKey {
  const forge = forgeLib();
  if (!c.keyPem) throw new ScriptError(`certificate ${c.thumbprint} has no private key (put it in ${c.file} or a .key file beside it)`, 'runtime');
  // Node reads every PEM key form (PKCS#1, PKCS#8); forge gets PKCS#1.
  const pkcs1 = createPrivateKey(c.keyPem).export({ type: 'pkcs1', format: 'pem' }).toString();
  return forge.pki.privateKeyFromPem(pkcs1);
}

const binary = (b: Uint8Array) => Buffer.from(b).toString('binary');

/** CMS EnvelopedData (DER) of `data` for the certificate's public key. */
export function cmsEncrypt(data: Uint8Array, c: StoredCertificate): Buffer {
  const forge = forgeLib();
  const p7 = forge.pkcs7.createEnvelopedData();
  p7.addRecipient(forge.pki.certificateFromPem(c.certPem));
  p7.content = forge.util.createBuffer(binary(data));
  p7.encrypt(undefined, forge.pki.oids['aes256-CBC']);
  return Buffer.from(forge.asn1.toDer(p7.toAsn1()).getBytes(), 'binary');
}

/** Decrypts CMS EnvelopedData (DER) addressed to the certificate. */
export function cmsDecrypt(der: Uint8Array, c: StoredCertificate): Buffer {
  const forge = forgeLib();
  let p7: forge.pkcs7.PkcsEnvelopedData;
  try {
    p7 = forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(binary(der))) as forge.pkcs7.PkcsEnvelopedData;
  } catch (e) {
    throw new ScriptError(`not CMS enveloped data (${(e as Error).message})`, 'runtime');
  }
  const cert = forge.pki.certificateFromPem(c.certPem);
  const recipient = p7.findRecipient(cert);
  if (!recipient) throw new ScriptError(`the content is not encrypted for certificate ${c.thumbprint}`, 'runtime');
  p7.decrypt(recipient, privateKeyOf(c));
  return Buffer.from((p7.content as forge.util.ByteStringBuffer).getBytes(), 'binary');
}

/** CMS SignedData (DER) with the content attached, SHA-256, signed by the certificate's key. */
export function cmsSign(data: Uint8Array, c: StoredCertificate): Buffer {
  const forge = forgeLib();
  const p7 = forge.pkcs7.createSignedData();
  p7.content = forge.util.createBuffer(binary(data));
  const cert = forge.pki.certificateFromPem(c.certPem);
  p7.addCertificate(cert);
  p7.addSigner({
    key: privateKeyOf(c),
    certificate: cert,
    digestAlgorithm: forge.pki.oids.sha256,
    authenticatedAttributes: [
      { type: forge.pki.oids.contentType, value: forge.pki.oids.data },
      { type: forge.pki.oids.messageDigest },
      { type: forge.pki.oids.signingTime, value: new Date() as unknown as string },
    ],
  });
  p7.sign();
  return Buffer.from(forge.asn1.toDer(p7.toAsn1()).getBytes(), 'binary');
}
