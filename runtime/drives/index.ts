import { resolve } from 'node:path';
import type { ConnectionRef } from '../script/ast';
import type { SessionEnv } from '../scope';
import type { Drive } from './drive';
import { FtpDrive } from './ftp';
import { LocalDrive } from './local';

export type { Drive, DriveEntry } from './drive';

/**
 * The drive a statement names: `PATH [conn] '/folder'` on an FTP or drive connection, or the local
 * file system (relative paths against the working directory) without one.
 */
export function driveFor(session: SessionEnv, connection: ConnectionRef | undefined): Drive {
  if (!connection) return new LocalDrive(session.cwd);
  const c = session.connections.getOf(connection.name, 'ftp', 'drive');
  return c.kind === 'ftp' ? new FtpDrive(c) : new LocalDrive(resolve(session.cwd, c.root), c);
}
