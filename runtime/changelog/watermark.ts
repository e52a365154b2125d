import { existsSync, readFileSync } from 'node:fs';
import { pipelineFile } from '../cdc/state';
import { converterTo, inferType } from '../dataset/convert';
import { formatValue } from '../dataset/format-value';
import { parseTypeName, typeName } from '../dataset/type-names';
import type { Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { writeFileAtomic } from '../workspace/files';

/**
 * LOAD's high watermark: the execution id of the last change log a pipeline loaded by name, kept in
 * the workspace per (pipeline, change log name) and moved only when the whole run succeeded, so a log
 * whose push failed is loaded again next time.
 */
export function readWatermark(workspace: string, pipeline: string, name: string): string | undefined {
  const file = pipelineFile(workspace, pipeline, name, '.watermark');
  if (!existsSync(file)) return undefined;
  const id = readFileSync(file, 'utf8').trim();
  if (!/^\d+$/.test(id)) throw new ScriptError(`${file} does not hold an execution id`, 'runtime');
  return id;
}

export function writeWatermark(workspace: string, pipeline: string, name: string, executionId: string): void {
  writeFileAtomic(pipelineFile(workspace, pipeline, name, '.watermark'), `${executionId}\n`);
}

/**
 * A pipeline's `@highwatermark` (reference A: "the job keeps the new value after a successful run,
 * computed with #data.calc_hwm*"), per pipeline name, so per job: `<workspace>/cdc/<pipeline>/
 * highwatermark.json`, `{"type": "datetime", "value": "2024-05-01T10:00:00"}`. The type is kept so the
 * value comes back as it was computed: a date compares as a date, a number as a number.
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

/** Stores `value` as the high watermark of `pipeline` (temp file, flush, rename). */
export function writeHighWatermark(workspace: string, pipeline: string, value: Exclude<Value, null>): void {
  const type = inferType([value]);
  const stored = { type: typeName(type), value: formatValue(value, type) };
  writeFileAtomic(highWatermarkFile(workspace, pipeline), `${JSON.stringify(stored)}\n`);
}
