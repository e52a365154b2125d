import { ScriptError } from '../errors';
import type { Statement, StatementKind } from '../script/ast';
import type { Command } from './command';
import { onFirstUse } from '../util/first-use';

/** Statement kind → the command giving it meaning. */
export type CommandTable = { readonly [K in StatementKind]?: Command<Extract<Statement, { kind: K }>> };

/**
 * The commands of the language, each loaded with its first statement: a script loads the commands it
 * uses, not the language's every source, target and library. A kind without an entry parses but fails
 * when run with "not supported yet: <COMMAND>" (docs/language.md says so from this table); each issue
 * that gives a statement its meaning adds it here. A Session may be given another table (SessionOptions.commands).
 */
export const COMMANDS: CommandTable = {
  AddColumn: onFirstUse(async () => (await import('./add-column')).addColumn),
  ApplyFilter: onFirstUse(async () => (await import('./apply-filter')).applyFilter),
  ApplyHttp: onFirstUse(async () => (await import('./apply-http')).applyHttp),
  ApplyPipeline: onFirstUse(async () => (await import('./apply-pipeline')).applyPipeline),
  ApplySchema: onFirstUse(async () => (await import('./apply-schema')).applySchema),
  ApplyTx: onFirstUse(async () => (await import('./apply-tx')).applyTx),
  Capture: onFirstUse(async () => (await import('./capture')).capture),
  ExecOnDb: onFirstUse(async () => (await import('./exec-db')).execOnDb),
  Exit: onFirstUse(async () => (await import('./exit')).exit),
  Load: onFirstUse(async () => (await import('./load')).load),
  Merge: onFirstUse(async () => (await import('./merge')).merge),
  Print: onFirstUse(async () => (await import('./print')).print),
  PushDb: onFirstUse(async () => (await import('./push-db')).pushDb),
  PushDrive: onFirstUse(async () => (await import('./push-drive')).pushDrive),
  PushHttp: onFirstUse(async () => (await import('./push-http')).pushHttp),
  SelectDb: onFirstUse(async () => (await import('./select-db')).selectDb),
  SelectDrive: onFirstUse(async () => (await import('./select-drive')).selectDrive),
  SelectHttp: onFirstUse(async () => (await import('./select-http')).selectHttp),
  SinkDb: onFirstUse(async () => (await import('./sink-db')).sinkDb),
  SinkDrive: onFirstUse(async () => (await import('./sink-drive')).sinkDrive),
  ZipColumn: onFirstUse(async () => (await import('./zip-column')).zipColumn),
};

export function isSupported(table: CommandTable, kind: StatementKind): boolean {
  return table[kind] !== undefined;
}

export function commandFor(table: CommandTable, stmt: Statement): Command {
  const c = table[stmt.kind] as Command | undefined;
  if (!c) throw new ScriptError(`not supported yet: ${stmt.keyword}`, 'unsupported', stmt.pos, stmt.keyword);
  return c;
}
