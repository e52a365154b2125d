import { resolve } from 'node:path';

/**
 * A session's working directory and workspace folder: the workspace option, else $SQLCDC_HOME,
 * else ./.sqlcdc, relative to the working directory. Kept apart from Session so that front ends can
 * find the workspace (the kernel's history) without loading the interpreter.
 */
export function sessionFolders(options: { workspace?: string; cwd?: string } = {}): { cwd: string; workspace: string } {
  const cwd = resolve(options.cwd ?? process.cwd());
  return { cwd, workspace: resolve(cwd, options.workspace ?? process.env.SQLCDC_HOME ?? '.sqlcdc') };
}
