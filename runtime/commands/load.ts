import { posix } from 'node:path';
import { readChangeLog } from '../changelog/read';
import { prunePlayed } from '../changelog/played';
import { watermarkWrite, writeWatermark } from '../changelog/watermark';
import { Dataset } from '../dataset/dataset';
import type { FolderOnDrive } from '../drives/location';
import { ScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import type { Load } from '../script/ast';
import { splitNames } from '../writers/fields';
import { counted } from '../util/words';
import { ExitSignal, type Command, type CommandContext } from './command';
import { loadFolder, loadPosition, namesOneFile } from './load-position';

/**
 * LOAD { UPSERTS | INSERTS | UPDATES } { DELETES } FROM { [conn] } '<name>' { PATH { [conn] } '<folder>' }
 * { WITH KEY_COLUMNS '…' CHECK_SIGNATURE PREVIEW_FILE '…' INITIAL_ID '…' } (reference A; docs/changelog.md).
 * A file name (`orders_1764000000123.eds`, `orders.eds`: a name with an extension) loads that log. A bare
 * name loads the next log of that name after the pipeline's high watermark, oldest first; the watermark
 * moves to it only when the whole run succeeds. UPSERTS, INSERTS and UPDATES are spellings of one read,
 * the upsert stream (spec 4.2 rule 4 pairs CAPTURE with `LOAD UPDATES`); a CDCMARKER column tells
 * inserts from updates. The dataset is the upsert stream (the delete stream with DELETES alone); the
 * other rides along as the run's change log. With nothing new the run ends at LOAD, successfully.
 */
export const load: Command<Load> = async (stmt, _input, ctx) => {
  const name = evaluateText(stmt.name, ctx).trim();
  const location = loadFolder(stmt, name, ctx);
  const picked = namesOneFile(name) ? await named(name, location, stmt) : await next(name, location, stmt, ctx);
  // Nothing to play: what follows a LOAD works on its log (a PUSH names its fields), so the run ends
  // here, successfully, rather than failing on a dataset without columns.
  if (!picked) throw new ExitSignal(Dataset.empty());
  const { drive } = location;
  const file = posix.join(location.folder, picked.fileName);
  const fetched = await drive.fetch(file, ctx.signal);
  let log;
  try {
    log = await readChangeLog(fetched.file, { workspace: ctx.session.workspace, checkSignature: stmt.checkSignature });
  } finally {
    fetched.done();
  }
  const keys = stmt.keyColumns ? splitNames(evaluateText(stmt.keyColumns, ctx)) : log.header.keys;
  for (const k of keys)
    if (!log.upserts.has(k))
      throw new ScriptError(
        `KEY_COLUMNS names '${k}', which the change log does not have`,
        'runtime',
        stmt.keyColumns?.pos,
      );
  ctx.run.changeLog = {
    upserts: log.upserts,
    deletes: log.deletes,
    keys,
    executionId: log.header.executionId,
    file: { drive, path: file },
  };
  ctx.run.pipelineVariables.set('executionid', log.header.executionId);
  const advance = picked.advance;
  if (advance) {
    const { workspace } = ctx.session;
    ctx.run.commitWrite(watermarkWrite(workspace, ctx.run.pipeline, name, advance, ctx.run.commitId));
    ctx.run.afterSuccess(() => prunePlayed(workspace, ctx.run.pipeline, name, advance));
  }
  const c = log.header.counts;
  ctx.emit({
    kind: 'message',
    text: `change log ${posix.join(location.label, picked.fileName)} loaded: ${counted(c.inserts, 'insert')}, ${counted(c.updates, 'update')}, ${counted(c.deletes, 'delete')}`,
  });
  const onlyDeletes = stmt.deletes && !stmt.upserts && !stmt.updates;
  return onlyDeletes ? log.deletes : log.upserts;
};

/** What LOAD reads: a file of the folder, and the execution id the watermark moves to after the run. */
interface Picked {
  fileName: string;
  advance?: string;
}

async function named(fileName: string, location: FolderOnDrive, stmt: Load): Promise<Picked> {
  if (!(await location.drive.exists(posix.join(location.folder, fileName)))) {
    throw new ScriptError(`no change log ${fileName} in ${location.label}`, 'runtime', stmt.name.pos);
  }
  return { fileName };
}

/**
 * The oldest log of `name` above the watermark (INITIAL_ID when none is stored). With none, PREVIEW_FILE
 * is loaded when given, without moving the watermark; else nothing is, and a message says so.
 */
async function next(
  name: string,
  location: FolderOnDrive,
  stmt: Load,
  ctx: CommandContext,
): Promise<Picked | undefined> {
  const { watermark, waiting, lastPlayed } = await loadPosition(name, location, stmt, ctx);
  const [first] = waiting;
  if (first) return { fileName: first.fileName, advance: first.id.toString() };
  // Every log above the watermark was played: it moves past them now, as it would have after each.
  if (lastPlayed > 0n) moveWatermark(ctx, name, lastPlayed.toString());
  if (stmt.previewFile) {
    const preview = evaluateText(stmt.previewFile, ctx).trim();
    // A file of the folder (docs/changelog.md): a path could read any file the drive can reach.
    if (/[/\\]/.test(preview) || preview === '.' || preview === '..')
      throw new ScriptError(
        `PREVIEW_FILE names a change log of the folder (${location.label}), not a path: '${preview}'`,
        'semantic',
        stmt.previewFile.pos,
      );
    if (!(await location.drive.exists(posix.join(location.folder, preview)))) {
      throw new ScriptError(
        `PREVIEW_FILE: no change log ${preview} in ${location.label}`,
        'runtime',
        stmt.previewFile.pos,
      );
    }
    ctx.emit({
      kind: 'message',
      text: `no new change log of '${name}': previewing ${posix.join(location.label, preview)} (the watermark does not move)`,
    });
    return { fileName: preview };
  }
  ctx.emit({
    kind: 'message',
    text: `no new change log of '${name}' in ${location.label}${watermark ? ` after execution id ${watermark}` : ''}: nothing to load, the rest of the pipeline is skipped`,
  });
  return undefined;
}

function moveWatermark(ctx: CommandContext, name: string, executionId: string): void {
  writeWatermark(ctx.session.workspace, ctx.run.pipeline, name, executionId, ctx.run.commitId);
  prunePlayed(ctx.session.workspace, ctx.run.pipeline, name, executionId);
}
