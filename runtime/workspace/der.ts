import { EndOfData, type ByteSource } from '../util/bytes';

/**
 * The little ASN.1 that CMS needs, in BER (X.690): TLVs built from raw parts, read from a byte
 * stream or a buffer. Content of unknown length is written with indefinite lengths, as
 * `openssl cms -stream` does, so a change log is wrapped in one pass; everything small (names,
 * attributes, signer infos) is definite-length DER. Only low tag numbers (< 31) occur in CMS.
 */

export const TAG = {
  INTEGER: 0x02,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
  /** Constructed OCTET STRING: content in pieces (BER). */
  OCTET_STRING_PIECES: 0x24,
  /** [n] constructed, context-specific. */
  context: (n: number) => 0xa0 | n,
  /** [n] primitive, context-specific (IMPLICIT over a primitive type). */
  contextPrimitive: (n: number) => 0x80 | n,
} as const;

/** End-of-contents: closes an element of indefinite length. */
export const EOC = Buffer.from([0, 0]);

export class Asn1Error extends Error {}

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** A definite-length TLV around `parts`. */
export function tlv(tag: number, ...parts: Uint8Array[]): Buffer {
  const content = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.length), content]);
}

/** The start of a constructed element of indefinite length; close it with EOC. */
export function openTag(tag: number): Buffer {
  return Buffer.from([tag, 0x80]);
}

/** The identifier and length octets of a definite-length element of `length` content bytes. */
export function tagHeader(tag: number, length: number): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(length)]);
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out = [40 * arcs[0] + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) base128.unshift(0x80 | (v & 0x7f));
    out.push(...base128);
  }
  return tlv(TAG.OID, Buffer.from(out));
}

/** UTCTime through 2049, GeneralizedTime after, as RFC 5652's signingTime requires. */
export function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]|\.\d+/g, '');
  const year = d.getUTCFullYear();
  return year >= 1950 && year < 2050
    ? tlv(TAG.UTC_TIME, Buffer.from(iso.slice(2), 'ascii'))
    : tlv(TAG.GENERALIZED_TIME, Buffer.from(iso, 'ascii'));
}

/** A SET OF in DER order: elements sorted by their encodings. */
export function setOf(elements: Buffer[]): Buffer {
  return tlv(TAG.SET, ...[...elements].sort((a, b) => Buffer.compare(a, b)));
}

export interface Header {
  tag: number;
  /** Content length; -1 for indefinite. */
  length: number;
}

function readLength(first: number, more: (n: number) => Buffer): number {
  if (first < 0x80) return first;
  if (first === 0x80) return -1;
  const count = first & 0x7f;
  if (count > 6) throw new Asn1Error(`a length of ${count} bytes`);
  let n = 0;
  for (const b of more(count)) n = n * 256 + b;
  return n;
}

/** The next element's identifier and length. */
export function readHeader(src: ByteSource): Header {
  const tag = src.read(1)[0];
  if ((tag & 0x1f) === 0x1f) throw new Asn1Error(`an unsupported high tag number (identifier 0x${tag.toString(16)})`);
  return { tag, length: readLength(src.read(1)[0], (n) => src.read(n)) };
}

/** Reads the next header and checks its tag; `what` names the element in the error. */
export function expect(src: ByteSource, tag: number, what: string): Header {
  const h = readHeader(src);
  if (h.tag !== tag) throw new Asn1Error(`${what}: expected tag 0x${tag.toString(16)}, found 0x${h.tag.toString(16)}`);
  return h;
}

/** Consumes the end of an element opened by `h`: EOC when its length was indefinite, nothing otherwise. */
export function close(src: ByteSource, h: Header, what: string): void {
  if (h.length !== -1) return;
  const eoc = src.read(2);
  if (eoc[0] !== 0 || eoc[1] !== 0) throw new Asn1Error(`${what}: expected the end of contents`);
}

/** True when the next bytes close an indefinite-length element (without consuming them). */
function atEoc(src: ByteSource): boolean {
  return src.peek() === 0;
}

/** A whole small element (any lengths), re-encoded with definite lengths so that `children` can walk it. */
export function readElement(src: ByteSource): Buffer {
  return readRest(src, readHeader(src));
}

/** The element whose header `h` was just read, as `readElement` gives it. */
function readRest(src: ByteSource, h: Header): Buffer {
  if (h.length >= 0) return tlv(h.tag, src.read(h.length));
  const parts: Buffer[] = [];
  while (!atEoc(src)) parts.push(readElement(src));
  src.read(2);
  return tlv(h.tag, ...parts);
}

export interface Element {
  tag: number;
  /** The whole encoding. */
  der: Buffer;
  content: Buffer;
}

/** One definite-length element at `offset` of `buf`. */
export function elementAt(buf: Buffer, offset = 0): Element {
  if (offset + 2 > buf.length) throw new Asn1Error('an element runs past its container');
  const tag = buf[offset];
  let at = offset + 2;
  const length = readLength(buf[offset + 1], (n) => {
    const b = buf.subarray(at, at + n);
    at += n;
    if (b.length < n) throw new Asn1Error('a length runs past its container');
    return b;
  });
  if (length < 0) throw new Asn1Error('an indefinite length inside a DER element');
  const end = at + length;
  if (end > buf.length) throw new Asn1Error('an element runs past its container');
  return { tag, der: buf.subarray(offset, end), content: buf.subarray(at, end) };
}

/** The elements inside a constructed element's content. */
export function children(content: Buffer): Element[] {
  const out: Element[] = [];
  for (let at = 0; at < content.length;) {
    const e = elementAt(content, at);
    out.push(e);
    at += e.der.length;
  }
  return out;
}

/**
 * The octets of an OCTET STRING whose header `h` was read: primitive (one run of bytes) or
 * constructed (BER pieces, nested, definite or indefinite), handed out as they are read, so content
 * of any size passes through in bounded memory.
 */
export class OctetStream {
  /** Bytes left in the primitive piece being read. */
  private left = 0;
  /** Open constructed pieces: bytes left in each (-1: indefinite). */
  private readonly open: number[] = [];

  constructor(
    private readonly src: ByteSource,
    h: Header,
  ) {
    if (h.tag & 0x20) this.open.push(h.length);
    else this.left = h.length;
  }

  /** Up to `max` content bytes, or null after the last. */
  next(max: number): Buffer | null {
    while (this.left === 0) {
      const top = this.open.length - 1;
      if (top < 0) return null;
      if (this.open[top] === 0) this.open.pop();
      else if (this.open[top] === -1 && atEoc(this.src)) {
        this.take(2);
        this.open.pop();
      } else {
        const start = this.src.position;
        const h = readHeader(this.src);
        this.count(this.src.position - start);
        if (h.tag === TAG.OCTET_STRING_PIECES) this.open.push(h.length);
        else if (h.tag === TAG.OCTET_STRING) this.left = h.length;
        else throw new Asn1Error(`a piece of an OCTET STRING has tag 0x${h.tag.toString(16)}`);
      }
    }
    const piece = this.src.readSome(Math.min(max, this.left));
    if (piece === null) throw new EndOfData(this.left, 0);
    this.left -= piece.length;
    this.count(piece.length);
    return piece;
  }

  private take(n: number): void {
    this.src.read(n);
    this.count(n);
  }

  /** Bytes consumed count against every enclosing definite-length piece. */
  private count(n: number): void {
    for (let i = 0; i < this.open.length; i++) {
      if (this.open[i] < 0) continue;
      if (this.open[i] < n) throw new Asn1Error('a piece of an OCTET STRING runs past its container');
      this.open[i] -= n;
    }
  }
}
