import { ScriptError } from '../errors';
import type { Result } from '../results';
import type { Session } from '../session';
import type { MagicLine } from '../script/cell';
import type { Magic } from './magic';
import { connectionMagic } from './connection';
import { listing } from './listing';
import { limitMagic, resetMagic, workspaceMagic } from './session-magics';
import { varMagic } from './var';

/** %help lists this registry, so it is defined beside it. */
const helpMagic: Magic = {
  name: 'help',
  usage: '%help',
  description: 'lists the magics; SQL CDC statements and functions are documented in docs/',
  run: (): Result[] => [listing(['magic', 'description'], allMagics().map((m) => [m.usage, m.description]), 'Magics')],
};

const magics = new Map<string, Magic>();

/** Each magic module's export is listed here; the registry is the single source for %help and completion. */
export function registerMagic(magic: Magic): void {
  magics.set(magic.name.toLowerCase(), magic);
}

for (const m of [helpMagic, connectionMagic, limitMagic, resetMagic, workspaceMagic, varMagic]) registerMagic(m);

export function allMagics(): Magic[] {
  return [...magics.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function findMagic(name: string): Magic | undefined {
  return magics.get(name.toLowerCase());
}

export async function* runMagic(session: Session, line: MagicLine): AsyncGenerator<Result> {
  const magic = findMagic(line.name);
  if (!magic) {
    const known = allMagics().map((m) => `%${m.name}`).join(', ');
    throw new ScriptError(`unknown magic %${line.name} (known: ${known})`, 'semantic', { line: line.line, column: 1, offset: 0 });
  }
  const results = await magic.run(session, line.args);
  for await (const r of results as AsyncIterable<Result>) yield r;
}
