import { ScriptError } from '../errors';
import type { ByteSink, ByteSource } from '../util/bytes';
import { listCertificates, type StoredCertificate } from '../workspace/certificates';
import { readContentInfo } from '../workspace/cms';
import { envelopeSink, openEnvelope } from '../workspace/cms-envelope';
import { SignedContent, signedSink, type Signer } from '../workspace/cms-signed';
import { MAGIC } from './layout';

/**
 * ENCRYPT_CERT and SIGN_CERT: a change log's bytes inside CMS. Signed first, then encrypted, as
 * S/MIME does, so that an encrypted log does not show who signed it and `openssl cms -decrypt`
 * followed by `openssl cms -verify` takes it apart. A reader unwraps whatever CMS layers the file
 * has, in any order, down to the change log's magic bytes.
 */

export interface Protection {
  encryptFor?: StoredCertificate;
  signWith?: StoredCertificate;
}

/** The sink the change log's bytes are written to, wrapped for `protection`, over `out`. */
export function protect(out: ByteSink, protection: Protection): ByteSink {
  const outer = protection.encryptFor ? envelopeSink(protection.encryptFor, out) : out;
  return protection.signWith ? signedSink(protection.signWith, outer) : outer;
}

export interface Layers {
  /** The change log's own bytes, from its magic on. */
  content: ByteSource;
  /** Every source from the file inwards: each must end when the one inside it has. */
  sources: ByteSource[];
  encrypted: boolean;
  signed: SignedContent[];
}

export interface UnwrapOptions {
  /** The workspace whose certificate store decrypts (private keys) and vouches for signers. */
  workspace?: string;
  /** Stop at an envelope instead of decrypting it (listing a folder). */
  decrypt?: boolean;
}

/** A file's layers down to the change log; undefined when it is encrypted and `decrypt` is false. */
export function unwrap(file: ByteSource, options: UnwrapOptions): Layers | undefined {
  const layers: Layers = { content: file, sources: [file], encrypted: false, signed: [] };
  while (layers.content.peek() === 0x30) {
    const src = layers.content;
    const info = readContentInfo(src);
    if (info.type === 'enveloped') {
      if (options.decrypt === false) return undefined;
      layers.content = openEnvelope(
        src,
        info.header,
        keyHolders(options.workspace),
        'any certificate of the workspace store that has its private key',
      );
      layers.encrypted = true;
    } else if (info.type === 'signed') {
      const signed = new SignedContent(src, info.header);
      layers.content = signed;
      layers.signed.push(signed);
    } else {
      throw new ScriptError('CMS content that is neither enveloped nor signed data', 'runtime');
    }
    layers.sources.push(layers.content);
  }
  const magic = layers.content.peek() === MAGIC[0] ? layers.content.read(MAGIC.length) : undefined;
  if (!magic?.equals(MAGIC)) throw new ScriptError('not a change log (no sqlcdc change log magic bytes)', 'runtime');
  return layers;
}

function keyHolders(workspace: string | undefined): StoredCertificate[] {
  if (workspace === undefined)
    throw new ScriptError('the change log is encrypted: reading it needs the workspace certificate store', 'runtime');
  const holders = listCertificates(workspace).filter((c) => c.keyPem);
  if (holders.length === 0)
    throw new ScriptError(
      'the change log is encrypted, and no certificate of the workspace store has a private key',
      'runtime',
    );
  return holders;
}

/** CHECK_SIGNATURE of a log nobody signed: fails before anything is read. */
export function requireSignature(layers: Layers): void {
  if (layers.signed.length === 0) throw new ScriptError('the change log is not signed', 'runtime');
}

/**
 * CHECK_SIGNATURE, once every byte has been read: each signed layer verifies and its signer is
 * a certificate of the workspace store. A log with no signature fails: asking for a check of a
 * log nobody signed must not pass silently.
 */
export function verifySigners(layers: Layers, workspace: string | undefined): Signer[] {
  requireSignature(layers);
  const trusted = workspace === undefined ? [] : listCertificates(workspace);
  return layers.signed.map((s) => s.verify(trusted));
}
