import { join } from 'node:path';
import Decimal from 'decimal.js';
import { captureChanges, commitState, type CaptureDiff } from '../../runtime/cdc/diff';
import { captureOptions, type CaptureClauses, type CaptureOptions } from '../../runtime/cdc/options';
import { stateFile } from '../../runtime/cdc/state';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Column, ColumnType, Value } from '../../runtime/dataset/types';
import type { Text } from '../../runtime/script/ast';
import { tempDir } from '../helpers/temp';

const at = { line: 1, column: 1, offset: 0 };
const text = (value: string): Text => ({ value, form: 'quoted', pos: at });

/** A state file path in a new workspace: `<tmp>/ws/cdc/<pipeline>/<log>.state`. */
export function tempStateFile(pipeline = 'pipeline', log = 'orders.eds'): string {
  return stateFile(join(tempDir('cdc'), 'ws'), pipeline, log);
}

/** CAPTURE's clauses as written: `keys`/`observe`/`marker` are the quoted texts. */
export function options(
  clauses: Partial<Omit<CaptureClauses, 'keys' | 'observe' | 'cdcMarker'>> & {
    keys?: string;
    observe?: string;
    marker?: string;
  } = {},
): CaptureOptions {
  const { keys, observe, marker, ...flags } = clauses;
  return captureOptions({
    pos: at,
    inserts: false,
    updates: false,
    deletes: false,
    initOnFirstRun: false,
    ignoreDups: false,
    ...flags,
    ...(keys === undefined ? {} : { keys: text(keys) }),
    ...(observe === undefined ? {} : { observe: text(observe) }),
    ...(marker === undefined ? {} : { cdcMarker: text(marker) }),
  });
}

export function columns(spec: Record<string, ColumnType['base'] | ColumnType>): Column[] {
  return Object.entries(spec).map(([name, t]) => ({ name, type: typeof t === 'string' ? { base: t } : t }));
}

export function dataset(cols: Column[], rows: Value[][]): Dataset {
  return Dataset.fromRows(cols, rows);
}

/** A cell in a form deepStrictEqual compares by value: decimals as `d:<value>`, dates as ISO text, bytes as hex. */
export function plain(v: Value): unknown {
  if (v instanceof Decimal) return `d:${v.toString()}`;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  return v;
}

export function rowsOf(ds: Dataset): unknown[][] {
  return ds.rows().map((row) => row.map(plain));
}

export interface Captured {
  diff: CaptureDiff;
  upserts: unknown[][];
  deletes: unknown[][];
}

/** One run of CAPTURE's change detection: the diff, then the state committed as CAPTURE does after the change log. */
export async function capture(input: Dataset, opts: CaptureOptions, file: string, commit = true): Promise<Captured> {
  const diff = await captureChanges(input, opts, file, new AbortController().signal);
  if (commit) await commitState(file, diff);
  return { diff, upserts: rowsOf(diff.upserts), deletes: rowsOf(diff.deletes) };
}
