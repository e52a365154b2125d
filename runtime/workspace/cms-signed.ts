import { createHash, sign, verify, X509Certificate, type Hash } from 'node:crypto';
import { ScriptError } from '../errors';
import { ByteSource, type ByteSink } from '../util/bytes';
import { normalizeThumbprint, privateKeyOf, type StoredCertificate } from './certificates';
import { algorithm, algorithmOf, certificateDer, DIGESTS, issuerAndSerial, OID, SIGNATURES } from './cms-ids';
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
  setOf,
  TAG,
  tagHeader,
  time,
  tlv,
  OctetStream,
  type Element,
  type Header,
} from './der';

/**
 * CMS SignedData (RFC 5652 §5) with the content attached, in one pass: the content goes out in BER
 * pieces while its SHA-256 is computed, and the signer info (signed attributes: content type,
 * signing time, message digest) follows it, as `openssl cms -sign -stream` writes it. Reading
 * hashes the content as it passes and checks the signature once it has all gone by.
 */

const PIECE = 1 << 20;

function attribute(type: Buffer, value: Buffer): Buffer {
  return tlv(TAG.SEQUENCE, type, setOf([value]));
}

/** A sink whose bytes reach `out` as the content of SignedData, signed with `signer`'s private key. */
export function signedSink(signer: StoredCertificate, out: ByteSink, signingTime = new Date()): ByteSink {
  const key = privateKeyOf(signer, ' to sign with');
  const certDer = certificateDer(signer.certPem);
  const hash = createHash('sha256');
  out.write(
    Buffer.concat([
      openTag(TAG.SEQUENCE),
      OID.signedData,
      openTag(TAG.context(0)),
      openTag(TAG.SEQUENCE),
      tlv(TAG.INTEGER, Buffer.from([1])),
      setOf([algorithm(OID.sha256)]),
      openTag(TAG.SEQUENCE),
      OID.data,
      openTag(TAG.context(0)),
      openTag(TAG.OCTET_STRING_PIECES),
    ]),
  );
  return {
    write: (bytes) => {
      if (bytes.length === 0) return;
      hash.update(bytes);
      out.write(tagHeader(TAG.OCTET_STRING, bytes.length));
      out.write(bytes);
    },
    end: () => {
      const signedAttributes = setOf([
        attribute(OID.contentType, OID.data),
        attribute(OID.signingTime, time(signingTime)),
        attribute(OID.messageDigest, tlv(TAG.OCTET_STRING, hash.digest())),
      ]);
      // The signature covers the attributes' SET encoding; the signer info holds them tagged [0].
      const signature = sign('sha256', signedAttributes, key);
      const implicit = Buffer.from(signedAttributes);
      implicit[0] = TAG.context(0);
      const signatureAlgorithm =
        key.asymmetricKeyType === 'ec' ? algorithm(OID.ecdsaWithSha256) : algorithm(OID.rsaEncryption, tlv(TAG.NULL));
      const signerInfo = tlv(
        TAG.SEQUENCE,
        tlv(TAG.INTEGER, Buffer.from([1])),
        issuerAndSerial(certDer),
        algorithm(OID.sha256),
        implicit,
        signatureAlgorithm,
        tlv(TAG.OCTET_STRING, signature),
      );
      out.write(
        Buffer.concat([
          EOC, // the content's pieces
          EOC, // [0] eContent
          EOC, // EncapsulatedContentInfo
          tlv(TAG.context(0), certDer),
          setOf([signerInfo]),
          EOC, // SignedData
          EOC, // [0]
          EOC, // ContentInfo
        ]),
      );
      out.end();
    },
  };
}

/** Who signed, once the signature checked. */
export interface Signer {
  thumbprint: string;
  subject: string;
}

/** The content of SignedData whose ContentInfo header and type were read; `verify` once it has been read. */
export class SignedContent extends ByteSource {
  private readonly digests = new Map<string, Hash>();
  private octets: OctetStream | undefined;
  private certificates: Element[] = [];
  private signerInfos: Element[] | undefined;
  private readonly explicit: Header;
  private readonly signedData: Header;
  private readonly encapsulated: Header;
  private readonly eContent: Header;

  constructor(
    private readonly src: ByteSource,
    private readonly contentInfo: Header,
  ) {
    super();
    this.explicit = expect(src, TAG.context(0), 'ContentInfo');
    this.signedData = expect(src, TAG.SEQUENCE, 'SignedData');
    readElement(src); // version
    for (const alg of children(elementAt(readElement(src)).content)) {
      const name = DIGESTS.get(algorithmOf(alg));
      if (name) this.digests.set(name, createHash(name));
    }
    this.encapsulated = expect(src, TAG.SEQUENCE, 'EncapsulatedContentInfo');
    readElement(src); // content type
    if (src.peek() !== TAG.context(0))
      throw new ScriptError('the signed data holds no content (a detached signature)', 'runtime');
    this.eContent = readHeader(src);
    this.octets = new OctetStream(src, readHeader(src));
  }

