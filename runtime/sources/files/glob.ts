import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ScriptError } from '../../errors';

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
    else source += segmentSource(segment) + (last ? '' : '/');
  });
  const matcher = new RegExp(`^${source}$`);
  let entries: string[];
  try {
    entries = await readdir(folder, { recursive });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ScriptError(`folder not found: ${fixed || '.'} (for '${pattern}')`, 'runtime');
    throw new ScriptError(`cannot list ${fixed || '.'}: ${(e as Error).message}`, 'runtime');
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

/** The regular expression source of one path segment. */
function segmentSource(segment: string): string {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 1);
      if (close < 0) {
        out += '\\[';
        continue;
      }
      const body = segment.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\');
      out += `[${body}]`;
      i = close;
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return out;
}

/** A path relative to `base` for messages, or the absolute path when outside it. */
export function displayPath(base: string, file: string): string {
  const rel = relative(base, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}
