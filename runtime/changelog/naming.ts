import { existsSync, readdirSync, statSync } from 'node:fs';
import { extname, join, parse } from 'node:path';
import { ScriptError } from '../errors';

/**
 * Change log file names (reference.md C.3, spec 2.2): a name with an extension (`orders.eds`) is
 * one fixed file, overwritten by every run; a name without (`orders`) gets a new file per run,
 * `orders_<execution id>.eds`; no name at all is the pipeline's. The execution id is the creation
 * time in Unix milliseconds, kept strictly increasing per name so that logs sort by it even when
 * two runs fall in one millisecond or the clock steps back.
 */

export const EXTENSION = '.eds';
/**
 * Names a log may try: each one taken (ChangeLogExists: another process, a second listener on the
 * workspace, numbering from the same clock) moves to the next execution id. Two processes meet on a
 * name once in a while; this many in a row would take a name taken at every millisecond it tried.
 */
export const NAME_ATTEMPTS = 100;

/** Characters no file name may hold on the systems logs are moved between (Windows is the strictest). */
// eslint-disable-next-line no-control-regex -- control characters are among what a file name may not hold
const FORBIDDEN = /[\u0000-\u001f<>:"/\\|?*]/;
const ID_FILE = /^(.+)_(\d+)\.eds$/;

export interface ChangeLogTarget {
  /** Folder + file name. */
  path: string;
  fileName: string;
  /** The log's name: the given name, or the pipeline's. */
  name: string;
  executionId: string;
  /** A fixed name is overwritten; an id-named file is created, never replaced. */
  fixed: boolean;
}

function checkName(name: string, what: string): void {
  if (name.trim() === '' || name === '.' || name === '..' || FORBIDDEN.test(name) || /[. ]$/.test(name)) {
    throw new ScriptError(
      `${what} '${name}' is not a file name (no path separators, no < > : " | ? *, not ending in a dot or space); the folder is given by PATH`,
      'runtime',
    );
  }
}

/** A pipeline's name as a file name stem: its last path part without extension, unsafe characters as `_`. */
export function pipelineStem(pipeline: string): string {
  const stem = parse(pipeline.replace(/\\/g, '/'))
    .name.replace(new RegExp(FORBIDDEN.source, 'g'), '_')
    .replace(/[. ]+$/, '');
  return stem === '' ? 'pipeline' : stem;
}

/** `<stem>_<id>.eds` split back, or undefined for any other file name. */
export function parseIdFileName(fileName: string): { stem: string; executionId: string } | undefined {
  const m = ID_FILE.exec(fileName);
  return m ? { stem: m[1], executionId: m[2] } : undefined;
}

/** The largest execution id among the `<stem>_<id>.eds` of `fileNames`, or 0. */
export function lastExecutionId(fileNames: Iterable<string>, stem: string): bigint {
  let last = 0n;
  for (const f of fileNames) {
    const parsed = parseIdFileName(f);
    if (parsed?.stem === stem && BigInt(parsed.executionId) > last) last = BigInt(parsed.executionId);
  }
  return last;
}

/** The largest execution id among the `<stem>_<id>.eds` files of `folder`, or 0. */
export function lastIdIn(folder: string, stem: string): bigint {
  if (!existsSync(folder)) return 0n;
  if (!statSync(folder).isDirectory()) throw new Error(`${folder} is a file, not a folder`);
  return lastExecutionId(readdirSync(folder), stem);
}

export interface TargetOptions {
  /** The clock, in Unix milliseconds. */
  now?: number;
  /** An id the new one must exceed (the CDC state's last, for a fixed name whose old file cannot be read). */
  after?: string;
}

/**
 * Where CAPTURE writes its log in `folder`, and the run's execution id: now, or one more than the
 * last id of that name (files in the folder, `after`) when now is not above it. A folder that is not
 * on the local file system (an FTP site) is `undefined`: the caller lists it and gives its last id as `after`.
 */
export function changeLogTarget(
  folder: string | undefined,
  name: string | undefined,
  pipeline: string,
  options: TargetOptions = {},
): ChangeLogTarget {
  if (name !== undefined) checkName(name, 'change log name');
  const fixed = name !== undefined && extname(name) !== '';
  const stem = name ?? pipelineStem(pipeline);
  const inFolder = fixed || folder === undefined ? 0n : lastIdIn(folder, stem);
  const floor = [inFolder, options.after === undefined ? 0n : BigInt(options.after)].reduce((a, b) => (a > b ? a : b));
  const now = BigInt(Math.trunc(options.now ?? Date.now()));
  const executionId = (now > floor ? now : floor + 1n).toString();
  const fileName = fixed ? stem : `${stem}_${executionId}${EXTENSION}`;
  return { path: folder === undefined ? fileName : join(folder, fileName), fileName, name: stem, executionId, fixed };
}
