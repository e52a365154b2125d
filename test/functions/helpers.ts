import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Column, Value } from '../../runtime/dataset/types';
import type { RuntimeState } from '../../runtime/state';
import { evaluateText } from '../../runtime/functions/evaluate';

export function tempDir(prefix = 'sqlcdc-fn-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function newState(dataset: Dataset = Dataset.empty(), workspace = tempDir()): RuntimeState {
  return { workspace, cwd: workspace, dataset, statebag: new Map(), jsonSettings: new Map(), pipelineVariables: new Map() };
}

export function dataset(columns: [string, Column['type']['base']][], rows: Value[][]): Dataset {
  return Dataset.fromRows(columns.map(([name, base]) => ({ name, type: { base } })), rows);
}

/** Evaluates a text once with a fresh (or given) state. */
export function ev(text: string, state: RuntimeState = newState()): string {
  return evaluateText(text, state);
}
