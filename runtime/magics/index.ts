import { ScriptError } from '../errors';
import type { Result } from '../results';
import type { MagicLine } from '../script/cell';
import { MagicTable, type Magic, type MagicHost } from './magic';
import { limitMagic, pipelineMagic, resetMagic, workspaceMagic } from './session-magics';
import { changelogMagic } from './changelog';
import { connectionMagic } from './connection';
import { listing } from './listing';
import { describeMagic } from './describe';
import { plotMagic } from './plot';
import { varMagic } from './var';

/** %help lists this table, so it lives beside it. */
const helpMagic: Magic = {
  name: 'help',
  usage: '%help',
  description: 'lists the magics; SQL CDC statements and functions are documented in docs/',
  run: (session): Result[] => [listing(['magic', 'description'], session.magics.all().map((m) => [m.usage, m.description]), 'Magics')],
};

const MAGICS: readonly Magic[] = [helpMagic, changelogMagic, connectionMagic, describeMagic, limitMagic, pipelineMagic, plotMagic, resetMagic, workspaceMagic, varMagic];

/** The language's magics and a front end's own (the kernel's %connect_info). */
export function magicTable(extra: readonly Magic[] = []): MagicTable {
  return new MagicTable([...MAGICS, ...extra]);
}

export async function* runMagic(session: MagicHost, line: MagicLine): AsyncGenerator<Result> {
  const magic = session.magics.find(line.name);
  if (!magic) {
    const known = session.magics.all().map((m) => `%${m.name}`).join(', ');
    throw new ScriptError(`unknown magic %${line.name} (known: ${known})`, 'semantic', { line: line.line, column: 1, offset: 0 });
  }
  const results = await magic.run(session, line.args);
  for await (const r of results as AsyncIterable<Result>) yield r;
}
