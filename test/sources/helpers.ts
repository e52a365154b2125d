import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Dataset } from '../../runtime/dataset/dataset';
import type { Value } from '../../runtime/dataset/types';
import type { Result } from '../../runtime/results';
import { Session } from '../../runtime/session';

/** A session whose working directory is a new temp folder holding `files` (path → content). */
export function sessionWith(files: Record<string, string | Buffer> = {}): { session: Session; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-sources-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return { session: new Session({ cwd: dir, workspace: join(dir, '.ws') }), dir };
}

/** Runs a cell and returns the pipeline dataset after it. */
export async function load(session: Session, text: string): Promise<Dataset> {
  await session.run(text);
  return session.dataset;
}

/** Runs a cell and returns every result (messages, warnings), throwing its error. */
export async function results(session: Session, text: string, signal?: AbortSignal): Promise<Result[]> {
  return session.run(text, { signal });
}

/** Cells as plain comparable values: bigint and Decimal as their text. */
export function plain(ds: Dataset): unknown[][] {
  return ds.rows.map((r) => r.map(plainValue));
}

function plainValue(v: Value): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && !(v instanceof Date)) return `${v.toString()}m`;
  return v;
}

/** "name:type" of each column. */
export function schema(ds: Dataset): string[] {
  return ds.columns.map((c) => `${c.name}:${c.type.base}`);
}