  protected next(): Buffer | null {
    if (!this.octets) return null;
    const piece = this.octets.next(PIECE);
    if (piece) {
      for (const hash of this.digests.values()) hash.update(piece);
      return piece;
    }
    this.octets = undefined;
    this.readTrailer();
    return null;
  }

  private readTrailer(): void {
    const src = this.src;
    close(src, this.eContent, 'eContent');
    close(src, this.encapsulated, 'EncapsulatedContentInfo');
    if (src.peek() === TAG.context(0)) this.certificates = children(elementAt(readElement(src)).content);
    if (src.peek() === TAG.context(1)) readElement(src); // CRLs
    this.signerInfos = children(elementAt(readElement(src)).content);
    close(src, this.signedData, 'SignedData');
    close(src, this.explicit, 'SignedData');
    close(src, this.contentInfo, 'ContentInfo');
  }

  /**
   * Checks every signer: the content's digest is the one signed, the signature is made by the
   * certificate's key, and that certificate is one of `trusted` (the workspace store: a log
   * signed by anyone else proves nothing). Returns the first signer.
   */
  verify(trusted: StoredCertificate[]): Signer {
    if (!this.signerInfos) throw new Error('SignedContent.verify before the content was read');
    if (this.signerInfos.length === 0) throw new ScriptError('the signed data has no signer', 'runtime');
    const digests = new Map([...this.digests].map(([name, hash]) => [name, hash.digest()]));
    const signers = this.signerInfos.map((info) => this.verifySigner(info, digests, trusted));
    return signers[0];
  }

  private verifySigner(info: Element, digests: Map<string, Buffer>, trusted: StoredCertificate[]): Signer {
    const [, sid, digestAlgorithm, ...rest] = children(info.content);
    const attributes = rest[0]?.tag === TAG.context(0) ? rest.shift() : undefined;
    const [signatureAlgorithm, signature] = rest;
    if (sid.tag !== TAG.SEQUENCE)
      throw new ScriptError(
        'the signer is named by a key identifier; only issuer and serial number are supported',
        'runtime',
      );
    const certDer =
      this.certificates.find((c) => c.tag === TAG.SEQUENCE && issuerAndSerial(c.der).equals(sid.der))?.der ??
      trusted.map((t) => certificateDer(t.certPem)).find((der) => issuerAndSerial(der).equals(sid.der));
    if (!certDer)
      throw new ScriptError(
        "the signer's certificate is neither in the signed data nor in the workspace store",
        'runtime',
      );
    const cert = new X509Certificate(certDer);
    const digestName = DIGESTS.get(algorithmOf(digestAlgorithm));
    const digest = digestName && digests.get(digestName);
    if (!digestName || !digest)
      throw new ScriptError('the signer uses a digest algorithm the signed data does not declare', 'runtime');
    if (!SIGNATURES.has(algorithmOf(signatureAlgorithm)))
      throw new ScriptError('the signature algorithm is not supported (RSA PKCS #1 v1.5 or ECDSA)', 'runtime');
    if (!attributes)
      throw new ScriptError('the signature has no signed attributes (openssl cms -noattr): not supported', 'runtime');

    const signed = this.messageDigest(attributes);
    if (!signed.equals(digest))
      throw new ScriptError(
        'the content was changed after it was signed (its digest does not match the signed one)',
        'runtime',
      );
    const set = Buffer.from(attributes.der);
    set[0] = TAG.SET;
    if (!verify(digestName, set, cert.publicKey, signature.content))
      throw new ScriptError("the signature does not verify with the signer's certificate", 'runtime');

    const thumbprint = normalizeThumbprint(cert.fingerprint);
    const subject = cert.subject.replace(/\n/g, ', ');
    if (!trusted.some((t) => t.thumbprint === thumbprint)) {
      throw new ScriptError(
        `signed by ${subject} (thumbprint ${thumbprint}), which is not a certificate of the workspace store`,
        'runtime',
      );
    }
    return { thumbprint, subject };
  }

  private messageDigest(attributes: Element): Buffer {
    for (const attr of children(attributes.content)) {
      const [type, values] = children(attr.content);
      if (type.der.equals(OID.messageDigest)) return children(values.content)[0].content;
    }
    throw new Asn1Error('the signed attributes have no message digest');
  }
}
