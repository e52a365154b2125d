import {
  constants,
  createCipheriv,
  createDecipheriv,
  publicEncrypt,
  randomBytes,
  X509Certificate,
  type Decipher,
} from 'node:crypto';
import type forge from 'node-forge';
import { ScriptError } from '../errors';
import { ByteSource, type ByteSink } from '../util/bytes';
import { privateKeyOf, type StoredCertificate } from './certificates';
import { algorithm, certificateDer, CIPHERS, issuerAndSerial, OID } from './cms-ids';
import {
  Asn1Error,
  children,
  close,
  elementAt,
  EOC,
  expect,
  openTag,
  readElement,
  readHeader,
  OctetStream,
  setOf,
  TAG,
  tagHeader,
  tlv,
  type Header,
} from './der';

/**
 * CMS EnvelopedData (RFC 5652 §6) in one pass: RSA key transport of a random AES-256 key to the
 * certificate's public key, the content encrypted with node:crypto in CBC mode and written as BER
 * pieces of indefinite length (the form of `openssl cms -encrypt -stream`). Reading takes either
 * that form or a single primitive run (openssl without -stream), a piece at a time.
 */

const PIECE = 1 << 20;

/** `certificate`'s RSA public key encrypts the content key: the only key transport CMS tools agree on. */
function recipientInfo(c: StoredCertificate, key: Buffer): Buffer {
  const x509 = new X509Certificate(c.certPem);
  if (x509.publicKey.asymmetricKeyType !== 'rsa') {
    throw new ScriptError(
      `certificate ${c.thumbprint} has a ${x509.publicKey.asymmetricKeyType} key; encryption needs an RSA certificate`,
      'runtime',
    );
  }
  const encryptedKey = publicEncrypt({ key: x509.publicKey, padding: constants.RSA_PKCS1_PADDING }, key);
  return tlv(
    TAG.SEQUENCE,
    tlv(TAG.INTEGER, Buffer.from([0])),
    issuerAndSerial(x509.raw),
    algorithm(OID.rsaEncryption, tlv(TAG.NULL)),
    tlv(TAG.OCTET_STRING, encryptedKey),
  );
}

/** A sink whose bytes reach `out` as the content of EnvelopedData for `recipient`. */
export function envelopeSink(recipient: StoredCertificate, out: ByteSink): ByteSink {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  out.write(
    Buffer.concat([
      openTag(TAG.SEQUENCE),
      OID.envelopedData,
      openTag(TAG.context(0)),
      openTag(TAG.SEQUENCE),
      tlv(TAG.INTEGER, Buffer.from([0])),
      setOf([recipientInfo(recipient, key)]),
      openTag(TAG.SEQUENCE),
      OID.data,
      algorithm(OID.aes256Cbc, tlv(TAG.OCTET_STRING, iv)),
      // encryptedContent [0] IMPLICIT OCTET STRING, constructed: the ciphertext in pieces.
      openTag(TAG.context(0)),
    ]),
  );
  const piece = (bytes: Buffer) => {
    if (bytes.length === 0) return;
    out.write(tagHeader(TAG.OCTET_STRING, bytes.length));
    out.write(bytes);
  };
  return {
    write: (bytes) => piece(cipher.update(bytes)),
    end: () => {
      piece(cipher.final());
      // Closes encryptedContent, EncryptedContentInfo, EnvelopedData, [0] and ContentInfo.
      out.write(Buffer.concat([EOC, EOC, EOC, EOC, EOC]));
      out.end();
    },
  };
}

/** node-forge (42 modules, 30 ms) loads when a key is used, not with the interpreter. */
function forgeLib(): typeof forge {
  return require('node-forge') as typeof forge;
}

/**
 * RSA PKCS #1 v1.5 decryption of the content key. node:crypto refuses this padding for private
 * decryption (CVE-2023-46809) with the OpenSSL Node 20 ships, and it is the padding CMS key
 * transport uses, so forge does it.
 */
