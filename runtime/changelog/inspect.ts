import { Dataset } from '../dataset/dataset';
import { typeName } from '../dataset/type-names';
import type { Column, Value } from '../dataset/types';
import type { ChangeLogEntry } from './list';
import { ChangeLogReader, type ReadOptions, type StreamName } from './read';
import { counted } from '../util/words';

/**
 * What `sqlcdc changelog list|show` and the `%changelog` magic show of change logs: one
 * implementation, rendered by the CLI as text and by the magic as table results.
 */

const LIST_COLUMNS: Column[] = [
  { name: 'file', type: { base: 'string' } },
  { name: 'execution id', type: { base: 'long' } },
  { name: 'pipeline', type: { base: 'string' } },
  { name: 'inserts', type: { base: 'long' } },
  { name: 'updates', type: { base: 'long' } },
  { name: 'deletes', type: { base: 'long' } },
  { name: 'bytes', type: { base: 'long' } },
  { name: 'security', type: { base: 'string' } },
];

function listRow(e: ChangeLogEntry): Value[] {
  const big = (n: number | string | undefined) => (n === undefined ? null : BigInt(n));
  const security = e.error
    ? `unreadable: ${e.error}`
    : [e.encrypted ? 'encrypted' : '', e.signed ? 'signed' : ''].filter(Boolean).join(', ');
  return [
    e.fileName,
    big(e.executionId),
    e.pipeline ?? null,
    big(e.counts?.inserts),
    big(e.counts?.updates),
    big(e.counts?.deletes),
    BigInt(e.size),
    security,
  ];
}

/** A folder's change logs (listChangeLogs) as a table; an encrypted log shows no counts. */
export function changeLogTable(entries: readonly ChangeLogEntry[]): Dataset {
  return Dataset.fromRows(LIST_COLUMNS, entries.map(listRow));
}

/** One log as shown: its facts, and the first rows of each stream with the stream's row count. */
export interface ChangeLogView {
  /** `label   value` lines: file, execution id, pipeline, name, created at, keys, counts, security, schema. */
  facts: string[];
  streams: Record<StreamName, { rows: Dataset; total: number }>;
}

/**
 * Reads `file` whole (so damage or a failed signature check is found even when only a few rows are
 * shown) and keeps the first `rows` rows of each stream.
 */
export async function viewChangeLog(file: string, rows: number, options: ReadOptions = {}): Promise<ChangeLogView> {
  const reader = ChangeLogReader.open(file, options);
  const h = reader.header;
  const first: Record<StreamName, Value[][]> = { upserts: [], deletes: [] };
  for await (const page of reader.pages()) {
    const kept = first[page.stream];
    if (kept.length < rows) kept.push(...page.data.rows(0, Math.min(page.data.rowCount, rows - kept.length)));
  }
  const security = [
    reader.encrypted
      ? `encrypted${h.encryptedFor ? ` for ${h.encryptedFor.subject} (${h.encryptedFor.thumbprint})` : ''}`
      : 'not encrypted',
    reader.signed
      ? `signed${h.signedBy ? ` by ${h.signedBy.subject} (${h.signedBy.thumbprint})` : ''}${options.checkSignature ? ', signature checked' : ''}`
      : 'not signed',
  ];
  const facts = [
    `change log     ${file}`,
    `execution id   ${h.executionId} (${new Date(Number(h.executionId)).toISOString()})`,
    `pipeline       ${h.pipeline}`,
    `name           ${h.name}`,
    `created at     ${h.createdAt}`,
    `keys           ${h.keys.join(', ') || '(none: the whole dataset)'}`,
    ...(h.marker ? [`marker         ${h.marker}`] : []),
    `counts         ${counted(h.counts.inserts, 'insert')}, ${counted(h.counts.updates, 'update')}, ${counted(h.counts.deletes, 'delete')}`,
    `security       ${security.join(', ')}`,
    `schema         ${h.schema.map((c) => `${c.name} ${typeName(c.type)}`).join(', ')}`,
  ];
  return {
    facts,
    streams: {
      upserts: { rows: Dataset.fromRows(h.schema, first.upserts), total: h.counts.inserts + h.counts.updates },
      deletes: { rows: Dataset.fromRows(h.schema, first.deletes), total: h.counts.deletes },
    },
  };
}
