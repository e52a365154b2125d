import { resolve } from 'node:path';
import type { ConnectionRef } from '../script/ast';
import type { SessionEnv } from '../scope';
import type { AzureConnection, DriveConnection, FtpConnection, S3Connection } from '../workspace/connections';
import { AzureDrive } from './azure';
import type { Drive } from './drive';
import { FtpDrive } from './ftp';
import { LocalDrive } from './local';
import { S3Drive } from './s3';

export type { Drive, DriveEntry } from './drive';

/** The kinds of connection that name a drive. */
export const DRIVE_KINDS = ['drive', 'ftp', 's3', 'az'] as const;

/** A connection to a drive on another machine. */
export type RemoteConnection = FtpConnection | S3Connection | AzureConnection;

/** A drive on another machine: an FTP/FTPS site, an S3 bucket or an Azure Blob Storage container. */
export function remoteDrive(c: RemoteConnection): Drive {
  if (c.kind === 'ftp') return new FtpDrive(c);
  return c.kind === 's3' ? new S3Drive(c) : new AzureDrive(c);
}

/** The drive of a connection that names one; a `drive` connection's root is relative to `cwd`. */
export function connectionDrive(c: DriveConnection | RemoteConnection, cwd: string): Drive {
  return c.kind === 'drive' ? new LocalDrive(resolve(cwd, c.root), c) : remoteDrive(c);
}

/**
 * The drive a statement names: `PATH [conn] '/folder'` on an FTP, S3, Azure or drive connection, or the local
 * file system (relative paths against the working directory) without one.
 */
export function driveFor(session: SessionEnv, connection: ConnectionRef | undefined): Drive {
  if (!connection) return new LocalDrive(session.cwd);
  return connectionDrive(session.connections.getOf(connection.name, ...DRIVE_KINDS), session.cwd);
}
