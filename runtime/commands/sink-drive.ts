import type { SinkDrive } from '../script/ast';
import { writeDriveFiles } from '../targets/drive-files';
import { runDriveTarget } from './drive-target';
import type { Command } from './command';

/**
 * SINK INTO DRIVE [conn] FORMAT <CSV|JSON|NDJSON|XML|RAW|PARQUET> FILE '<name>' { options } { WITH … }
 * (reference A; docs/drives.md): the whole dataset as a file (or a file per row or per day) on a local
 * folder or an FTP site. The dataset is left as it was.
 */
export const sinkDrive: Command<SinkDrive> = async (stmt, input, ctx) => {
  await runDriveTarget(stmt, ctx, (drive, out, written) =>
    writeDriveFiles(input, (file) => file, drive, out, ctx, stmt.options.retry, written),
  );
};
