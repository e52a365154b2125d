import { posix } from 'node:path';
import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import type { Drive } from '../drives';
import { underRoot } from '../drives/confine';
import { ScriptError, type Position } from '../errors';
import { compileTemplate } from '../functions/evaluate';
import { backoff, sleep } from '../http/retry';
import type { RetryPolicy } from '../script/ast';
import type { Scope } from '../scope';
import { atArgument } from '../at-argument';
import type { DriveOutput } from './drive-options';
import { contentColumn, writeContent } from './file-content';

/** One file to write: where, and its rows. */
interface Part {
  path: string;
  rows: Dataset;
}

/** What a write did, for the statement's message. */
export interface Written {
  files: string[];
  rows: number;
  retries: number;
}

/** Rows without a date go to this folder under DATE_FIELD. */
const UNDATED = 'undated';

/**
 * Writes a dataset as files on a drive (docs/drives.md): one file, one per day of DATE_FIELD, or one per
 * row (FILE_PER_ROW, the name evaluated per row), under CONTAINER. Each file is written to a staged
 * copy and published under its name in one step, so a reader sees the old file or the whole new one;
 * a failure leaves no partial file. WITH RETRY repeats a failed publish (an FTP upload) per its policy.
 */
export async function writeDriveFiles(
  rows: Dataset,
  name: (file: string) => string,
  drive: Drive,
  out: DriveOutput,
  scope: Scope & { signal: AbortSignal },
  retry: RetryPolicy | undefined,
  written: Written,
): Promise<void> {
  const column = contentColumn(rows, out);
  for (const part of parts(rows, name, out, scope, drive)) {
    try {
      await publishFile(part, drive, out, column, retry, scope.signal, written);
    } catch (e) {
      throw fileFailure(part.path, e);
    }
    written.files.push(part.path);
    written.rows += part.rows.rowCount;
  }
}

function* parts(
  rows: Dataset,
  name: (file: string) => string,
  out: DriveOutput,
  scope: Scope,
  drive: Drive,
): Generator<Part> {
  const reads = new Set<number>();
  const file = atArgument(out.file, () =>
    compileTemplate(out.file!).bind(scope, rows, { fxByRow: out.filePerRow, reads }),
  );
  // An empty dataset still makes its (empty) file: a FILE with {{field}} then sees nulls.
  const empty = rows.columns.map(() => null);
  const at = (folder: string, r: number) => {
    const row = r < rows.rowCount ? rows.row(r) : empty;
    for (const c of reads) confined(row[c], rows.columns[c].name, r, out.file!.pos);
    const path = name(file(row, r));
    if (path.trim() === '') throw new ScriptError('FILE evaluates to an empty name', 'runtime', out.file!.pos);
    if (path.includes('\0'))
      throw new ScriptError(`FILE '${path}' holds a NUL character, which no file name can`, 'runtime', out.file!.pos);
    const joined = posix.join(out.container ?? '', folder, path);
    // Before any file is written, and with the caret under FILE (the drive would refuse it later anyway).
    atArgument(out.file, () => drive.within(joined));
    // `/` or `sub/..`: the drive's root or the container itself, where a file's staged copy would go beside it.
    if (underRoot(joined) === '')
      throw new ScriptError(`FILE '${path}' names a folder, not a file`, 'runtime', out.file!.pos);
    return joined;
  };
  const day = out.dateField ? dayOf(rows, out.dateField.value, out.dateField.pos) : undefined;
  if (out.filePerRow) {
    // Every name first: two rows naming the same file would silently lose one, so nothing is written then.
    const paths = new Map<string, number>();
    for (let r = 0; r < rows.rowCount; r++) {
      const path = at(day?.(r) ?? '', r);
      const first = paths.get(path);
      if (first !== undefined)
        throw new ScriptError(
          `FILE_PER_ROW: rows ${first + 1} and ${r + 1} both name the file '${path}'; add a field that tells them apart to FILE`,
          'runtime',
          out.file!.pos,
        );
      paths.set(path, r);
    }
    for (const [path, r] of paths) yield { path, rows: rows.slice(r, r + 1) };
    return;
  }
  if (!day) {
    yield { path: at('', 0), rows };
    return;
  }
  const groups = new Map<string, number[]>();
  for (let r = 0; r < rows.rowCount; r++) {
    const d = day(r);
    const g = groups.get(d);
    if (g) g.push(r);
    else groups.set(d, [r]);
  }
  for (const folder of [...groups.keys()].sort()) {
    const indices = groups.get(folder)!;
    yield { path: at(folder, indices[0]), rows: rows.pick(indices) };
  }
}

