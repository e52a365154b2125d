import { once } from 'node:events';
import { resolve } from 'node:path';
import { listChangeLogs, type ChangeLogEntry } from '../runtime/changelog/list';
import { writeChangeLogJson } from '../runtime/changelog/json';
import { ChangeLogReader, type StreamName } from '../runtime/changelog/read';
import { Dataset } from '../runtime/dataset/dataset';
import { renderText } from '../runtime/dataset/render';
import { typeName } from '../runtime/dataset/type-names';
import type { Column, Value } from '../runtime/dataset/types';
import { isScriptError } from '../runtime/errors';
import { replayChangeLog } from '../runtime/jobs/replay';
import { JobStore } from '../runtime/jobs/store';
import { sessionFolders } from '../runtime/workspace/location';
import { EXIT } from './constants';
import { parseCommandLine, UsageError, type CommandGroup } from './subcommand';

/** `sqlcdc changelog show FILE` / `sqlcdc changelog list [FOLDER]` (docs/changelog.md, "Inspecting a log"). */
export interface ChangeLogCommand {
  action: 'show' | 'list' | 'replay';
  /** show, replay: the file; list: the folder (default: the working directory). */
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
  const options = { workspace: sessionFolders({ workspace: cmd.workspace }).workspace, checkSignature: cmd.checkSignature };
  if (cmd.output === 'json') return writeChangeLogJson(file, write, options);
  const reader = ChangeLogReader.open(file, options);
  const h = reader.header;
  const first: Record<StreamName, Value[][]> = { upserts: [], deletes: [] };
  for await (const page of reader.pages()) {
    const rows = first[page.stream];
    if (rows.length < TABLE_ROWS) rows.push(...page.data.rows(0, Math.min(page.data.rowCount, TABLE_ROWS - rows.length)));
  }
  const security = [
    reader.encrypted ? `encrypted${h.encryptedFor ? ` for ${h.encryptedFor.subject} (${h.encryptedFor.thumbprint})` : ''}` : 'not encrypted',
    reader.signed ? `signed${h.signedBy ? ` by ${h.signedBy.subject} (${h.signedBy.thumbprint})` : ''}${cmd.checkSignature ? ', signature checked' : ''}` : 'not signed',
  ];
  const lines = [
    `change log     ${file}`,
    `execution id   ${h.executionId} (${new Date(Number(h.executionId)).toISOString()})`,
    `pipeline       ${h.pipeline}`,
    `name           ${h.name}`,
    `created at     ${h.createdAt}`,
    `keys           ${h.keys.join(', ') || '(none: the whole dataset)'}`,
    ...(h.marker ? [`marker         ${h.marker}`] : []),
    `counts         ${h.counts.inserts} inserts, ${h.counts.updates} updates, ${h.counts.deletes} deletes`,
    `security       ${security.join(', ')}`,
    `schema         ${h.schema.map((c) => `${c.name} ${typeName(c.type)}`).join(', ')}`,
  ];
  const total = { upserts: h.counts.inserts + h.counts.updates, deletes: h.counts.deletes };
  for (const stream of ['upserts', 'deletes'] as const) {
    lines.push('', `${stream}:`, renderText(Dataset.fromRows(h.schema, first[stream]), { limit: TABLE_ROWS, total: total[stream], width: width() }));
  }
  await write(`${lines.join('\n')}\n`);
}

const LIST_COLUMNS: Column[] = [
  { name: 'file', type: { base: 'string' } },
  { name: 'execution id', type: { base: 'long' } },
  { name: 'pipeline', type: { base: 'string' } },
  { name: 'inserts', type: { base: 'long' } },
  { name: 'updates', type: { base: 'long' } },
  { name: 'deletes', type: { base: 'long' } },
  { name: 'bytes', type: { base: 'long' } },
  { name: 'security', type: { base: 'string' } },
];

