import { isUtf8 } from 'node:buffer';
import { Dataset } from '../dataset/dataset';

/** How the error of a plain rootpath that selects nothing names it (DocumentOptions.mustSelect). */
const ROOTPATH = { name: 'rootpath', within: 'the payload' };
import { documentToDataset, kindOfMediaType, sniffKind, type DocKind } from '../docpath/index';

/** A payload the call's parameters cannot turn into a dataset: answered 400. */
export class PayloadError extends Error {}

export interface PayloadOptions {
  /** The Content-Type header. */
  contentType?: string;
  /** rootpath: a JSON path or XPath; `$` (the default) is the document root. */
  rootPath?: string;
  /** form2json=1: the body is x-www-form-urlencoded whatever its Content-Type says. */
  form2json: boolean;
}

/** The column a payload that is neither JSON, XML nor a form becomes (one row). */
export const RAW_COLUMN = 'payload';
/** Beside a binary payload's bytes: the Content-Type it was sent with. */
export const CONTENT_TYPE_COLUMN = 'content_type';

const FORM = 'application/x-www-form-urlencoded';

/** What a Content-Type header says. */
interface Declared {
  header: string;
  /** `application/json` of `Application/JSON; charset=utf-8`. */
  mediaType: string;
  /** Lower case; undefined when the header names none. */
  charset: string | undefined;
  /** A document type the header declares (kindOfMediaType). */
  kind: DocKind | undefined;
  binary: boolean;
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

let lastDeclared: Declared | undefined;

/**
 * What the header says, remembered for the last header: calls to a listener mostly send one, and its
 * regular expressions were ~0.5% of a listener's event loop under load (perf).
 */
function declaredBy(contentType: string): Declared {
  if (lastDeclared?.header !== contentType) {
    const mediaType = contentType.split(';')[0].trim().toLowerCase();
    lastDeclared = {
      header: contentType,
      mediaType,
      charset: CHARSET.exec(contentType)?.[1].toLowerCase(),
      kind: kindOfMediaType(mediaType),
      binary: isBinaryMediaType(mediaType),
    };
  }
  return lastDeclared;
}

/**
 * The body as text: UTF-8, or the charset the Content-Type names (`text/xml; charset=windows-1252`,
 * as .NET and older systems send). Decoded as UTF-8, such a body's accented letters would be
 * replaced, silently, in the change log. Undefined when the bytes are not text in that charset.
 */
function decodeBody(body: Buffer, charset: string | undefined): string | undefined {
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8')
    return isUtf8(body) ? body.toString('utf8') : undefined;
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    throw new PayloadError(`the Content-Type names the charset '${charset}', which is not one sqlcdc can read`);
  }
  // Node 20's windows-1252 decoder (also latin1's and us-ascii's, as WHATWG labels them) reads 0x80–0x9F as C1 controls.
  if (decoder.encoding === 'windows-1252')
    return body.toString('latin1').replace(/[\x80-\x9f]/g, (c) => CP1252_C1[c.charCodeAt(0) - 0x80]);
  try {
    return decoder.decode(body);
  } catch {
    return undefined;
  }
}

/**
 * Media types whose bodies are bytes, not text: kept as they came (binaryRow) unless an octet
 * stream turns out to be a JSON or XML document.
 */
function isBinaryMediaType(mediaType: string): boolean {
  // image/svg+xml is a document, and so is any type kindOfMediaType knows.
  if (kindOfMediaType(mediaType)) return false;
  return (
    BINARY_TYPES.has(mediaType) ||
    BINARY_FAMILIES.some((family) => mediaType.startsWith(family)) ||
    mediaType.endsWith('+zip') ||
    mediaType.endsWith('+gzip')
  );
}

const OCTETS = 'application/octet-stream';
const BINARY_TYPES = new Set([
  OCTETS,
  'application/pdf',
  'application/zip',
  'application/gzip',
  'application/x-gzip',
  'application/x-tar',
  'application/protobuf',
  'application/x-protobuf',
  'application/vnd.google.protobuf',
  'application/msgpack',
  'application/x-msgpack',
  'application/cbor',
  'application/vnd.apache.avro',
  'application/vnd.apache.parquet',
]);
const BINARY_FAMILIES = ['image/', 'audio/', 'video/', 'font/'];

/**
 * A binary payload as one row: its bytes (a `bytes` column, so `{{base64:payload}}` or
 * `{{hex:payload}}` sends them on unchanged) and the Content-Type it came with.
 */
