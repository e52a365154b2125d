import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { SQLCDC } from '../repl/harness';
import { tempDir } from './temp';

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Called with the child once it runs. */
  started?: (child: ReturnType<typeof spawn>) => void;
  /** Added to the environment (which has no SQLCDC_HOME unless given here). */
  env?: Record<string, string>;
  /** Written to stdin, which is then closed. */
  input?: string;
  /**
   * The largest file the CLI may write, in bytes (prlimit --fsize): a write past it fails with EFBIG,
   * and one crossing it is cut short there, as on a disk that fills — a failure at a known point.
   */
  fileSizeLimit?: number;
}

/** Runs the built CLI in `cwd` to completion, its stdin a pipe. */
export function runCli(cwd: string, args: string[], options: CliOptions = {}): Promise<Outcome> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
  delete env.SQLCDC_HOME;
  const command = [process.execPath, SQLCDC, ...args];
  if (options.fileSizeLimit !== undefined) command.unshift('prlimit', `--fsize=${options.fileSizeLimit}`);
  const child = spawn(command[0], command.slice(1), { cwd, env: { ...env, ...options.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(options.input);
  options.started?.(child);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Runs the CLI as `runCli` does, with a temp folder (TMPDIR) of its own; `leftInTemp` is what it left there. */
export async function runCliInTemp(
  cwd: string,
  args: string[],
  options: CliOptions = {},
): Promise<Outcome & { leftInTemp: string[] }> {
  const tmp = tempDir('cli-tmp');
  const outcome = await runCli(cwd, args, { ...options, env: { ...options.env, TMPDIR: tmp } });
  return { ...outcome, leftInTemp: readdirSync(tmp) };
}
