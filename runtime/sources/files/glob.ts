import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ScriptError } from '../../errors';
import { redactUrlsIn } from '../../workspace/redact';

/** Whether a path has glob characters (`*`, `?`, `[`). */
export function isGlob(path: string): boolean {
  return /[*?[]/.test(path);
}

/**
 * The files a glob matches under `base`, sorted. `*` and `?` match within one folder level, `**` any
 * number of levels, `[abc]` one of the characters. The folder part before the first wildcard must exist.
 */
export async function expandGlob(base: string, pattern: string): Promise<string[]> {
  const segments = pattern.replace(/\\/g, '/').split('/');
  const first = segments.findIndex(isGlob);
  const fixed = segments.slice(0, first).join('/');
  const folder = isAbsolute(pattern) ? resolve('/', fixed) : resolve(base, fixed);
  const rest = segments.slice(first);
  const recursive = rest.length > 1;
  let source = '';
  rest.forEach((segment, k) => {
    const last = k === rest.length - 1;
    if (segment === '**') source += last ? '.*' : '(?:[^/]+/)*';
    else source += globSource(segment, PATH_GLOB) + (last ? '' : '/');
  });
  const matcher = new RegExp(`^${source}$`);
  let entries: string[];
  try {
    entries = await readdir(folder, { recursive });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // A URL written as a path (`ftp://user:password@host/*.csv`, meant for a drive) is no folder here.
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new ScriptError(redactUrlsIn(`folder not found: ${fixed || '.'} (for '${pattern}')`), 'runtime');
    throw new ScriptError(redactUrlsIn(`cannot list ${fixed || '.'}: ${(e as Error).message}`), 'runtime');
  }
  const matches: string[] = [];
  for (const entry of entries) {
    const rel = sep === '/' ? entry : entry.split(sep).join('/');
    if (!matcher.test(rel)) continue;
    const full = join(folder, entry);
    if ((await stat(full)).isFile()) matches.push(full);
  }
  return matches.sort();
}

/** How a glob dialect reads its wildcards. */
export interface GlobSyntax {
  /** The regular expression of one character that `?` stands for (and `*` for any run of). */
  anyChar: string;
  /** The character that, first in `[…]`, makes the class match every character but those listed. */
  negate: '!' | '^';
}

/** File paths: wildcards stay within one folder level. */
export const PATH_GLOB: GlobSyntax = { anyChar: '[^/]', negate: '!' };

/** The regular expression source of a glob: `*`, `?` and `[…]` classes, every other character literal. */
export function globSource(glob: string, syntax: GlobSyntax): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += `${syntax.anyChar}*`;
    else if (c === '?') out += syntax.anyChar;
    else {
      const negated = c === '[' && glob[i + 1] === syntax.negate;
      const first = i + (negated ? 2 : 1);
      // A `]` first in a class is one of its characters, as in POSIX and SQLite GLOB.
      const close = c === '[' ? glob.indexOf(']', first + 1) : -1;
      if (close < 0) out += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      else {
        const body = glob.slice(first, close);
        for (const [, from, to] of body.matchAll(/(.)-(.)/gsu)) {
          if (from > to)
            throw new ScriptError(
              `invalid glob '${glob}': the range ${from}-${to} in [${body}] runs backwards`,
              'runtime',
            );
        }
        out += `[${negated ? '^' : ''}${body.replace(/[\]\\]/g, '\\$&')}]`;
        i = close;
      }
    }
  }
  return out;
}

/** A path relative to `base` for messages, or the absolute path when outside it. */
export function displayPath(base: string, file: string): string {
  const rel = relative(base, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}
