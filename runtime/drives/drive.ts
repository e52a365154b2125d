/** A file as a folder listing shows it. */
export interface DriveEntry {
  name: string;
  size: number;
  modifiedAt?: Date;
}

/**
 * Where files go and come from: a local folder or an FTP/FTPS site. Writers write a finished file
 * locally first (`stage`), then `publish` it under its name in one step, so nobody ever sees a file
 * half-written; readers `fetch` a local copy. Paths are relative to the drive's root, `/`-separated.
 */
export interface Drive {
  /** For messages: a folder, or ftp://user@host:port/ — never a password. */
  readonly label: string;
  /**
   * The path the drive keeps `path` at: on a connection's drive, inside its root (`pathInRoot`, a
   * ScriptError when it leaves it); on the local file system without a connection, `path` itself.
   * Every other method goes through it; a statement calls it first to place the error at its text.
   */
  within(path: string): string;
  /** The files (not folders) in `folder`; an empty list when the folder does not exist. */
  list(folder: string): Promise<DriveEntry[]>;
  /** A local file path to write `path`'s content to before `publish` (in the same file system for a local drive). */
  stage(path: string): string;
  /** Makes the staged file `path`, replacing an older one atomically; the staged file is gone after. */
  publish(staged: string, path: string, signal?: AbortSignal): Promise<void>;
  /** Removes a staged file that will not be published, with whatever `stage` made for it. */
  discard(staged: string): void;
  /** A local file holding `path`'s content, and a function to call when done with it. */
  /** A local copy of `path`; `signal` stops a transfer under way (Ctrl-C). */
  fetch(path: string, signal?: AbortSignal): Promise<{ file: string; done(): void }>;
  exists(path: string): Promise<boolean>;
  remove(path: string): Promise<void>;
  /** Renames within the drive, creating the target's folder. */
  move(from: string, to: string): Promise<void>;
  /** The local file of `path` when the drive is the local file system: writers then write in place. */
  local?(path: string): string;
}

/**
 * Writes `path` on `drive` through a staged copy that `write` fills, then publishes it. A failure of
 * either leaves no staged copy behind (an FTP drive stages in a temp folder of its own).
 */
export async function writeStaged(drive: Drive, path: string, write: (staged: string) => unknown): Promise<void> {
  const staged = drive.stage(path);
  try {
    await write(staged);
    await drive.publish(staged, path);
  } catch (e) {
    drive.discard(staged);
    throw e;
  }
}
