import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { SQLCDC } from '../repl/harness';

/** Why strace cannot stop a child at a system call here, or undefined when it can. */
export function straceUnavailable(): string | undefined {
  return spawnSync('strace', ['-qq', '-o', '/dev/null', 'true']).status === 0
    ? undefined
    : 'strace is not installed (apt-get install -y strace)';
}

/**
 * Runs the CLI with `args` in `cwd` and kills it (SIGKILL, as `kill -9`) as it enters its first call of
 * `calls` (comma-separated system calls; on `path` only, when given), before the call is made: a kill
 * between two of its system calls, at a point the test chooses. Asynchronous, so a server of the test
 * itself can answer the CLI meanwhile.
 */
export async function killCliAt(cwd: string, args: string[], calls: string, path?: string): Promise<void> {
  const env = { ...process.env };
  delete env.SQLCDC_HOME;
  const child = spawn(
    'strace',
    [
      ...['-f', '-qq', '-o', '/dev/null'],
      ...(path ? ['-P', path] : []),
      ...['-e', `trace=${calls}`, '-e', `inject=${calls}:error=EIO:signal=KILL:when=1`],
      ...[process.execPath, SQLCDC, ...args],
    ],
    { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, s) => resolve(s)));
  assert.equal(signal, 'SIGKILL', stderr);
}
