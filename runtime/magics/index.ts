import { ScriptError } from '../errors';
import type { Result } from '../results';
import type { Session } from '../session';
import type { Magic, MagicLine } from './magic';
import { helpMagic, limitMagic, resetMagic, workspaceMagic } from './session-magics';
import { connectionMagic } from './connection';
import { describeMagic } from './describe';
import { plotMagic } from './plot';
import { varMagic } from './var';

const magics = new Map<string, Magic>();

/** Each magic module's export is listed here; the registry is the single source for %help and completion. */
export function registerMagic(magic: Magic): void {
  magics.set(magic.name.toLowerCase(), magic);
}

for (const m of [helpMagic, connectionMagic, describeMagic, limitMagic, plotMagic, resetMagic, workspaceMagic, varMagic]) registerMagic(m);

export function allMagics(): Magic[] {
  return [...magics.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function findMagic(name: string): Magic | undefined {
  return magics.get(name.toLowerCase());
}

/**
 * Splits a cell into its leading magic lines (`%name args`, blank lines and `--` comments between
 * them allowed) and the SQL CDC body after them. `bodyOffset` is where the body starts in the cell,
 * so statement positions still refer to the whole cell; `magicsEnd` is where the last magic line ends
 * (0 when there is none), before the blank lines and comments that follow it.
 */
export function splitMagics(text: string): { magics: MagicLine[]; body: string; bodyOffset: number; magicsEnd: number } {
  const out: MagicLine[] = [];
  let offset = 0;
  let magicsEnd = 0;
  let line = 1;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const end = nl < 0 ? text.length : nl + 1;
    const raw = text.slice(offset, end).trim();
    if (raw.startsWith('%')) {
      const m = /^%(\S*)\s*(.*)$/s.exec(raw)!;
      out.push({ name: m[1], args: m[2].trim(), line });
      magicsEnd = end;
    } else if (raw !== '' && !raw.startsWith('--')) {
      break;
    }
    offset = end;
    line++;
  }
  return { magics: out, body: text.slice(offset), bodyOffset: offset, magicsEnd };
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
