import { resolve } from 'node:path';
import type { Dataset } from '../dataset/dataset';
import { evaluateText } from '../functions/evaluate';
import { concatDatasets } from '../sources/concat';
import { isCsvOptions, parseCsvOptions } from '../sources/csv/options';
import { pathInRoot } from '../drives/confine';
import { DRIVE_KINDS, remoteDrive } from '../drives/index';
import { driveFiles, readDriveFile, readRemoteFile, remoteFiles, type DriveRead } from '../sources/files/drive';
import { PagePipeline } from './apply-pipeline';
import { atArgument } from '../at-argument';
import type { SelectDrive } from '../script/ast';
import type { Command } from './command';
import { floatsAsDecimal } from '../functions/json-format';

/**
 * SELECT * FROM DRIVE { [CONN] } '<file or glob>' { FORMAT … } { OPTIONS '…' } { APPLY TX … }
 * { WITH RAWCOL '…' } { APPLY PIPELINE (…) } (docs/sources.md). The files of a glob are read in name
 * order and stacked; an inline APPLY PIPELINE runs once per file.
 */
export const selectDrive: Command<SelectDrive> = async (stmt, _input, ctx) => {
  const { session } = ctx;
  const { connection, path } = stmt;
  const named = connection && atArgument(connection, () => session.connections.getOf(connection.name, ...DRIVE_KINDS));
  const remote = named && named.kind !== 'drive' ? remoteDrive(named) : undefined;
  const base = named?.kind === 'drive' ? resolve(session.cwd, named.root) : session.cwd;
  // CSV options are checked once here, where their text's position is known; the reader parses them per file.
  if (stmt.formatOptions) parseCsvOptions(stmt.formatOptions.value, stmt.formatOptions.pos);
  if (stmt.tx && isCsvOptions(stmt.tx.path.value)) parseCsvOptions(stmt.tx.path.value, stmt.tx.path.pos);
  const written = evaluateText(path, ctx);
  const read: DriveRead = {
    base,
    pattern: named ? atArgument(path, () => pathInRoot(written, named)) : written,
    format: stmt.format,
    options: stmt.formatOptions?.value,
    tx: stmt.tx?.path.value,
    txPos: stmt.tx?.path.pos,
    rawCol: stmt.rawCol?.value,
    floatDecimal: floatsAsDecimal(session),
  };
  // What the reader reports without a position (file not found, not valid JSON…) is about the path.
  const files: { display: string; read(): Promise<Dataset> }[] = remote
    ? (await atArgument(path, () => remoteFiles(remote, read.pattern))).map((file) => ({
        display: file,
        read: () => readRemoteFile(remote, file, read, ctx.signal),
      }))
    : (await atArgument(path, () => driveFiles(read))).map((file) => ({
        display: file.display,
        read: () => readDriveFile(file, read, ctx.signal),
      }));
  if (files.length === 0) ctx.emit({ kind: 'warning', text: `no file matches '${written}'` });
  const parts: Dataset[] = [];
  const pipeline = stmt.pipeline && new PagePipeline(stmt.pipeline, ctx);
  for (const file of files) {
    if (ctx.signal.aborted) break;
    const data = await atArgument(path, () => file.read());
    if (!pipeline) {
      parts.push(data);
      continue;
    }
    const outcome = await pipeline.run(data);
    parts.push(outcome.dataset);
    if (outcome.stop) break;
  }
  return concatDatasets(parts);
};
