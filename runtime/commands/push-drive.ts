import { posix } from 'node:path';
import { Dataset } from '../dataset/dataset';
import type { DriveFormat, PushDrive } from '../script/ast';
import { writeDriveFiles } from '../targets/drive-files';
import { runDriveTarget } from './drive-target';
import type { Command } from './command';

const EXTENSIONS: Record<DriveFormat, string> = {
  CSV: '.csv',
  JSON: '.json',
  NDJSON: '.ndjson',
  XML: '.xml',
  RAW: '.txt',
  PARQUET: '.parquet',
};

/**
 * PUSH INTO DRIVE [conn] FORMAT … { FILE '<name>' } { options } { WITH … } (reference A; docs/drives.md):
 * the run's change log (from CAPTURE or LOAD) as files: the upsert stream under FILE (default
 * `<pipeline>-<execution id>.<ext>`), the delete stream beside it as `<stem>_deletes<ext>`. A stream
 * without rows writes no file. Without a change log the dataset is the upsert stream.
 */
export const pushDrive: Command<PushDrive> = async (stmt, input, ctx) => {
  const log = ctx.run.changeLog;
  const upserts = log?.upserts ?? input;
  const deletes = log?.deletes ?? Dataset.empty();
  const executionId = log?.executionId ?? ctx.run.executionId;
  const file = stmt.drive.file ?? {
    value: `${ctx.run.pipeline.replace(/[^\w.-]+/g, '_')}-${executionId}${EXTENSIONS[stmt.format]}`,
    form: 'quoted' as const,
    pos: stmt.pos,
  };
  await runDriveTarget(stmt, ctx, async (drive, out, written) => {
    const target = { ...out, file };
    if (upserts.rowCount > 0)
      await writeDriveFiles(upserts, (name) => name, drive, target, ctx, stmt.options.retry, written);
    if (deletes.rowCount > 0)
      await writeDriveFiles(deletes, deletesName, drive, target, ctx, stmt.options.retry, written);
  });
};

/** `out/orders.csv` → `out/orders_deletes.csv`. */
function deletesName(file: string): string {
  const ext = posix.extname(file);
  return `${file.slice(0, file.length - ext.length)}_deletes${ext}`;
}
