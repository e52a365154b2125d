import { extname } from 'node:path';
import { parseIdFileName } from '../changelog/naming';
import { readPlayed } from '../changelog/played';
import { storePipelineFor } from '../changelog/store';
import { readWatermark } from '../changelog/watermark';
import { changeLogFolder, storeFolder, type FolderOnDrive } from '../drives/location';
import { ScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import type { Scope } from '../scope';
import type { Load } from '../script/ast';

/** Where LOAD reads: the folder of PATH (or FROM's connection), else the store of the pipeline that captured logs of that name (store.ts). */
export function loadFolder(stmt: Load, name: string, scope: Scope): FolderOnDrive {
  const { workspace } = scope.session;
  return stmt.path || stmt.connection
    ? changeLogFolder(locationOf(stmt), scope)
    : storeFolder(workspace, storePipelineFor(workspace, scope.run.pipeline, name));
}

/** A name with an extension names one log file; a bare name, the logs of that name in order. */
export function namesOneFile(name: string): boolean {
  return extname(name) !== '';
}

/** PATH [conn] 'folder'; FROM [conn] 'name' names the connection when PATH gives none. */
function locationOf(stmt: Load): Load['path'] {
  if (stmt.path)
    return stmt.path.connection || !stmt.connection ? stmt.path : { ...stmt.path, connection: stmt.connection };
  return stmt.connection
    ? { connection: stmt.connection, folder: { value: '', form: 'quoted', pos: stmt.name.pos } }
    : undefined;
}

/** Where a LOAD of a bare name stands in its folder (LOAD plays `waiting[0]` next). */
export interface LoadPosition {
  /** The stored watermark: the execution id of the last log it loaded; else INITIAL_ID's; else none. */
  watermark?: string;
  /** Whether `watermark` is stored (else it is INITIAL_ID, or none). */
  stored: boolean;
  /** The logs of the name above the watermark not played yet, oldest first. */
  waiting: { fileName: string; id: bigint }[];
  /** The newest log above the watermark a webhook call or a replay played already (played.ts); 0n for none. */
  lastPlayed: bigint;
}

/** The logs of `name` in `location` above the pipeline's watermark (INITIAL_ID before the first), as LOAD reads them. */
export async function loadPosition(
  name: string,
  location: FolderOnDrive,
  stmt: Load,
  scope: Scope,
): Promise<LoadPosition> {
  const { workspace } = scope.session;
  const stored = readWatermark(workspace, scope.run.pipeline, name);
  const watermark = stored ?? (stmt.initialId && initialId(stmt.initialId, scope));
  const after = BigInt(watermark || '0');
  // Logs a webhook call or a replay played already (played.ts): skipped, and passed by the watermark.
  const played = readPlayed(workspace, scope.run.pipeline, name);
  const waiting: LoadPosition['waiting'] = [];
  let lastPlayed = 0n;
  for (const entry of await location.drive.list(location.folder)) {
    const parsed = parseIdFileName(entry.name);
    if (parsed?.stem !== name) continue;
    const id = BigInt(parsed.executionId);
    if (id <= after) continue;
    if (played.has(parsed.executionId)) lastPlayed = id > lastPlayed ? id : lastPlayed;
    else waiting.push({ fileName: entry.name, id });
  }
  waiting.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { watermark: watermark || undefined, stored: stored !== undefined, waiting, lastPlayed };
}

function initialId(text: NonNullable<Load['initialId']>, scope: Scope): string {
  const id = evaluateText(text, scope).trim();
  if (!/^\d+$/.test(id))
    throw new ScriptError(
      `INITIAL_ID is an execution id (digits: Unix milliseconds), not '${id}'`,
      'runtime',
      text.pos,
    );
  return id;
}
