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
import { webhookMagic } from './webhook';
import { jobMagic } from './job';

/** %help lists this table, so it lives beside it. */
const helpMagic: Magic = {
  name: 'help',
  usage: '%help',
  description: 'lists the magics; SQL CDC statements and functions are documented in docs/',
  run: (session): Result[] => [
    listing(
      ['magic', 'description'],
      session.magics.all().map((m) => [m.usage, m.description]),
      'Magics',
    ),
  ],
};

const MAGICS: readonly Magic[] = [
  helpMagic,
  changelogMagic,
  connectionMagic,
  describeMagic,
  jobMagic,
  limitMagic,
  pipelineMagic,
  plotMagic,
  resetMagic,
  varMagic,
  webhookMagic,
  workspaceMagic,
];

/** The language's magics and a front end's own (the kernel's %connect_info). */
export function magicTable(extra: readonly Magic[] = []): MagicTable {
  return new MagicTable([...MAGICS, ...extra]);
}

export async function* runMagic(session: MagicHost, line: MagicLine): AsyncGenerator<Result> {
  const magic = session.magics.find(line.name);
  if (!magic) {
    const known = session.magics
      .all()
      .map((m) => `%${m.name}`)
      .join(', ');
    throw new ScriptError(`unknown magic %${line.name} (known: ${known})`, 'semantic', {
      line: line.line,
      column: 1,
      offset: 0,
    });
  }
  const results = await magic.run(session, line.args, line);
  for await (const r of results as AsyncIterable<Result>) yield r;
}

/** A cell whose first line is `%%name args`: the magic's name, arguments and the rest of the cell. */
export function cellMagic(text: string): { name: string; args: string; body: string } | undefined {
  const m = /^\s*%%(\S+)[ \t]*([^\n]*)\n?([\s\S]*)$/.exec(text);
  return m ? { name: m[1], args: m[2].trim(), body: m[3] } : undefined;
}

export async function* runCellMagic(
  session: MagicHost,
  cell: { name: string; args: string; body: string },
): AsyncGenerator<Result> {
  const magic = session.magics.find(cell.name);
  if (!magic?.cell) {
    const known = session.magics
      .all()
      .filter((m) => m.cell !== undefined)
      .map((m) => `%%${m.name}`)
      .join(', ');
    throw new ScriptError(`unknown cell magic %%${cell.name} (known: ${known || 'none'})`, 'semantic', {
      line: 1,
      column: 1,
      offset: 0,
    });
  }
  yield* await magic.cell(session, cell.args, cell.body);
}
