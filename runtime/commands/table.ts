import { ScriptError } from '../errors';
import type { Statement, StatementKind } from '../script/ast';
import type { Command } from './command';
import { addColumn } from './add-column';
import { applyFilter } from './apply-filter';
import { applyHttp } from './apply-http';
import { applyPipeline } from './apply-pipeline';
import { applySchema } from './apply-schema';
import { applyTx } from './apply-tx';
import { capture } from './capture';
import { execOnDb } from './exec-db';
import { exit } from './exit';
import { load } from './load';
import { merge } from './merge';
import { print } from './print';
import { pushDb } from './push-db';
import { pushDrive } from './push-drive';
import { pushHttp } from './push-http';
import { selectDb } from './select-db';
import { selectDrive } from './select-drive';
import { selectHttp } from './select-http';
import { sinkDb } from './sink-db';
import { sinkDrive } from './sink-drive';
import { zipColumn } from './zip-column';

/** Statement kind → the command giving it meaning. */
export type CommandTable = { readonly [K in StatementKind]?: Command<Extract<Statement, { kind: K }>> };

/**
 * The commands of the language. A kind without an entry parses but fails when run with "not supported
 * yet: <COMMAND>" (docs/language.md says so from this table); each issue that gives a statement its
 * meaning adds it here. A Session may be given another table (SessionOptions.commands).
 */
export const COMMANDS: CommandTable = {
  AddColumn: addColumn,
  ApplyFilter: applyFilter,
  ApplyHttp: applyHttp,
  ApplyPipeline: applyPipeline,
  ApplySchema: applySchema,
  ApplyTx: applyTx,
  Capture: capture,
  ExecOnDb: execOnDb,
  Exit: exit,
  Load: load,
  Merge: merge,
  Print: print,
  PushDb: pushDb,
  PushDrive: pushDrive,
  PushHttp: pushHttp,
  SelectDb: selectDb,
  SelectDrive: selectDrive,
  SelectHttp: selectHttp,
  SinkDb: sinkDb,
  SinkDrive: sinkDrive,
  ZipColumn: zipColumn,
};

export function isSupported(table: CommandTable, kind: StatementKind): boolean {
  return table[kind] !== undefined;
}

export function commandFor(table: CommandTable, stmt: Statement): Command {
  const c = table[stmt.kind] as Command | undefined;
  if (!c) throw new ScriptError(`not supported yet: ${stmt.keyword}`, 'unsupported', stmt.pos, stmt.keyword);
  return c;
}
