import type { Dataset } from '../../runtime/dataset/dataset';
import type { Value } from '../../runtime/dataset/types';
import type { Result } from '../../runtime/results';
import type { Session } from '../../runtime/session';

export { tempSession as sessionWith } from '../helpers/session';

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
  return ds.rows().map((r) => r.map(plainValue));
}

function plainValue(v: Value): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && !(v instanceof Date))
    return `${v.toString()}m`;
  return v;
}

/** "name:type" of each column. */
export function schema(ds: Dataset): string[] {
  return ds.columns.map((c) => `${c.name}:${c.type.base}`);
}
