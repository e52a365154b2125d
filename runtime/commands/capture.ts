import { posix } from 'node:path';
import { ChangeLogExists, writeChangeLog, type ChangeLogMeta } from '../changelog/write';
import type { Protection } from '../changelog/secure';
import { changeLogTarget, lastExecutionId, NAME_ATTEMPTS, pipelineStem } from '../changelog/naming';
import { captureChanges, commitState, type CaptureDiff, type EarlierPages } from '../cdc/diff';
import { captureOptions, type CaptureOptions } from '../cdc/options';
import { stateFile } from '../cdc/state';
import { capturing } from '../cdc/state-lock';
import { claimPipeline } from '../cdc/script-owner';
import { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import type { RunState } from '../scope';
import { writeStaged } from '../drives/drive';
import { changeLogFolder, type FolderOnDrive } from '../drives/location';
import { evaluateText } from '../functions/evaluate';
import type { Capture } from '../script/ast';
import { findCertificate } from '../workspace/certificates';
import { counted } from '../util/words';
import type { Command, CommandContext } from './command';

/**
 * CAPTURE { '<name>' } { INSERTS } { UPDATES } { DELETES } { ON KEYS '…' { OBSERVE '…' } } { WITH … }
 * (spec §2.2, §4.2; reference C.1, C.3, C.4; docs/changelog.md). Compares the dataset with what the
 * last run of this pipeline captured under the same name, writes the changes as a change log, and only
 * once that log is durable commits the new CDC state: a run stopped at any point loses no change (the
 * next run finds the log, or detects the same changes again). The dataset becomes the upsert stream;
 * the delete stream travels with it as the run's current change log, for PUSH and SINK.
 */
/**
 * What each run's CAPTURE did to its CDC states so far. In a read's inline APPLY PIPELINE CAPTURE runs
 * once per page: only the first page finds no state, so the later pages of a first run with
 * INIT_ON_FIRST_RUN are part of the initialization too, not inserts; and a record a later page
 * repeats is a duplicate key (diff.ts EarlierPages).
 */
const pagesOf = new WeakMap<RunState, Map<string, EarlierPages>>();

export const capture: Command<Capture> = async (stmt, input, ctx) => {
  const options = captureOptions(stmt);
  const name = stmt.name && evaluateText(stmt.name, ctx).trim();
  const { pipeline } = ctx.run;
  // Where the log goes and its certificates are checked before the diff: a mistake there costs no work.
  const location = changeLogFolder(stmt.path, ctx);
  const protection = protectionOf(stmt, ctx);
  const state = stateFile(ctx.session.workspace, pipeline, name || pipeline);
  const pages = pagesOf.get(ctx.run) ?? new Map<string, EarlierPages>();
  pagesOf.set(ctx.run, pages);
  const waiting = () =>
    ctx.emit({
      kind: 'message',
      text: `CAPTURE '${name || pipeline}' of pipeline ${pipeline} waits for another run capturing into ${state} to finish`,
    });
  const { script } = ctx.session;
  // A pipeline %pipeline named in the script is shared on purpose.
  if (options.keys.length > 0 && script?.pipeline === pipeline) {
    const shared = claimPipeline(ctx.session.workspace, pipeline, script.file);
    if (shared) ctx.emit({ kind: 'warning', text: shared });
  }
  return capturing(options.keys.length > 0 ? state : undefined, { signal: ctx.signal, waiting }, async () => {
    const diff = await captureChanges(input, options, state, ctx.signal, pages.get(state));
    const committed = async () => {
      await commitState(state, diff);
      if (diff.seen) pages.set(state, { initializing: diff.mode === 'initialized', seen: diff.seen() });
    };
    // A CAPTURE that writes no log leaves the run without one, rather than with the log a previous
    // notebook cell (or page) left it: a PUSH after it would play that log again.
    if (diff.mode === 'initialized') {
      ctx.run.changeLog = undefined;
      await committed();
      ctx.emit({
        kind: 'message',
        text: `CDC state initialized with ${counted(diff.counts.unchanged + diff.counts.inserted, 'record')}; no change log written`,
      });
      return diff.upserts;
    }
    if (diff.upserts.rowCount === 0 && diff.deletes.rowCount === 0) {
      ctx.run.changeLog = undefined;
      await committed();
      ctx.emit({ kind: 'message', text: nothingWritten(diff, options) });
      return diff.upserts;
    }
    if (options.marker !== undefined) diff.deletes = markDeletes(diff.deletes, diff.upserts, options.marker);
    const written = await writeLog(stmt, diff, options, name || undefined, location, protection, ctx);
    await committed();
    ctx.run.changeLog = {
      upserts: diff.upserts,
      deletes: diff.deletes,
      keys: options.keys,
      executionId: written.executionId,
      file: { drive: location.drive, path: written.path },
    };
    ctx.run.pipelineVariables.set('executionid', written.executionId);
    const { inserts, updates } = streamCounts(diff, options);
    ctx.emit({
      kind: 'message',
      text: `change log ${written.shown}: ${counted(inserts, 'insert')}, ${counted(updates, 'update')}, ${counted(diff.deletes.rowCount, 'delete')}`,
    });
    return diff.upserts;
  });
};

/**
 * Why a CAPTURE wrote no log. Changes of a kind it does not report are named: a first run with
 * `DELETES` alone finds every record new and reports none of them, and "no change" there read as if
 * the source had been empty.
 */
function nothingWritten(diff: CaptureDiff, options: CaptureOptions): string {
  const unasked = [
    !options.inserts && diff.counts.inserted > 0 && counted(diff.counts.inserted, 'insert'),
    !options.updates && diff.counts.updated > 0 && counted(diff.counts.updated, 'update'),
  ].filter((t): t is string => typeof t === 'string');
  if (unasked.length === 0) return 'no change since the last capture: no change log written';
  const asked = [options.inserts && 'INSERTS', options.updates && 'UPDATES', options.deletes && 'DELETES'].filter(
    (k): k is string => typeof k === 'string',
  );
  return `no change log written: ${unasked.join(' and ')} found, which this CAPTURE does not report (it reports ${asked.join(', ')} only); the CDC state has them`;
}

/** ENCRYPT_CERT and SIGN_CERT, found in the workspace's certificate store. */
function protectionOf(stmt: Capture, ctx: CommandContext): Protection {
  const workspace = ctx.session.workspace;
  return {
    encryptFor: stmt.encryptCert && findCertificate(workspace, evaluateText(stmt.encryptCert, ctx)),
    signWith: stmt.signCert && findCertificate(workspace, evaluateText(stmt.signCert, ctx)),
  };
}

/**
 * With CDCMARKER the delete stream carries the marker column too, holding D: both streams then have
 * one schema (the change log's), and a row tells what happened to it wherever it goes.
 */
function markDeletes(deletes: Dataset, upserts: Dataset, marker: string): Dataset {
  const column = upserts.columns[upserts.indexOf(marker)];
  return Dataset.encoded(
    [...deletes.columns.map((c) => ({ ...c })), { ...column }],
    [...deletes.columns.map((_, c) => deletes.vector(c)), new Array<Value>(deletes.rowCount).fill('D')],
    deletes.rowCount,
  );
}

/** How the upsert stream splits into inserts and updates (what was detected, as far as it is reported). */
function streamCounts(diff: CaptureDiff, options: CaptureOptions): { inserts: number; updates: number } {
  if (diff.mode === 'all') return { inserts: diff.upserts.rowCount, updates: 0 };
  return { inserts: options.inserts ? diff.counts.inserted : 0, updates: options.updates ? diff.counts.updated : 0 };
}

/**
 * Writes the log under its C.3 name. On the local file system the writer writes in place (a temp file,
 * fsync, rename); on an FTP site it writes a local file that is then uploaded under a temp name and
 * renamed. The execution id is the run's, or one above the last log of that name in the folder.
 */
async function writeLog(
  stmt: Capture,
  diff: CaptureDiff,
  options: CaptureOptions,
  name: string | undefined,
  location: FolderOnDrive,
  protection: Protection,
  ctx: CommandContext,
): Promise<{ path: string; executionId: string; shown: string }> {
  const { drive, folder } = location;
  const local = drive.local?.(folder);
  // A local folder is read by the naming itself; another drive's listing gives the last id.
  const after =
    local === undefined
      ? lastExecutionId(
          (await drive.list(folder)).map((e) => e.name),
          name ?? pipelineStem(ctx.run.pipeline),
        ).toString()
      : undefined;
  const now = Number(ctx.run.executionId);
  let target = changeLogTarget(local, name, ctx.run.pipeline, { now, after });
  for (let attempt = 1; ; attempt++) {
    const path = posix.join(folder, target.fileName);
    const meta: ChangeLogMeta = {
      executionId: target.executionId,
      pipeline: ctx.run.pipeline,
      name: target.name,
      keys: options.keys,
      marker: options.marker,
      ...streamCounts(diff, options),
    };
    const writeOptions = { ...protection, overwrite: target.fixed, signal: ctx.signal };
    try {
      if (drive.local) {
        await writeChangeLog(drive.local(path), diff.upserts, diff.deletes, meta, writeOptions);
      } else {
        await writeStaged(drive, path, (staged) =>
          writeChangeLog(staged, diff.upserts, diff.deletes, meta, writeOptions),
        );
      }
      break;
    } catch (e) {
      // Another process (a second listener running this job, a run of the same pipeline) wrote a log
      // under the name between the folder's reading and this write: the next id, never a replaced log.
      if (!(e instanceof ChangeLogExists) || attempt === NAME_ATTEMPTS) throw e;
      target = changeLogTarget(local, name, ctx.run.pipeline, { now, after: target.executionId });
    }
  }
  const path = posix.join(folder, target.fileName);
  const shown = stmt.path
    ? stmt.path.connection
      ? `[${stmt.path.connection.name}] ${path}`
      : path
    : posix.join(location.label, target.fileName);
  return { path, executionId: target.executionId, shown };
}
