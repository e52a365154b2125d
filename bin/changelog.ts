import { once } from 'node:events';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { counted, fileErrorReason, isScriptError, sessionFolders } from '../runtime/support';
import { renderText } from '../runtime/tables';
import {
  changeLogTable,
  listChangeLogs,
  listedFolder,
  storedPipelines,
  viewChangeLog,
  writeChangeLogJson,
} from '../runtime/changelog-files';
import { EXIT } from './constants';
import { openSession, runtime } from './interpreter';
import { parseCommandLine, unknownWord, UsageError, type CommandGroup } from './subcommand';

/** `sqlcdc changelog show FILE` / `sqlcdc changelog list [FOLDER|PIPELINE]` (docs/changelog.md, "Inspecting a log"). */
export interface ChangeLogCommand {
  action: 'show' | 'list' | 'replay';
  /** show, replay: the file; list: the folder (default: the working directory) or a pipeline's name. */
  target?: string;
  workspace?: string;
  output: 'table' | 'json';
  checkSignature: boolean;
  /** replay: the job whose writer plays the log. */
  job?: string;
}

/** Rows of each stream a table shows; json shows them all. */
const TABLE_ROWS = 20;

function write(text: string): Promise<void> | void {
  if (!process.stdout.write(text)) return once(process.stdout, 'drain').then(() => undefined);
}

const width = () => (process.stdout.isTTY ? process.stdout.columns : undefined);

async function show(file: string, cmd: ChangeLogCommand): Promise<void> {
  const options = {
    workspace: sessionFolders({ workspace: cmd.workspace }).workspace,
    checkSignature: cmd.checkSignature,
  };
  if (cmd.output === 'json') return writeChangeLogJson(file, write, options);
  const view = await viewChangeLog(file, TABLE_ROWS, options);
  const lines = [...view.facts];
  for (const stream of ['upserts', 'deletes'] as const) {
    const { rows, total } = view.streams[stream];
    lines.push('', `${stream}:`, renderText(rows, { limit: TABLE_ROWS, total, width: width() }));
  }
  await write(`${lines.join('\n')}\n`);
}

async function list(folder: string, cmd: ChangeLogCommand): Promise<void> {
  // A folder that is not there is a mistyped argument to report, not an empty listing.
  statSync(folder);
  const entries = listChangeLogs(folder);
  if (cmd.output === 'json') return write(`${JSON.stringify(entries)}\n`);
  await write(`${renderText(changeLogTable(entries), { limit: Math.max(entries.length, 1), width: width() })}\n`);
  // Logs without PATH are in the workspace's store, not here: say where, as a first listing usually looks here.
  if (entries.length === 0 && cmd.target === undefined) {
    const stored = storedPipelines(sessionFolders({ workspace: cmd.workspace }).workspace);
    if (stored.length > 0)
      process.stderr.write(
        `no change log in this folder; the workspace's store has logs of ${stored.join(', ')} (sqlcdc changelog list ${stored[0]})\n`,
      );
  }
}

/** `changelog replay FILE --job NAME`: the job's writer plays the log; exit 1 when it fails. */
async function replay(file: string, cmd: ChangeLogCommand): Promise<number> {
  // Replaying runs a pipeline: the interpreter loads here, not for show and list.
  const { stderrReport } = await import('./job');
  const { JobStore, replayChangeLog } = runtime();
  const store = new JobStore(sessionFolders({ workspace: cmd.workspace }).workspace, openSession);
  const record = await replayChangeLog(store, cmd.job!, file, stderrReport(store));
  process.stderr.write(`job ${cmd.job}: replay of ${file}: ${record.outcome}, ${counted(record.rows, 'row')}\n`);
  return record.outcome === 'success' ? EXIT.ok : EXIT.scriptError;
}

/** Runs the command; returns the exit code (1 when the log is unreadable, damaged or fails its check). */
export async function runChangeLogCommand(cmd: ChangeLogCommand): Promise<number> {
  try {
    if (cmd.action === 'replay') return await replay(resolve(cmd.target!), cmd);
    if (cmd.action === 'show') await show(resolve(cmd.target!), cmd);
    else
      await list(
        cmd.target === undefined
          ? resolve('.')
          : listedFolder(cmd.target, process.cwd(), sessionFolders({ workspace: cmd.workspace }).workspace),
        cmd,
      );
    return EXIT.ok;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (isScriptError(e)) process.stderr.write(`sqlcdc: ${e.message}\n`);
    else if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR')
      process.stderr.write(`sqlcdc: cannot read ${cmd.target}: ${fileErrorReason(e)}\n`);
    else throw e;
    return isScriptError(e) ? EXIT.scriptError : EXIT.usage;
  }
}

/** `sqlcdc changelog …` as a command group of the CLI. */
export const changelogCommands: CommandGroup = {
  usage:
    '  sqlcdc changelog show <file.eds> [--output table|json] [--workspace DIR] [--check-signature]\n  sqlcdc changelog list [FOLDER|PIPELINE] [--output table|json] [--workspace DIR]\n  sqlcdc changelog replay <file.eds> --job NAME [--workspace DIR]',
  run: (args) => runChangeLogCommand(parseChangeLog(args)),
};

function parseChangeLog(args: string[]): ChangeLogCommand {
  const { values, positionals } = parseCommandLine(args, {
    workspace: { type: 'string' },
    output: { type: 'string' },
    'check-signature': { type: 'boolean' },
    job: { type: 'string' },
  });
  const [action, target, ...extra] = positionals;
  if (action === undefined) throw new UsageError('changelog needs show, list or replay');
  if (action !== 'show' && action !== 'list' && action !== 'replay')
    throw unknownWord('changelog action', action, ['show', 'list', 'replay']);
  if (action !== 'list' && target === undefined) throw new UsageError(`changelog ${action} needs a change log file`);
  if ((action === 'replay') !== (values.job !== undefined))
    throw new UsageError(
      action === 'replay'
        ? 'changelog replay needs --job NAME (the job whose writer plays the log)'
        : '--job is an option of changelog replay',
    );
  if (extra.length > 0)
    throw new UsageError(
      `changelog ${action} takes one ${action === 'list' ? 'folder' : 'file'}, got '${extra[0]}' too`,
    );
  if (action === 'list' && values['check-signature'])
    throw new UsageError('--check-signature is an option of changelog show');
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json')
    throw new UsageError(`--output of changelog must be table or json, not '${output}'`);
  return {
    action,
    target,
    workspace: values.workspace,
    output,
    checkSignature: values['check-signature'] === true,
    job: values.job,
  };
}
