import { existsSync, readFileSync } from 'node:fs';
import { pipelineFile } from '../cdc/state';
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
