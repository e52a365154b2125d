import type { Column } from '../dataset/types';
import { ScriptError } from '../errors';
import type { Text } from '../script/ast';

/** The parts of a comma-separated column list; a comma inside `[…]` belongs to the name there. */
export function splitList(text: string): string[] {
  return text.split(/,(?![^[\]]*\])/);
}

/** A comma-separated column list as written in INCLUDE / EXCLUDE / ON KEYS texts. */
export function splitNames(text: string): string[] {
  return splitList(text)
    .map((s) => s.trim())
    .map((s) => (s.startsWith('[') && s.endsWith(']') ? s.slice(1, -1) : s))
    .filter((s) => s !== '');
}

function resolve(columns: readonly Column[], text: Text, what: string): number[] {
  const names = splitNames(text.value);
  if (names.length === 0) throw new ScriptError(`${what} lists no column`, 'semantic', text.pos);
  return names.map((name) => {
    const i = columns.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
    if (i < 0) {
      const known = columns.map((c) => c.name).join(', ') || '(none)';
      throw new ScriptError(`${what}: unknown column '${name}' (columns: ${known})`, 'runtime', text.pos);
    }
    return i;
  });
}

/**
 * The ordinals FORMAT uses: INCLUDE's columns in the order listed, INCLUDE NOT's complement, or
 * every column but EXCLUDE's (EXCLUDE is ignored when INCLUDE is given, spec 4.2). Listed names must
 * exist, so a typo is an error rather than a silently missing field.
 */
export function selectFields(
  columns: readonly Column[],
  include: Text | undefined,
  includeNot: boolean,
  exclude: Text | undefined,
): number[] {
  const all = columns.map((_, i) => i);
  if (include) {
    const listed = resolve(columns, include, includeNot ? 'INCLUDE NOT' : 'INCLUDE');
    return includeNot ? all.filter((i) => !listed.includes(i)) : [...new Set(listed)];
  }
  if (exclude) {
    const listed = resolve(columns, exclude, 'EXCLUDE');
    return all.filter((i) => !listed.includes(i));
  }
  return all;
}