function listRow(e: ChangeLogEntry): Value[] {
  const big = (n: number | string | undefined) => (n === undefined ? null : BigInt(n));
  const security = e.error ? `unreadable: ${e.error}` : [e.encrypted ? 'encrypted' : '', e.signed ? 'signed' : ''].filter(Boolean).join(', ');
  return [e.fileName, big(e.executionId), e.pipeline ?? null, big(e.counts?.inserts), big(e.counts?.updates), big(e.counts?.deletes), BigInt(e.size), security];
}

async function list(folder: string, cmd: ChangeLogCommand): Promise<void> {
  const entries = listChangeLogs(folder);
  if (cmd.output === 'json') return write(`${JSON.stringify(entries)}\n`);
  const table = Dataset.fromRows(LIST_COLUMNS, entries.map(listRow));
  await write(`${renderText(table, { limit: Math.max(entries.length, 1), width: width() })}\n`);
}

/** `changelog replay FILE --job NAME`: the job's writer plays the log; exit 1 when it fails. */
async function replay(file: string, cmd: ChangeLogCommand): Promise<number> {
  const store = new JobStore(sessionFolders({ workspace: cmd.workspace }).workspace);
  const record = await replayChangeLog(store, cmd.job!, file, (r) => {
    if (r.kind === 'message') process.stderr.write(`${r.text}\n`);
    else if (r.kind === 'warning') process.stderr.write(`warning: ${r.text}\n`);
    else if (r.kind === 'error') process.stderr.write(`sqlcdc: ${r.error.message}\n`);
  });
  process.stderr.write(`job ${cmd.job}: replay of ${file}: ${record.outcome}, ${record.rows} rows\n`);
  return record.outcome === 'success' ? EXIT.ok : EXIT.scriptError;
}

/** Runs the command; returns the exit code (1 when the log is unreadable, damaged or fails its check). */
export async function runChangeLogCommand(cmd: ChangeLogCommand): Promise<number> {
  try {
    if (cmd.action === 'replay') return await replay(resolve(cmd.target!), cmd);
    if (cmd.action === 'show') await show(resolve(cmd.target!), cmd);
    else await list(resolve(cmd.target ?? '.'), cmd);
    return EXIT.ok;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (isScriptError(e)) process.stderr.write(`sqlcdc: ${e.message}\n`);
    else if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') process.stderr.write(`sqlcdc: cannot read ${cmd.target}: ${(e as Error).message}\n`);
    else throw e;
    return isScriptError(e) ? EXIT.scriptError : EXIT.usage;
  }
}

/** `sqlcdc changelog …` as a command group of the CLI. */
export const changelogCommands: CommandGroup = {
  usage:
    '  sqlcdc changelog show <file.eds> [--output table|json] [--workspace DIR] [--check-signature]\n  sqlcdc changelog list [FOLDER] [--output table|json]\n  sqlcdc changelog replay <file.eds> --job NAME [--workspace DIR]',
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
  if (action !== 'show' && action !== 'list' && action !== 'replay') throw new UsageError(action === undefined ? 'changelog needs show, list or replay' : `unknown changelog action '${action}' (show, list or replay)`);
  if (action !== 'list' && target === undefined) throw new UsageError(`changelog ${action} needs a change log file`);
  if ((action === 'replay') !== (values.job !== undefined)) throw new UsageError(action === 'replay' ? 'changelog replay needs --job NAME (the job whose writer plays the log)' : '--job is an option of changelog replay');
  if (extra.length > 0) throw new UsageError(`changelog ${action} takes one ${action === 'list' ? 'folder' : 'file'}, got '${extra[0]}' too`);
  if (action === 'list' && values['check-signature']) throw new UsageError('--check-signature is an option of changelog show');
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json') throw new UsageError(`--output of changelog must be table or json, not '${output}'`);
  return { action, target, workspace: values.workspace, output, checkSignature: values['check-signature'] === true, job: values.job };
}
