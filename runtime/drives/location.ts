import { posix } from 'node:path';
import { STORE, storeDir } from '../changelog/store';
import { atArgument } from '../at-argument';
import { evaluateText } from '../functions/evaluate';
import type { Scope } from '../scope';
import type { ConnectionRef, Text } from '../script/ast';
import type { Drive } from './drive';
import { driveFor } from './index';
import { LocalDrive } from './local';

/** A folder on a drive, as change logs are kept: where CAPTURE writes and LOAD reads. */
export interface FolderOnDrive {
  drive: Drive;
  folder: string;
  /** For messages: the folder as the user wrote it (or the workspace store), never a password. */
  label: string;
}

/**
 * The change log folder of a CAPTURE or LOAD: `PATH [conn] '/folder'` on an FTP or drive connection,
 * `PATH 'folder'` on the local file system (relative to the working directory), and without PATH the
 * workspace's own store, `<workspace>/changelogs/<pipeline>/` (reference C.4).
 */
export function changeLogFolder(
  path: { connection?: ConnectionRef; folder: Text } | undefined,
  scope: Scope,
): FolderOnDrive {
  if (!path) return storeFolder(scope.session.workspace, scope.run.pipeline);
  const folder = evaluateText(path.folder, scope);
  const drive = driveFor(scope.session, path.connection);
  // The drive confines every path it is given; asked here first, a folder leaving a connection's root
  // fails before any work, with the caret under it.
  atArgument(path.folder, () => drive.within(folder));
  return { drive, folder, label: path.connection ? `[${path.connection.name}] ${folder}` : folder };
}

/** `<workspace>/changelogs/<pipeline>/`: where a pipeline's change logs go without PATH. */
export function storeFolder(workspace: string, pipeline: string): FolderOnDrive {
  const folder = posix.join(STORE, pipeline);
  return { drive: new LocalDrive(workspace), folder, label: storeDir(workspace, pipeline) };
}
