import { X509Certificate } from 'node:crypto';
import { children, elementAt, oid, tlv, TAG, type Element } from './der';

/** Object identifiers of RFC 5652 (CMS) and the algorithms used with it, DER-encoded once. */
export const OID = {
  data: oid('1.2.840.113549.1.7.1'),
  signedData: oid('1.2.840.113549.1.7.2'),
  envelopedData: oid('1.2.840.113549.1.7.3'),
  rsaEncryption: oid('1.2.840.113549.1.1.1'),
  ecdsaWithSha256: oid('1.2.840.10045.4.3.2'),
  aes256Cbc: oid('2.16.840.1.101.3.4.1.42'),
  sha256: oid('2.16.840.1.101.3.4.2.1'),
  contentType: oid('1.2.840.113549.1.9.3'),
  messageDigest: oid('1.2.840.113549.1.9.4'),
  signingTime: oid('1.2.840.113549.1.9.5'),
};

/** Content ciphers we read (what openssl cms -encrypt offers in CBC mode), by their OID's DER in hex. */
export const CIPHERS: ReadonlyMap<string, string> = new Map([
  [OID.aes256Cbc.toString('hex'), 'aes-256-cbc'],
  [oid('2.16.840.1.101.3.4.1.22').toString('hex'), 'aes-192-cbc'],
  [oid('2.16.840.1.101.3.4.1.2').toString('hex'), 'aes-128-cbc'],
  [oid('1.2.840.113549.3.7').toString('hex'), 'des-ede3-cbc'],
]);

/** Digests of signed data, by their OID's DER in hex, as node:crypto names them. */
export const DIGESTS: ReadonlyMap<string, string> = new Map([
  [OID.sha256.toString('hex'), 'sha256'],
  [oid('2.16.840.1.101.3.4.2.2').toString('hex'), 'sha384'],
  [oid('2.16.840.1.101.3.4.2.3').toString('hex'), 'sha512'],
  [oid('1.3.14.3.2.26').toString('hex'), 'sha1'],
]);

/**
 * Signature algorithms whose check is node:crypto's `verify(digest, data, key, signature)`:
 * PKCS #1 v1.5 for RSA keys (named rsaEncryption or sha*WithRSAEncryption) and ECDSA.
 */
export const SIGNATURES: ReadonlySet<string> = new Set(
  [
    '1.2.840.113549.1.1.1',
    '1.2.840.113549.1.1.5',
    '1.2.840.113549.1.1.11',
    '1.2.840.113549.1.1.12',
    '1.2.840.113549.1.1.13',
    '1.2.840.10045.4.3.2',
    '1.2.840.10045.4.3.3',
    '1.2.840.10045.4.3.4',
  ].map((o) => oid(o).toString('hex')),
);

/** An AlgorithmIdentifier without parameters. */
export function algorithm(id: Buffer, parameters?: Buffer): Buffer {
  return parameters ? tlv(TAG.SEQUENCE, id, parameters) : tlv(TAG.SEQUENCE, id);
}

/** The first element of an AlgorithmIdentifier: its OID, in hex of its DER. */
export function algorithmOf(e: Element): string {
  return children(e.content)[0].der.toString('hex');
}

/**
 * IssuerAndSerialNumber of a certificate, from its own bytes (never re-encoded: a recipient or
 * signer is matched by comparing these bytes with what the message holds).
 */
export function issuerAndSerial(certDer: Buffer): Buffer {
  const tbs = children(elementAt(certDer).content)[0];
  const fields = children(tbs.content);
  const v = fields[0].tag === TAG.context(0) ? 1 : 0;
  return tlv(TAG.SEQUENCE, fields[v + 2].der, fields[v].der);
}

/** The DER of a PEM certificate. */
export function certificateDer(pem: string): Buffer {
  return new X509Certificate(pem).raw;
}
