import { driveFor, type Drive } from '../drives';
import { atArgument } from '../at-argument';
import type { CommandContext } from './command';
import type { PushDrive, SinkDrive } from '../script/ast';
import { counted } from '../util/words';
import { driveOutput, type DriveOutput } from '../targets/drive-options';
import type { Written } from '../targets/drive-files';
import { failPush, finishPush, outcomeOptions } from '../targets/outcome';

/**
 * What SINK and PUSH INTO DRIVE share: the drive and options resolved before any file is written,
 * the files written by `write`, then the outcome rules (WITH DISCARD_ON_SUCCESS / DISCARD_ON_ERROR /
 * DLQ_ON_ERROR) applied to the run's change log, if it has one, and one message saying what was written.
 */
export async function runDriveTarget(
  stmt: SinkDrive | PushDrive,
  ctx: CommandContext,
  write: (drive: Drive, out: DriveOutput, written: Written) => Promise<void>,
): Promise<void> {
  const drive = atArgument(stmt.connection, () => driveFor(ctx.session, stmt.connection));
  const out = driveOutput(stmt.format, stmt.drive, ctx, stmt.pos);
  const outcome = outcomeOptions(stmt.options, ctx);
  const log = ctx.run.changeLog;
  const written: Written = { files: [], rows: 0, retries: 0 };
  try {
    await write(drive, out, written);
  } catch (e) {
    await failPush(log, outcome, e, (r) => ctx.emit(r));
  }
  ctx.emit({ kind: 'message', text: summary(stmt, drive, written) });
  await finishPush(log, outcome, (r) => ctx.emit(r));
}

function summary(stmt: SinkDrive | PushDrive, drive: Drive, w: Written): string {
  const where = stmt.connection ? `[${stmt.connection.name}]` : drive.label;
  const shown = w.files.length <= 3 ? w.files.join(', ') : `${w.files.slice(0, 3).join(', ')}…`;
  const retries = w.retries > 0 ? `, ${counted(w.retries, 'retry', 'retries')}` : '';
  return `${stmt.keyword}: ${counted(w.rows, 'row')} in ${counted(w.files.length, 'file')} on ${where}${shown ? `: ${shown}` : ''}${retries}`;
}
