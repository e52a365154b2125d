import { ScriptError } from '../errors';
import type { Statement, StatementKind } from '../script/ast';
import type { Command } from './command';

/**
 * Statement kind → command. A kind without an entry parses but fails when run with
 * "not supported yet: <COMMAND>"; each issue that gives a statement its meaning registers it here.
 */
const commands: Partial<{ [K in StatementKind]: Command<Extract<Statement, { kind: K }>> }> = {};

export function registerCommand<K extends StatementKind>(kind: K, command: Command<Extract<Statement, { kind: K }>>): void {
  (commands as Record<string, unknown>)[kind] = command;
}

export function commandFor(stmt: Statement): Command {
  const c = commands[stmt.kind] as Command | undefined;
  if (!c) throw new ScriptError(`not supported yet: ${stmt.keyword}`, 'unsupported', stmt.pos, stmt.keyword);
  return c;
}
