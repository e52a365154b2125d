import type { BaseType, Column } from '../dataset/types';
import { COMPRESSIONS, type Compression } from './compress';

/**
 * The header of a change log (docs/changelog.md): what the file holds, readable before its rows.
 * It is JSON in the file, so every field is plain data; `executionId` is a string because an id is
 * compared and shown, never computed with.
 */
export interface ChangeLogHeader {
  format: 'sqlcdc-changelog';
  version: 1;
  /** Creation time in Unix milliseconds, strictly increasing per log name (naming.ts). */
  executionId: string;
  /** The job or notebook whose CAPTURE wrote the log. */
  pipeline: string;
  /** The log's name as CAPTURE gave it (without `_<execution id>.eds`), or the pipeline's when none was. */
  name: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  /** Key columns of the capture (ON KEYS); empty when the whole dataset was captured. */
  keys: string[];
  /** Columns of both streams, with their exact types (decimal precision and scale, sizes). */
  schema: Column[];
  /** Upserts are inserts + updates rows, in that stream; deletes the delete stream's rows. */
  counts: ChangeLogCounts;
  /** CDCMARKER: the column holding I (inserted) or U (updated) in the upsert stream. */
  marker?: string;
  /** Rows per frame the writer used: what a reader's pages hold at most. */
  frameRows: number;
  /** How frames are compressed (compress.ts). */
  compression: Compression;
  /** Set when the file is CMS EnvelopedData for this certificate. */
  encryptedFor?: CertificateRef;
  /** Set when the file is CMS SignedData by this certificate. */
  signedBy?: CertificateRef;
}

export interface ChangeLogCounts {
  inserts: number;
  updates: number;
  deletes: number;
}

export interface CertificateRef {
  thumbprint: string;
  subject: string;
}

export const FORMAT = 'sqlcdc-changelog';
export const VERSION = 1;

const BASE_TYPES: ReadonlySet<BaseType> = new Set<BaseType>([
  'string',
  'char',
  'bool',
  'tinyint',
  'short',
  'int',
  'long',
  'decimal',
  'double',
  'float',
  'datetime',
  'guid',
  'bytes',
]);

const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
const isString = (s: unknown): s is string => typeof s === 'string';
const isCertificate = (c: unknown) =>
  c === undefined || (typeof c === 'object' && c !== null && isString((c as CertificateRef).thumbprint));

function isColumn(c: unknown): c is Column {
  if (typeof c !== 'object' || c === null) return false;
  const { name, type } = c as Column;
  if (!isString(name) || typeof type !== 'object' || type === null || !BASE_TYPES.has(type.base)) return false;
  const { size, precision, scale } = type;
  return (
    (size === undefined || size === 'max' || isCount(size)) &&
    (precision === undefined || isCount(precision)) &&
    (scale === undefined || isCount(scale))
  );
}

/**
 * The header parsed from the file, or why it is not one: a reader must refuse a file it would
 * misread (another format, a newer version, a damaged field) rather than guess.
 */
export function parseHeader(json: string): ChangeLogHeader | string {
  let h: Partial<ChangeLogHeader> & Record<string, unknown>;
  try {
    h = JSON.parse(json) as typeof h;
  } catch {
    return 'the header is not JSON';
  }
  if (typeof h !== 'object' || h === null || h.format !== FORMAT) return 'not a sqlcdc change log';
  if (h.version !== VERSION)
    return `format version ${String(h.version)} (this sqlcdc reads version ${VERSION}; a newer sqlcdc wrote it)`;
  const counts = h.counts;
  const ok =
    isString(h.executionId) &&
    /^\d+$/.test(h.executionId) &&
    isString(h.pipeline) &&
    isString(h.name) &&
    isString(h.createdAt) &&
    Array.isArray(h.keys) &&
    h.keys.every(isString) &&
    Array.isArray(h.schema) &&
    h.schema.every(isColumn) &&
    typeof counts === 'object' &&
    counts !== null &&
    isCount(counts.inserts) &&
    isCount(counts.updates) &&
    isCount(counts.deletes) &&
    (h.marker === undefined || isString(h.marker)) &&
    isCount(h.frameRows) &&
    h.frameRows > 0 &&
    isCertificate(h.encryptedFor) &&
    isCertificate(h.signedBy);
  if (!ok) return 'the header has missing or invalid fields';
  if (!COMPRESSIONS.includes(h.compression as string))
    return `frames compressed with ${String(h.compression)}, which this sqlcdc does not read`;
  return h as ChangeLogHeader;
}

/** Printable ASCII but `"` and `\`: a string of these is its own JSON text between quotes. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const text = (s: string): string => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));

function columnText(c: Column): string {
  const { base, size, precision, scale } = c.type;
  let t = `{"name":${text(c.name)},"type":{"base":"${base}"`;
  if (size !== undefined) t += `,"size":${typeof size === 'number' ? size : text(size)}`;
  if (precision !== undefined) t += `,"precision":${precision}`;
  if (scale !== undefined) t += `,"scale":${scale}`;
  t += '}';
  if (c.description !== undefined) t += `,"description":${text(c.description)}`;
  return `${t}}`;
}

let lastSchema: readonly Column[] | undefined;
let lastSchemaText = '';

/** The columns' JSON, remembered for the last schema array asked (write.ts gives logs of one schema the same array). */
function schemaText(schema: readonly Column[]): string {
  if (schema !== lastSchema) {
    let t = '';
    for (let i = 0; i < schema.length; i++) t += (i > 0 ? ',' : '') + columnText(schema[i]);
    lastSchema = schema;
    lastSchemaText = t;
  }
  return lastSchemaText;
}

/**
 * The header as the file holds it: JSON, written field by field. A listener writes a header per
 * call, and JSON.stringify took twice as long over its nesting (and a tenth of a small log's
 * encoding). `JSON.parse` of the text gives the header back (test/changelog/header-text.test.ts).
 */
export function headerText(h: ChangeLogHeader): string {
  let t = `{"format":"${h.format}","version":${h.version},"executionId":${text(h.executionId)},"pipeline":${text(h.pipeline)},"name":${text(h.name)},"createdAt":${text(h.createdAt)},"keys":[`;
  for (let i = 0; i < h.keys.length; i++) t += (i > 0 ? ',' : '') + text(h.keys[i]);
  t += `],"schema":[${schemaText(h.schema)}`;
  const { inserts, updates, deletes } = h.counts;
  t += `],"counts":{"inserts":${inserts},"updates":${updates},"deletes":${deletes}},"frameRows":${h.frameRows},"compression":${text(h.compression)}`;
  if (h.marker !== undefined) t += `,"marker":${text(h.marker)}`;
  if (h.encryptedFor) t += `,"encryptedFor":${JSON.stringify(h.encryptedFor)}`;
  if (h.signedBy) t += `,"signedBy":${JSON.stringify(h.signedBy)}`;
  return `${t}}`;
}
