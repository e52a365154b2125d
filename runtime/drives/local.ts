import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { removeDeadTempsNow, syncFile, syncFolder, tempPathOf } from '../workspace/files';
import { pathInRoot, type DriveOwner } from './confine';
import type { Drive, DriveEntry } from './drive';

/**
 * A local folder. `publish` is the durable rename: the staged file (written in the target's folder) is
 * fsynced, renamed over the target, and the folder fsynced, so after publish returns the file survives
 * a crash, and before it nothing under the target's name is half-written.
 */
export class LocalDrive implements Drive {
  readonly label: string;

  /** `owner`: the drive connection whose root `root` is; paths then stay inside it. */
  constructor(
    private readonly root: string,
    private readonly owner?: DriveOwner,
  ) {
    this.label = root;
  }

  within(path: string): string {
    return this.owner ? pathInRoot(path, this.owner) : path;
  }

  private at(path: string): string {
    return resolve(this.root, this.within(path));
  }

  async list(folder: string): Promise<DriveEntry[]> {
    const dir = this.at(folder);
    if (!existsSync(dir)) return [];
    if (!statSync(dir).isDirectory()) throw new Error(`${folder} is a file, not a folder`);
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const s = statSync(join(dir, e.name));
        return { name: e.name, size: s.size, modifiedAt: s.mtime };
      });
  }

  stage(path: string): string {
    const target = this.at(path);
    const folder = dirname(target);
    mkdirSync(folder, { recursive: true });
    removeDeadTempsNow(folder);
    // A dot name that does not end like the target: listings and globs of `*.eds` never see it.
    return tempPathOf(target, folder);
  }

  async publish(stagedFile: string, path: string): Promise<void> {
    const target = this.at(path);
    mkdirSync(dirname(target), { recursive: true });
    syncFile(stagedFile);
    renameSync(stagedFile, target);
    syncFolder(dirname(target));
  }

  discard(stagedFile: string): void {
    rmSync(stagedFile, { force: true });
  }

  async fetch(path: string): Promise<{ file: string; done(): void }> {
    return { file: this.at(path), done: () => undefined };
  }

  local(path: string): string {
    return this.at(path);
  }

  async exists(path: string): Promise<boolean> {
    return existsSync(this.at(path));
  }

  /**
   * Removes a file durably: a discarded log that came back after a power cut would be played again
   * by a LOAD without watermark, a cleared resume record would skip a replay's first batches.
   */
  async remove(path: string): Promise<void> {
    const target = this.at(path);
    try {
      unlinkSync(target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    syncFolder(dirname(target));
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.at(to);
    mkdirSync(dirname(target), { recursive: true });
    renameSync(this.at(from), target);
    syncFolder(dirname(target));
  }
}
