import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** The built kernel, as the kernelspec names it. */
export const KERNEL = join(__dirname, '..', '..', 'kernel', 'main.js');

/**
 * A connection file in `dir` with IPC endpoints in that folder: freed TCP ports could be taken by
 * another test process.
 */
export function ipcConnectionFile(dir: string): string {
  const file = join(dir, 'kernel.json');
  writeFileSync(
    file,
    JSON.stringify({
      shell_port: 1,
      iopub_port: 2,
      stdin_port: 3,
      control_port: 4,
      hb_port: 5,
      ip: join(dir, 'kernel'),
      key: 'k',
      transport: 'ipc',
      signature_scheme: 'hmac-sha256',
      kernel_name: 'sqlcdc',
    }),
  );
  return file;
}

/**
 * Starts the kernel as jupyter_client would (the connection file as argument, the notebook's folder
 * as working directory; `env` adds to the environment, an undefined value removes a variable) and
 * resolves once it has written its first log line, which it does before binding its sockets.
 */
export async function startKernel(
  t: { after(fn: () => void): void },
  options: { dir: string; cwd: string; args?: string[]; env?: Record<string, string | undefined> },
): Promise<{ kernel: ChildProcessByStdio<null, null, Readable>; file: string; firstLine: string }> {
  const file = ipcConnectionFile(options.dir);
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const kernel = spawn(process.execPath, [KERNEL, file, ...(options.args ?? [])], {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(() => kernel.kill());
  let log = '';
  kernel.stderr.setEncoding('utf8');
  while (!log.includes('\n')) {
    const [chunk] = (await Promise.race([
      once(kernel.stderr, 'data'),
      once(kernel, 'exit').then(() => [undefined]),
    ])) as [string | undefined];
    if (chunk === undefined) throw new Error(`the kernel exited before logging; stderr: ${log}`);
    log += chunk;
  }
  return { kernel, file, firstLine: log.slice(0, log.indexOf('\n')) };
}
