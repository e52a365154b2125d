import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isScriptError } from '../errors';
import type { ChangeLogCounts } from './header';
import { EXTENSION, parseIdFileName } from './naming';
import { peekChangeLog } from './read';

/** One change log of a folder, as `sqlcdc changelog list` shows it and LOAD picks it. */
export interface ChangeLogEntry {
  path: string;
  fileName: string;
  /** The log's name: the stem of `<name>_<id>.eds`, else the header's, else the file name. */
  name: string;
  /** From the file name, else from the header; absent for an encrypted fixed-name log. */
  executionId?: string;
  size: number;
  encrypted: boolean;
  /** Known for logs that are not encrypted. */
  signed: boolean;
  pipeline?: string;
  createdAt?: string;
  counts?: ChangeLogCounts;
  /** Why the header could not be read (a damaged or foreign file): LOAD fails on such a log, a listing shows it. */
  error?: string;
}

/** Execution ids compare as numbers; logs without one sort last, by file name. */
function byExecutionId(a: ChangeLogEntry, b: ChangeLogEntry): number {
  if (a.executionId !== undefined && b.executionId !== undefined) {
    const d = BigInt(a.executionId) - BigInt(b.executionId);
    if (d !== 0n) return d < 0n ? -1 : 1;
  } else if (a.executionId !== undefined || b.executionId !== undefined) {
    return a.executionId === undefined ? 1 : -1;
  }
  return a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0;
}

function entry(folder: string, fileName: string): ChangeLogEntry {
  const path = join(folder, fileName);
  const fromName = parseIdFileName(fileName);
  const e: ChangeLogEntry = {
    path,
    fileName,
    name: fromName?.stem ?? fileName,
    executionId: fromName?.executionId,
    size: statSync(path).size,
    encrypted: false,
    signed: false,
  };
  try {
    const summary = peekChangeLog(path);
    e.encrypted = summary.encrypted;
    e.signed = summary.signed;
    if (summary.header) {
      const h = summary.header;
      if (!fromName) e.name = h.name;
      e.executionId ??= h.executionId;
      e.pipeline = h.pipeline;
      e.createdAt = h.createdAt;
      e.counts = h.counts;
    }
  } catch (err) {
    if (!isScriptError(err)) throw err;
    e.error = err.message;
  }
  return e;
}

/**
 * The change logs (`*.eds`) of `folder`, oldest execution first; only those of `name` when given
 * (`<name>_<id>.eds`, or the fixed file `name` itself). Temp files of writes in progress never
 * end in `.eds`, so a log being written is not listed.
 */
export function listChangeLogs(folder: string, name?: string): ChangeLogEntry[] {
  if (!existsSync(folder)) return [];
  const files = readdirSync(folder, { withFileTypes: true })
    .filter(
      (d) =>
        d.isFile() &&
        d.name.endsWith(EXTENSION) &&
        (name === undefined || d.name === name || parseIdFileName(d.name)?.stem === name),
    )
    .map((d) => d.name);
  return files.map((f) => entry(folder, f)).sort(byExecutionId);
}

/** LOAD without a full file name: the first log of `name` whose execution id is above `watermark`. */
export function nextChangeLog(folder: string, name: string, watermark: string | undefined): ChangeLogEntry | undefined {
  const after = BigInt(watermark ?? '0');
  return listChangeLogs(folder, name).find(
    (e) => parseIdFileName(e.fileName) !== undefined && BigInt(e.executionId!) > after,
  );
}
