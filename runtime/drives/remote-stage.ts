import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** The local side of a drive on another machine: where its files are written before upload, and fetched to. */
export interface RemoteStage {
  stage(path: string): string;
  discard(staged: string): void;
  /** A local copy of `path` that `download` writes to the file it is given; nothing is left if it fails. */
  fetchWith(path: string, download: (file: string) => Promise<unknown>): Promise<{ file: string; done(): void }>;
}

/**
 * For a drive on another machine (FTP, S3, Azure, named by `kind`): each file is staged, or fetched,
 * in a temp folder of its own (`sqlcdc-<kind>-stage-…`, `sqlcdc-<kind>-fetch-…`), so it keeps its
 * name (writers infer a format from it) and goes with its folder.
 */
export function remoteStage(kind: string): RemoteStage {
  const stagePrefix = `sqlcdc-${kind}-stage-`;
  return {
    stage: (path) => join(mkdtempSync(join(tmpdir(), stagePrefix)), basename(path)),
    discard(staged) {
      rmSync(staged, { force: true });
      // The folder `stage` made for it (only that one: a caller may stage elsewhere).
      if (basename(dirname(staged)).startsWith(stagePrefix)) rmSync(dirname(staged), { recursive: true, force: true });
    },
    async fetchWith(path, download) {
      const dir = mkdtempSync(join(tmpdir(), `sqlcdc-${kind}-fetch-`));
      const done = () => rmSync(dir, { recursive: true, force: true });
      const file = join(dir, basename(path));
      try {
        await download(file);
      } catch (e) {
        done();
        throw e;
      }
      return { file, done };
    },
  };
}
