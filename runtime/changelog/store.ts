import { existsSync, readdirSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { ScriptError } from '../errors';
import { isFolder } from '../workspace/location';
import { EXTENSION, parseIdFileName } from './naming';

/**
 * The workspace's change log store (reference C.4): where CAPTURE writes without PATH, one folder per
 * capturing pipeline, `<workspace>/changelogs/<pipeline>/`.
 */
export const STORE = 'changelogs';

export function storeDir(workspace: string, pipeline: string): string {
  return join(workspace, STORE, pipeline);
}

/**
 * The folder `changelog list WHAT` lists: the folder WHAT relative to `cwd`, else — WHAT being a plain
 * name with no such folder — the store folder of the pipeline or job of that name, as a webhook's or a
 * CAPTURE's logs are found without knowing where the workspace is. Otherwise the folder as given, for
 * the caller to report missing.
 */
export function listedFolder(what: string, cwd: string, workspace: string): string {
  const given = resolve(cwd, what);
  if (isFolder(given) || what.includes('/') || what.includes(sep) || what === '.' || what === '..') return given;
  const stored = storeDir(workspace, what);
  return isFolder(stored) ? stored : given;
}

/** The pipelines and jobs whose store folder in the workspace holds a change log, by name. */
export function storedPipelines(workspace: string): string[] {
  const root = join(workspace, STORE);
  if (!isFolder(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && readdirSync(join(root, d.name)).some((f) => f.endsWith(EXTENSION)))
    .map((d) => d.name)
    .sort();
}

/**
 * Whose store to read logs named `name` from, for a reader in `pipeline` without PATH (LOAD, %changelog
 * show): spec 4.2 rule 4 pairs `CAPTURE 'x'` with `LOAD UPDATES FROM 'x'`, and the reader is usually
 * another script than the capture. The reader's own folder when it holds such logs (or no folder does),
 * else the one other pipeline's folder that does; several are an error asking for PATH.
 */
export function storePipelineFor(workspace: string, pipeline: string, name: string): string {
  const root = join(workspace, STORE);
  if (!existsSync(root)) return pipeline;
  const holders = readdirSync(root, { withFileTypes: true })
    .filter(
      (d) =>
        d.isDirectory() && readdirSync(join(root, d.name)).some((f) => f === name || parseIdFileName(f)?.stem === name),
    )
    .map((d) => d.name);
  if (holders.length === 0 || holders.includes(pipeline)) return pipeline;
  if (holders.length > 1) {
    throw new ScriptError(
      `change logs named '${name}' are in the workspace store of pipelines ${holders.join(', ')}; say which with PATH '${join(root, holders[0])}'`,
      'runtime',
    );
  }
  return holders[0];
}
