import { existsSync, readFileSync } from 'node:fs';
import { pipelineFile } from '../cdc/state';
import { converterTo, inferType } from '../dataset/convert';
import { formatValue } from '../dataset/format-value';
import { parseTypeName, typeName } from '../dataset/type-names';
import type { Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { applyCommit, commitWrite, type CommitWrite } from './commit';

/**
 * LOAD's high watermark: the execution id of the last change log a pipeline loaded by name, kept in
 * the workspace per (pipeline, change log name) and moved only when the whole run succeeded, so a log
 * whose push failed is loaded again next time. The file's first line is that id; a second line
 * `run <id>` names the run that wrote it (files of older versions have none).
 */
export function readWatermark(workspace: string, pipeline: string, name: string): string | undefined {
  const file = pipelineFile(workspace, pipeline, name, '.watermark');
  if (!existsSync(file)) return undefined;
  const id = readFileSync(file, 'utf8').split('\n', 1)[0].trim();
  if (!/^\d+$/.test(id)) throw new ScriptError(`${file} does not hold an execution id`, 'runtime');
  return id;
}

/** The write that moves LOAD's watermark to `executionId`, by run `run`. */
export function watermarkWrite(
  workspace: string,
  pipeline: string,
  name: string,
  executionId: string,
  run: string,
): CommitWrite {
  return commitWrite(workspace, pipelineFile(workspace, pipeline, name, '.watermark'), `${executionId}\nrun ${run}\n`);
}

export function writeWatermark(
  workspace: string,
  pipeline: string,
  name: string,
  executionId: string,
  run: string,
): void {
  applyCommit(workspace, [watermarkWrite(workspace, pipeline, name, executionId, run)]);
}

/**
 * The run that wrote watermark file `path` (LOAD's or the high watermark): undefined when there is no
 * file, or one of an older version, which does not say.
 */
export function watermarkRun(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.json')) {
    try {
      const run = (JSON.parse(text) as { run?: unknown } | null)?.run;
      return typeof run === 'string' && /^\d+$/.test(run) ? run : undefined;
    } catch {
      return undefined;
    }
  }
  return /^run (\d+)$/m.exec(text)?.[1];
}

/**
 * A pipeline's `@highwatermark` (reference A: "the job keeps the new value after a successful run,
 * computed with #data.calc_hwm*"), per pipeline name, so per job: `<workspace>/cdc/<pipeline>/
 * highwatermark.json`, `{"type": "datetime", "value": "2024-05-01T10:00:00", "run": "<id>"}`. The type is
 * kept so the value comes back as it was computed: a date compares as a date, a number as a number;
 * `run` names the run that wrote it (files of older versions have none).
 */
function highWatermarkFile(workspace: string, pipeline: string): string {
  return pipelineFile(workspace, pipeline, 'highwatermark', '.json');
}

type StoredJson = { type?: unknown; value?: unknown };

/** The high watermark of `pipeline` as stored: its type name and text; undefined when none was stored yet. */
export function storedHighWatermark(workspace: string, pipeline: string): { type: string; value: string } | undefined {
  const file = highWatermarkFile(workspace, pipeline);
  if (!existsSync(file)) return undefined;
  let stored: StoredJson | null = null;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as StoredJson | null;
  } catch {
    // Reported below with the file's name, as a file of the wrong shape is.
  }
  if (typeof stored?.type !== 'string' || typeof stored.value !== 'string')
    throw new ScriptError(`${file} does not hold a high watermark {"type": …, "value": …}`, 'runtime');
  return { type: stored.type, value: stored.value };
}

/** The stored high watermark of `pipeline`, typed as it was computed; null when none was stored yet. */
export function readHighWatermark(workspace: string, pipeline: string): Value {
  const stored = storedHighWatermark(workspace, pipeline);
  if (!stored) return null;
  try {
    return converterTo(parseTypeName(stored.type))(stored.value);
  } catch (e) {
    throw new ScriptError(
      `${highWatermarkFile(workspace, pipeline)} does not hold a high watermark: ${(e as Error).message}`,
      'runtime',
    );
  }
}

/** The write that stores `value` as the high watermark of `pipeline`, by run `run`. */
export function highWatermarkWrite(
  workspace: string,
  pipeline: string,
  value: Exclude<Value, null>,
  run: string,
): CommitWrite {
  const type = inferType([value]);
  const stored = { type: typeName(type), value: formatValue(value, type), run };
  return commitWrite(workspace, highWatermarkFile(workspace, pipeline), `${JSON.stringify(stored)}\n`);
}