function binaryRow(body: Buffer, contentType: string | undefined): Dataset {
  return Dataset.fromRows(
    [
      { name: RAW_COLUMN, type: { base: 'bytes' } },
      { name: CONTENT_TYPE_COLUMN, type: { base: 'string' } },
    ],
    [[new Uint8Array(body), contentType ?? null]],
  );
}

/** What windows-1252 puts at 0x80–0x9F (the five bytes it leaves undefined stay as they are, as WHATWG says). */
const CP1252_C1 = '€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ';

/**
 * A form as a JSON object (spec §4.1 form2json): each field a property; a field given several times
 * becomes an array of its values, in order.
 */
export function formToJson(text: string): Record<string, string | string[]> {
  // Without a prototype, fields named toString, constructor or __proto__ are fields, not Object's members.
  const out = Object.create(null) as Record<string, string | string[]>;
  for (const [k, v] of new URLSearchParams(text)) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}

/** A JSON object or array, whole: a form-typed body that is one was not meant as a form. */
function isJsonDocument(text: string): boolean {
  if (sniffKind(text) !== 'json') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function kindOf({ mediaType, kind }: Declared, text: string): DocKind | 'form' | 'raw' {
  // `curl -d '{"id": 1}'` declares a form; read as one it would be a field named by the whole document.
  if (mediaType === FORM) return isJsonDocument(text) ? 'json' : 'form';
  // A declared JSON or XML type is trusted (a malformed body is then a 400); no type or a generic one is sniffed.
  if (kind) return kind;
  if (mediaType === '' || mediaType === OCTETS || mediaType === 'text/plain') return sniffKind(text) ?? 'raw';
  return 'raw';
}

/**
 * A webhook payload as the dataset the job's pipeline starts with (spec §4.1): JSON and XML through
 * the document paths of APPLY TX (`rootpath` selects the rows), a form converted to JSON, anything
 * else one row with the text in a `payload` column. An empty body (a GET) is an empty dataset.
 */
export function payloadToDataset(body: Buffer, options: PayloadOptions): Dataset {
  const declared = declaredBy(options.contentType ?? '');
  const mediaType = declared.mediaType;
  const decoded = decodeBody(body, declared.charset);
  const binary = !options.form2json && declared.binary;
  // An octet stream holding a JSON or XML document is read as one, as a body without a type is.
  if (decoded === undefined || (binary && body.length > 0 && !(mediaType === OCTETS && sniffKind(decoded)))) {
    const kind = options.form2json ? 'form' : kindOf(declared, '');
    if (!binary && kind !== 'raw')
      throw new PayloadError(`it is not valid ${charsetOf(options.contentType)}, as a ${kind} payload must be`);
    if (options.rootPath !== undefined && options.rootPath !== '$')
      throw new PayloadError(`rootpath applies to JSON, XML or form payloads, not to ${mediaType || 'binary'} data`);
    return binaryRow(body, options.contentType);
  }
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  const kind = options.form2json ? 'form' : kindOf(declared, text);
  if (text.trim() === '') {
    if (options.rootPath !== undefined && options.rootPath !== '$')
      throw new PayloadError('rootpath was given but the call has no payload');
    return Dataset.empty();
  }
  try {
    if (kind === 'raw') {
      if (options.rootPath !== undefined && options.rootPath !== '$')
        throw new PayloadError(`rootpath applies to JSON, XML or form payloads, not to ${mediaType || 'text'}`);
      return Dataset.fromRows([{ name: RAW_COLUMN, type: { base: 'string' } }], [[text]]);
    }
    // No `source`: the answer says `bad payload: invalid JSON at …` already, not `the payload: …` after it.
    const read = { mustSelect: options.rootPath !== undefined ? ROOTPATH : undefined };
    if (kind === 'form') return documentToDataset(formToJson(text), 'json', options.rootPath ?? '$', read);
    return documentToDataset(text, kind, options.rootPath ?? '$', read);
  } catch (e) {
    if (e instanceof PayloadError) throw e;
    // Arrays and objects thousands of levels deep overflow the stack of a parser or of the typing.
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new PayloadError(
        'the document is nested too deeply (arrays or objects inside one another thousands of levels down)',
      );
    throw new PayloadError(e instanceof Error ? e.message : String(e));
  }
}

/** The charset a Content-Type names, for a message: UTF-8 when it names none. */
function charsetOf(contentType: string | undefined): string {
  return CHARSET.exec(contentType ?? '')?.[1] ?? 'UTF-8';
}