/**
 * A file system's failure to write a file as the user's error: Node's message names the staged copy
 * (`EISDIR: illegal operation on a directory, rename '…/.f.tmp-…' -> '…/f'`), the user knows the file.
 */
function fileFailure(path: string, e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (e instanceof ScriptError || typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) return e;
  return new ScriptError(`cannot write ${path}: ${(e as Error).message.replace(/, \w+ '.*$/s, '')}`, 'runtime');
}

/**
 * Row data (a webhook's payload, an API's answer) in FILE may name files and subfolders, but never
 * lead out of the folder the script's text points to: a value whose `..` segments climb above where it
 * starts, or starting with a slash, is refused before any file is written.
 */
function confined(v: Value, column: string, r: number, pos: Position | undefined): void {
  if (typeof v === 'string' && (/^[\\/]/.test(v) || underRoot(v) === undefined))
    throw new ScriptError(
      `FILE: row ${r + 1}'s ${column} '${v}' would lead out of the folder (a '..' segment or a leading slash); a file name made of row data stays inside it`,
      'runtime',
      pos,
    );
}

/** DATE_FIELD: the `yyyy/MM/dd` folder of each row's date (UTC, as datetimes are written), or `undated`. */
function dayOf(rows: Dataset, field: string, pos: Position | undefined): (r: number) => string {
  const c = rows.indexOf(field);
  if (c < 0)
    throw new ScriptError(
      `DATE_FIELD '${field}': unknown column (columns: ${rows.columns.map((x) => x.name).join(', ') || '(none)'})`,
      'runtime',
      pos,
    );
  if (rows.columns[c].type.base !== 'datetime')
    throw new ScriptError(
      `DATE_FIELD '${field}' must be a datetime column, not ${rows.columns[c].type.base} (APPLY SCHEMA can convert it)`,
      'runtime',
      pos,
    );
  const values = rows.vector(c);
  const two = (n: number) => String(n).padStart(2, '0');
  return (r) => {
    const d = values.get(r) as Date | null;
    if (d === null || Number.isNaN(d.getTime())) return UNDATED;
    return `${d.getUTCFullYear()}/${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())}`;
  };
}

async function publishFile(
  part: Part,
  drive: Drive,
  out: DriveOutput,
  column: number | undefined,
  retry: RetryPolicy | undefined,
  signal: AbortSignal,
  written: Written,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const staged = drive.stage(part.path);
    try {
      await writeContent(staged, part.rows, out, column, out.filePerRow, signal);
    } catch (e) {
      // What the rows hold does not change on a retry: a content error fails at once.
      drive.discard(staged);
      throw e;
    }
    try {
      await drive.publish(staged, part.path, signal);
      return;
    } catch (e) {
      drive.discard(staged);
      if (!retry || attempt >= retry.count || (e instanceof ScriptError && e.kind === 'cancelled')) {
        if (attempt === 0) throw e;
        throw new ScriptError(
          `${(e as Error).message} (after ${attempt} ${attempt === 1 ? 'retry' : 'retries'})`,
          'runtime',
        );
      }
      written.retries++;
      await sleep(backoff(retry, attempt), signal);
    }
  }
}
