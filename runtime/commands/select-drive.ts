import { resolve } from 'node:path';
import type { Dataset } from '../dataset/dataset';
import { evaluateText } from '../functions/evaluate';
import { concatDatasets } from '../sources/concat';
import { driveFiles, readDriveFile, type DriveRead } from '../sources/files/drive';
import { PagePipeline } from './apply-pipeline';
import { registerCommand } from './registry';

/**
 * SELECT * FROM DRIVE { [CONN] } '<file or glob>' { FORMAT … } { OPTIONS '…' } { APPLY TX … }
 * { WITH RAWCOL '…' } { APPLY PIPELINE (…) } (docs/sources.md). The files of a glob are read in name
 * order and stacked; an inline APPLY PIPELINE runs once per file.
 */
registerCommand('SelectDrive', async (stmt, ctx) => {
  const { state } = ctx;
  const base = stmt.connection ? resolve(state.cwd, ctx.connections.getOf(stmt.connection.name, 'drive').root) : state.cwd;
  const read: DriveRead = {
    base,
    pattern: evaluateText(stmt.path, state),
    format: stmt.format,
    options: stmt.formatOptions?.value,
    tx: stmt.tx?.path.value,
    rawCol: stmt.rawCol?.value,
    floatDecimal: state.jsonSettings.get('floatparsehandling')?.toLowerCase() === 'decimal',
  };
  const files = await driveFiles(read);
  if (files.length === 0) ctx.emit({ kind: 'warning', text: `no file matches '${read.pattern}'` });
  const parts: Dataset[] = [];
  const pipeline = stmt.pipeline && new PagePipeline(stmt.pipeline, ctx);
  for (const file of files) {
    if (ctx.signal.aborted) break;
    const data = await readDriveFile(file, read, ctx.signal);
    if (!pipeline) {
      parts.push(data);
      continue;
    }
    const outcome = await pipeline.run(data);
    parts.push(outcome.dataset);
    if (outcome.stop) break;
  }
  return concatDatasets(parts);
});
