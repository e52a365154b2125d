import assert from 'node:assert/strict';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Column, Value } from '../../runtime/dataset/types';
import { ScriptError } from '../../runtime/errors';
import type { Result } from '../../runtime/results';
import type { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';

/** A session in a temp folder whose pipeline starts as the given table. */
export function sessionWith(columns: Column[], rows: Value[][]): Session {
  const { session } = tempSession({}, 'transform');
  session.setDataset(Dataset.fromRows(columns, rows));
  return session;
}

export interface Outcome {
  dataset: Dataset;
  warnings: string[];
  messages: string[];
}

/** Runs a cell and returns the pipeline after it, with warnings and messages emitted. */
export async function run(session: Session, script: string): Promise<Outcome> {
  const results: Result[] = await session.run(script);
  return {
    dataset: session.dataset,
    warnings: results.filter((r): r is Extract<Result, { kind: 'warning' }> => r.kind === 'warning').map((r) => r.text),
    messages: results.filter((r): r is Extract<Result, { kind: 'message' }> => r.kind === 'message').map((r) => r.text),
  };
}

/** Runs a cell that must fail; returns its ScriptError and checks the pipeline did not change. */
export async function failure(session: Session, script: string): Promise<ScriptError> {
  const before = session.dataset;
  try {
    await session.run(script);
  } catch (e) {
    assert.ok(e instanceof ScriptError, `expected a ScriptError, got ${String(e)}`);
    assert.equal(session.dataset, before, 'a failing statement leaves the pipeline as it was');
    return e;
  }
  assert.fail(`the script should fail: ${script}`);
}

/** One column of the pipeline as an array. */
export function column(dataset: Dataset, name: string): Value[] {
  const i = dataset.require(name);
  return dataset.rows().map((r) => r[i]);
}

/** A small order table used by the transformation tests. */
export const orderColumns: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'price', type: { base: 'double' } },
  { name: 'qty', type: { base: 'int' } },
  { name: 'region', type: { base: 'string' } },
];

export function orders(): Value[][] {
  return [
    [1, 'Widget', 2.5, 4, 'east'],
    [2, 'Gadget, large', 10, 1, 'west'],
    [3, 'Gizmo "pro"', 7.25, 2, 'Europe'],
    [4, null, null, null, null],
  ];
}
