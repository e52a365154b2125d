import { isAbsolute, join, relative, sep } from 'node:path';
import { writeFileAtomic } from '../workspace/files';

/**
 * A watermark file a run writes once every statement succeeded, as data rather than an action: a job
 * run's success record carries its writes, so the next start of the job can tell, from the run id
 * each watermark file holds, whether a killed run's writes happened, and redo them (jobs/recovery.ts).
 */
export interface CommitWrite {
  /** The file, relative to the workspace ('/' separators): the record stays valid if the workspace moves. */
  file: string;
  content: string;
}

export function commitWrite(workspace: string, path: string, content: string): CommitWrite {
  return { file: relative(workspace, path).split(sep).join('/'), content };
}

/**
 * Where a write of a record goes; undefined for one that leaves the workspace's `cdc/` folder, which
 * no run writes: a record edited by hand is not a way to write anywhere.
 */
export function commitPath(workspace: string, write: CommitWrite): string | undefined {
  const parts = typeof write?.file === 'string' ? write.file.split('/') : [];
  if (parts[0] !== 'cdc' || parts.some((p) => p === '' || p === '.' || p === '..') || isAbsolute(write.file))
    return undefined;
  return typeof write.content === 'string' ? join(workspace, ...parts) : undefined;
}

/** Writes each file atomically (temp file, flush, rename), in order. */
export function applyCommit(workspace: string, writes: readonly CommitWrite[]): void {
  for (const w of writes) {
    const path = commitPath(workspace, w);
    if (path) writeFileAtomic(path, w.content);
  }
}
