import { ScriptError } from '../errors';

/**
 * `path` as a path under the folder it starts in: `/` and `\` separate folders, `.` and `..` are
 * resolved, leading separators dropped (the folder itself). Undefined when a `..` climbs above it.
 */
export function underRoot(path: string): string | undefined {
  const parts: string[] = [];
  for (const part of path.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.pop() === undefined) return undefined;
  }
  return parts.join('/');
}

/** The connection a drive belongs to, as messages name it. */
export interface DriveOwner {
  kind: string;
  name: string;
}

/**
 * A path of the script on a connection's drive, relative to the connection's root: a leading `/` is
 * the root itself, and a `..` may not climb above it (docs/drives.md "Where files go"). Without a
 * connection paths are the local file system's and stay free.
 */
export function pathInRoot(path: string, owner: DriveOwner): string {
  const inside = underRoot(path);
  if (inside === undefined)
    throw new ScriptError(`'${path}' leaves the root of ${owner.kind} connection ${owner.name}`, 'runtime');
  return inside;
}
