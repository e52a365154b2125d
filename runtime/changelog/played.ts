import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pipelineFile } from '../cdc/state';
import { writeFileAtomic } from '../workspace/files';

/**
 * The logs above LOAD's watermark that were played out of LOAD's order: a webhook call's writer
 * plays its own log, and `changelog replay` a kept one, in the folder LOAD reads. LOAD skips them,
 * so a direct job's next run does not push them again, and moves its watermark past them. Kept per
 * (pipeline, change log name) beside the watermark, one execution id a line, appended (calls finish
 * in any order and at once); the ids at or below the watermark are dropped when it moves.
 *
 * At least once, not exactly once: a line lost to a power cut, or to a prune meeting an append from
 * another process, lets LOAD play that log once more, as it would have without this file.
 */
function playedFile(workspace: string, pipeline: string, name: string): string {
  return pipelineFile(workspace, pipeline, name, '.played');
}

export function recordPlayed(workspace: string, pipeline: string, name: string, executionId: string): void {
  const file = playedFile(workspace, pipeline, name);
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${executionId}\n`);
}

/** The execution ids recorded as played; lines that are not ids (one torn by a crash) are left out. */
export function readPlayed(workspace: string, pipeline: string, name: string): Set<string> {
  const file = playedFile(workspace, pipeline, name);
  if (!existsSync(file)) return new Set();
  return new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^\d+$/.test(line)),
  );
}

/** Drops the ids at or below `watermark`, which LOAD no longer looks at. */
export function prunePlayed(workspace: string, pipeline: string, name: string, watermark: string): void {
  const played = readPlayed(workspace, pipeline, name);
  if (played.size === 0) return;
  const above = [...played].filter((id) => BigInt(id) > BigInt(watermark));
  if (above.length === played.size) return;
  writeFileAtomic(playedFile(workspace, pipeline, name), above.map((id) => `${id}\n`).join(''));
}
