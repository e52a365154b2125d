import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The folder name a workspace has when it is found rather than named. */
export const WORKSPACE_FOLDER = '.sqlcdc';

/** Why this workspace: named (option or --workspace), $SQLCDC_HOME, found in cwd or a parent, or new in cwd. */
export type WorkspaceOrigin = 'named' | 'SQLCDC_HOME' | 'found' | 'new';

export interface SessionFolders {
  /** Folder relative file paths resolve against. */
  cwd: string;
  workspace: string;
  origin: WorkspaceOrigin;
}

/**
 * A session's working directory and workspace folder, found as git finds a repository (reference
 * decision C.4): the workspace option, else $SQLCDC_HOME, else the nearest `.sqlcdc` folder in the
 * working directory or a parent, else a new `./.sqlcdc`. So a script started in a subfolder of a
 * project uses the project's connections and change logs. Kept apart from Session so that front
 * ends can find the workspace (the kernel's history) without loading the interpreter.
 */
export function sessionFolders(options: { workspace?: string; cwd?: string } = {}): SessionFolders {
  const cwd = resolve(options.cwd ?? process.cwd());
  if (options.workspace) return { cwd, workspace: resolve(cwd, options.workspace), origin: 'named' };
  const home = process.env.SQLCDC_HOME;
  if (home) return { cwd, workspace: resolve(cwd, home), origin: 'SQLCDC_HOME' };
  const found = nearestWorkspace(cwd);
  if (found) return { cwd, workspace: found, origin: 'found' };
  return { cwd, workspace: join(cwd, WORKSPACE_FOLDER), origin: 'new' };
}

/** The `.sqlcdc` folder in `dir` or its nearest parent that has one. */
function nearestWorkspace(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, WORKSPACE_FOLDER);
    if (isFolder(candidate)) return candidate;
    if (dirname(at) === at) return undefined;
  }
}

/** Whether `path` is a folder one may look into; false when missing or behind a parent one may not read. */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    // Missing, or a parent we may not read: either way no workspace there.
    return false;
  }
}

/** The workspace and why it is the one in use, as banners and logs show it. */
export function describeWorkspace(folders: SessionFolders): string {
  switch (folders.origin) {
    case 'named':
      return folders.workspace;
    case 'SQLCDC_HOME':
      return `${folders.workspace} (from SQLCDC_HOME)`;
    case 'found':
      return dirname(folders.workspace) === folders.cwd
        ? folders.workspace
        : `${folders.workspace} (found in a parent folder)`;
    case 'new':
      return `${folders.workspace} (new)`;
  }
}
