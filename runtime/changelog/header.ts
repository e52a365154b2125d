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
