import { posix } from 'node:path';
import { ScriptError, type Position } from '../errors';
import { evaluateText } from '../functions/evaluate';
import type { TargetOptions } from '../script/ast';
import { parseIdFileName } from '../changelog/naming';
import type { Result } from '../results';
import type { CurrentChangeLog, Scope } from '../scope';
import { clearProgress, progressPath } from './resume';

/**
 * What becomes of a change log after a target played it (spec §3, WITH options of PUSH HTTP, PUSH
 * DRIVE, PUSH DB): DISCARD_ON_SUCCESS deletes it after success, DISCARD_ON_ERROR after a failure,
 * DLQ_ON_ERROR moves it into that subfolder of the log's folder. Without an option the log stays, to be
 * replayed. A dataset pushed without a change log (no CAPTURE or LOAD) has no file to act on.
 */
export interface OutcomeOptions {
  discardOnSuccess: boolean;
  discardOnError: boolean;
  /** The evaluated DLQ_ON_ERROR folder, and where it was written. */
  dlq?: { folder: string; pos?: Position };
}

/** A target statement's WITH options, the DLQ folder evaluated and checked before anything is sent or written. */
export function outcomeOptions(o: TargetOptions, scope: Scope): OutcomeOptions {
  const dlq = o.dlqOnError && {
    folder: checkDlqFolder(evaluateText(o.dlqOnError, scope), o.dlqOnError.pos),
    pos: o.dlqOnError.pos,
  };
  return { discardOnSuccess: o.discardOnSuccess, discardOnError: o.discardOnError, dlq };
}

/** A DLQ folder is a subfolder of the log's folder: a relative path without `..`. */
export function checkDlqFolder(folder: string, pos?: Position): string {
  const clean = folder.replace(/\\/g, '/').trim();
  if (clean === '' || clean.startsWith('/') || /^[a-z]:/i.test(clean) || clean.split('/').includes('..')) {
    throw new ScriptError(
      `DLQ_ON_ERROR '${folder}' must name a subfolder of the change log's folder (a relative path without '..')`,
      'semantic',
      pos,
    );
  }
  return posix.normalize(clean);
}

/** After a push that succeeded: applies DISCARD_ON_SUCCESS and says what was done. */
export async function finishPush(
  current: CurrentChangeLog | undefined,
  options: OutcomeOptions,
  emit: (result: Result) => void,
): Promise<void> {
  const note = await applyOutcome(current, true, options);
  if (note) emit({ kind: 'message', text: note });
}

/**
 * After a push that failed with `error`: applies the failure's outcome (DLQ_ON_ERROR, DISCARD_ON_ERROR)
 * and throws `error`. An outcome that fails in turn (the dead-letter folder cannot be written, the
 * store refuses the move) is a warning: the error to act on is the push's, not the move's.
 */
export async function failPush(
  current: CurrentChangeLog | undefined,
  options: OutcomeOptions,
  error: unknown,
  emit: (result: Result) => void,
): Promise<never> {
  try {
    const note = await applyOutcome(current, false, options);
    if (note) emit({ kind: 'message', text: note });
  } catch (e) {
    emit({ kind: 'warning', text: `${(e as Error).message} (after the push had failed)` });
  }
  throw error;
}

/** Applies the outcome; returns a sentence for the cell output, or undefined when nothing was done. */
async function applyOutcome(
  current: CurrentChangeLog | undefined,
  succeeded: boolean,
  options: OutcomeOptions,
): Promise<string | undefined> {
  const log = current?.file;
  if (!current || !log) return undefined;
  const name = posix.basename(log.path);
  if (succeeded && options.discardOnSuccess) {
    await log.drive.remove(log.path);
    await clearProgress(log);
    return `change log ${name} discarded after success`;
  }
  if (!succeeded && options.dlq) {
    const folder = posix.join(posix.dirname(log.path), options.dlq.folder);
    // A fixed-name log (`orders.eds`) is written again by every run: its dead letters are told apart
    // by execution id (`orders_<id>.eds`, as LOAD 'orders' reads them in order), or the next one
    // would replace the one there, whose rows were never delivered.
    const letter = parseIdFileName(name)
      ? name
      : `${posix.basename(name, posix.extname(name))}_${current.executionId}${posix.extname(name)}`;
    const target = posix.join(folder, letter);
    await log.drive.move(log.path, target);
    // The record of the batches that succeeded goes along, so a replay of the moved log resumes.
    if (await log.drive.exists(progressPath(log.path)))
      await log.drive.move(progressPath(log.path), progressPath(target));
    return `change log ${name} moved to ${folder}${letter === name ? '' : ` as ${letter}`}`;
  }
  if (!succeeded && options.discardOnError) {
    await log.drive.remove(log.path);
    await clearProgress(log);
    return `change log ${name} discarded after the failure`;
  }
  return undefined;
}
