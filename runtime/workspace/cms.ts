import { ScriptError } from '../errors';
import { BufferSink, BufferSource, EndOfData, type ByteSource } from '../util/bytes';
import type { StoredCertificate } from './certificates';
import { envelopeSink, openEnvelope } from './cms-envelope';
import { OID } from './cms-ids';
import { signedSink } from './cms-signed';
import { Asn1Error, expect, readElement, TAG, type Header } from './der';

/**
 * CMS as the workspace uses it (reference.md C.5): EnvelopedData to encrypt for a certificate,
 * SignedData to sign with one. The streaming forms (cms-envelope.ts, cms-signed.ts) wrap change
 * logs of any size; the whole-buffer forms here serve #encrypt and #decrypt. Both are BER that
 * `openssl cms -inform DER` reads, and both read what openssl writes.
 */

export type ContentType = 'enveloped' | 'signed' | 'other';

/** Reads a ContentInfo's header and content type; the caller opens what follows. */
export function readContentInfo(src: ByteSource): { header: Header; type: ContentType } {
  const header = expect(src, TAG.SEQUENCE, 'ContentInfo');
  const type = readElement(src);
  return {
    header,
    type: type.equals(OID.envelopedData) ? 'enveloped' : type.equals(OID.signedData) ? 'signed' : 'other',
  };
}

/** Whether an error comes from bytes that are not the CMS they claim to be (as opposed to a key or trust problem). */
export function isMalformed(e: unknown): e is Error {
  return e instanceof Asn1Error || e instanceof EndOfData;
}

function whole(data: Uint8Array, wrap: (out: BufferSink) => ReturnType<typeof envelopeSink>): Buffer {
  const out = new BufferSink();
  const sink = wrap(out);
  sink.write(data);
  sink.end();
  return out.bytes();
}

/** CMS EnvelopedData of `data` for the certificate's public key. */
export function cmsEncrypt(data: Uint8Array, c: StoredCertificate): Buffer {
  return whole(data, (out) => envelopeSink(c, out));
}

/** CMS SignedData with `data` attached, SHA-256, signed by the certificate's key. */
export function cmsSign(data: Uint8Array, c: StoredCertificate): Buffer {
  return whole(data, (out) => signedSink(c, out));
}

/** Decrypts CMS EnvelopedData addressed to the certificate. */
export function cmsDecrypt(der: Uint8Array, c: StoredCertificate): Buffer {
  try {
    const src = new BufferSource(Buffer.from(der));
    const info = readContentInfo(src);
    if (info.type !== 'enveloped') throw new Asn1Error('another content type');
    const clear = openEnvelope(src, info.header, [c], `certificate ${c.thumbprint}`).readAll();
    if (!src.atEnd()) throw new Asn1Error('bytes after the end');
    return clear;
  } catch (e) {
    if (isMalformed(e)) throw new ScriptError(`not CMS enveloped data (${e.message})`, 'runtime');
    throw e;
  }
}
