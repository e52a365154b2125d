import { Dataset } from '../../runtime/dataset/dataset';
import type { Column, Value } from '../../runtime/dataset/types';
import type { Scope } from '../../runtime/scope';
import { Session } from '../../runtime/session';
import { evaluateText } from '../../runtime/functions/evaluate';
import { tempDir } from '../helpers/temp';

export { tempDir } from '../helpers/temp';

/** A scope over `dataset` on a new session in a temp workspace, as a statement of a cell would see it. */
export function newState(dataset: Dataset = Dataset.empty(), workspace = tempDir('fn')): Scope {
  return new Session({ workspace, cwd: workspace }).scope(dataset);
}

export function dataset(columns: [string, Column['type']['base']][], rows: Value[][]): Dataset {
  return Dataset.fromRows(
    columns.map(([name, base]) => ({ name, type: { base } })),
    rows,
  );
}

/** Evaluates a text once with a fresh (or given) state. */
export function ev(text: string, state: Scope = newState()): string {
  return evaluateText(text, state);
}
