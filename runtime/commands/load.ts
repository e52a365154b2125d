import { posix } from 'node:path';
import { EXTENSION, parseIdFileName } from '../changelog/naming';
import { readChangeLog } from '../changelog/read';
import { readWatermark, writeWatermark } from '../changelog/watermark';
import { Dataset } from '../dataset/dataset';
import { changeLogFolder } from '../drives/location';
import { ScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import type { Load } from '../script/ast';
import { splitNames } from '../writers/fields';
import { counted } from '../util/words';
import type { Command } from './command';

/**
 * LOAD { UPSERTS | INSERTS | UPDATES } { DELETES } FROM { [conn] } '<name>' { PATH { [conn] } '<folder>' }
 * { WITH KEY_COLUMNS '…' CHECK_SIGNATURE PREVIEW_FILE '…' INITIAL_ID '…' } (reference A; docs/changelog.md).
 * A full file name (`orders_1764000000123.eds`, `orders.eds`) loads that log. A bare name loads the next
 * log of that name after the pipeline's high watermark, oldest first; the watermark moves to it only when
 * the whole run succeeds. UPSERTS, INSERTS and UPDATES are spellings of one read, the upsert stream
 * (spec 4.2 rule 4 pairs CAPTURE with `LOAD UPDATES`); a CDCMARKER column tells inserts from updates.
 * The dataset is the upsert stream (the delete stream with DELETES alone); the other rides along as the
 * run's change log.
 */
export const load: Command<Load> = async (stmt, _input, ctx) => {
  const name = evaluateText(stmt.name, ctx).trim();
  const location = changeLogFolder(locationOf(stmt), ctx);
  const { drive, folder } = location;
  let file: string | undefined;
  let advance: string | undefined;
  if (name.toLowerCase().endsWith(EXTENSION)) {
    file = posix.join(folder, name);
    if (!(await drive.exists(file))) throw new ScriptError(`no change log ${name} in ${location.label}`, 'runtime', stmt.name.pos);
  } else {
    const watermark = readWatermark(ctx.session.workspace, ctx.run.pipeline, name) ?? (stmt.initialId && evaluateText(stmt.initialId, ctx).trim());
    const next = (await drive.list(folder))
      .map((e) => ({ e, id: parseIdFileName(e.name) }))
      .filter(({ id }) => id?.stem === name && BigInt(id.executionId) > BigInt(watermark || '0'))
      .sort((a, b) => (BigInt(a.id!.executionId) < BigInt(b.id!.executionId) ? -1 : 1))[0];
    if (next) {
      file = posix.join(folder, next.e.name);
      advance = next.id!.executionId;
    } else if (stmt.previewFile) {
      file = posix.join(folder, evaluateText(stmt.previewFile, ctx).trim());
      ctx.emit({ kind: 'message', text: `no new change log of '${name}': previewing ${file} (the watermark does not move)` });
    } else {
      ctx.emit({ kind: 'message', text: `no new change log of '${name}' in ${location.label}${watermark ? ` after execution id ${watermark}` : ''}: nothing to load` });
      return Dataset.empty();
    }
  }
  const fetched = await drive.fetch(file);
  let log;
  try {
    log = await readChangeLog(fetched.file, { workspace: ctx.session.workspace, checkSignature: stmt.checkSignature });
  } finally {
    fetched.done();
  }
  const keys = stmt.keyColumns ? splitNames(evaluateText(stmt.keyColumns, ctx)) : log.header.keys;
  for (const k of keys) if (!log.upserts.has(k)) throw new ScriptError(`KEY_COLUMNS names '${k}', which the change log does not have`, 'runtime', stmt.keyColumns?.pos);
  ctx.run.changeLog = { upserts: log.upserts, deletes: log.deletes, keys, executionId: log.header.executionId, file: { drive, path: file } };
  ctx.run.pipelineVariables.set('executionid', log.header.executionId);
  if (advance) {
    const id = advance;
    ctx.run.afterSuccess(() => writeWatermark(ctx.session.workspace, ctx.run.pipeline, name, id));
  }
  const c = log.header.counts;
  ctx.emit({ kind: 'message', text: `change log ${file} loaded: ${counted(c.inserts, 'insert')}, ${counted(c.updates, 'update')}, ${counted(c.deletes, 'delete')}` });
  const onlyDeletes = stmt.deletes && !stmt.upserts && !stmt.updates;
  return onlyDeletes ? log.deletes : log.upserts;
};

/** PATH [conn] 'folder'; FROM [conn] 'name' names the connection when PATH gives none. */
function locationOf(stmt: Load): Load['path'] {
  if (stmt.path) return stmt.path.connection || !stmt.connection ? stmt.path : { ...stmt.path, connection: stmt.connection };
  return stmt.connection ? { connection: stmt.connection, folder: { value: '', form: 'quoted', pos: stmt.name.pos } } : undefined;
}