function decryptKey(c: StoredCertificate, encryptedKey: Buffer): Buffer {
  const forge = forgeLib();
  // Node reads every PEM key form (PKCS#1, PKCS#8); forge gets PKCS#1.
  const pkcs1 = privateKeyOf(c).export({ type: 'pkcs1', format: 'pem' }).toString();
  const key = forge.pki.privateKeyFromPem(pkcs1);
  try {
    return Buffer.from(key.decrypt(encryptedKey.toString('binary')), 'binary');
  } catch {
    throw new ScriptError(
      `the content key does not decrypt with the private key of certificate ${c.thumbprint}`,
      'runtime',
    );
  }
}

/** The content key a recipient info holds for one of `candidates` (`who` names them in the error). */
function contentKey(recipients: Buffer, candidates: StoredCertificate[], who: string): Buffer {
  const ids = candidates.map((c) => issuerAndSerial(certificateDer(c.certPem)));
  for (const info of children(elementAt(recipients).content)) {
    const [, rid, , encryptedKey] = children(info.content);
    if (info.tag !== TAG.SEQUENCE || rid?.tag !== TAG.SEQUENCE || !encryptedKey) continue; // not key transport by issuer and serial
    const k = ids.findIndex((id) => id.equals(rid.der));
    if (k >= 0) return decryptKey(candidates[k], encryptedKey.content);
  }
  throw new ScriptError(`the content is not encrypted for ${who}`, 'runtime');
}

/** The plaintext of EnvelopedData whose ContentInfo header and type were read, as it is decrypted. */
class EnvelopeContent extends ByteSource {
  private decipher: Decipher | undefined;

  constructor(
    private readonly src: ByteSource,
    private readonly octets: OctetStream,
    decipher: Decipher,
    private readonly outer: Header[],
  ) {
    super();
    this.decipher = decipher;
  }

  protected next(): Buffer | null {
    const decipher = this.decipher;
    if (!decipher) return null;
    const piece = this.octets.next(PIECE);
    if (piece) return decipher.update(piece);
    this.decipher = undefined;
    let last: Buffer;
    try {
      last = decipher.final();
    } catch {
      throw new ScriptError('the encrypted content is damaged (its padding does not decrypt)', 'runtime');
    }
    const [contentInfo, explicit, envelope, encryptedContentInfo] = this.outer;
    close(this.src, encryptedContentInfo, 'EncryptedContentInfo');
    if (this.src.peek() === TAG.context(1)) readElement(this.src); // unprotectedAttrs: nothing of ours
    close(this.src, envelope, 'EnvelopedData');
    close(this.src, explicit, 'EnvelopedData');
    close(this.src, contentInfo, 'ContentInfo');
    return last;
  }
}

/**
 * Opens EnvelopedData after its ContentInfo header and content type: finds the recipient among
 * `candidates` (those with a private key; `who` names them in an error), and returns the plaintext
 * as a source.
 */
export function openEnvelope(
  src: ByteSource,
  contentInfo: Header,
  candidates: StoredCertificate[],
  who: string,
): ByteSource {
  const explicit = expect(src, TAG.context(0), 'ContentInfo');
  const envelope = expect(src, TAG.SEQUENCE, 'EnvelopedData');
  readElement(src); // version
  if (src.peek() === TAG.context(0)) readElement(src); // originatorInfo
  const recipients = readElement(src);
  const encryptedContentInfo = expect(src, TAG.SEQUENCE, 'EncryptedContentInfo');
  readElement(src); // content type
  const [algorithmId, iv] = children(elementAt(readElement(src)).content);
  const cipher = CIPHERS.get(algorithmId.der.toString('hex'));
  if (!cipher) throw new Asn1Error(`an unsupported content cipher (${algorithmId.der.toString('hex')})`);
  const content = readHeader(src);
  if ((content.tag & 0x1f) !== 0 || (content.tag & 0xc0) !== 0x80)
    throw new Asn1Error('EnvelopedData without its encrypted content');
  const key = contentKey(recipients, candidates, who);
  const decipher = createDecipheriv(cipher, key, iv.content);
  return new EnvelopeContent(src, new OctetStream(src, content), decipher, [
    contentInfo,
    explicit,
    envelope,
    encryptedContentInfo,
  ]);
}
