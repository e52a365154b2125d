import { spawn } from 'node:child_process';
import { SQLCDC } from '../repl/harness';

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI in `cwd` to completion; `started` is called with the child once it runs. */
export function runCli(cwd: string, args: string[], started?: (child: ReturnType<typeof spawn>) => void): Promise<Outcome> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
  delete env.SQLCDC_HOME;
  const child = spawn(process.execPath, [SQLCDC, ...args], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  started?.(child);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
