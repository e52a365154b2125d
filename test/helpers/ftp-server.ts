import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { removeTempDir, tempDir } from './temp';

const SCRIPT = resolve(__dirname, '../../../test/helpers/py/ftp_server.py');

export interface FtpServer {
  /** ftp://user:password@127.0.0.1:port/ (ftps:// when TLS) */
  url: string;
  port: number;
  /** The folder the server serves, removed by `close`. */
  root: string;
  user: string;
  password: string;
  close(): Promise<void>;
}

/** Why a real FTP server cannot be started here, or undefined when it can (Debian python3-pyftpdlib). */
export function ftpUnavailable(): string | undefined {
  const r = spawnSync('/usr/bin/python3', ['-c', 'import pyftpdlib'], { encoding: 'utf8' });
  if (r.status === 0) return undefined;
  return 'the FTP tests need a real FTP server: apt-get install -y python3-pyftpdlib';
}

/**
 * A real FTP server (pyftpdlib) on 127.0.0.1 and a port the system chose, serving a new temp folder.
 * `perm`: pyftpdlib's permission letters for the user (default all; 'el' lists and sizes but cannot
 * download); `rateLimit`: bytes a second it sends and receives at most. Whoever starts it closes it (an `after` hook or a `finally`): the server stops before
 * its folder is removed.
 */
export async function startFtpServer(options: { perm?: string; rateLimit?: number } = {}): Promise<FtpServer> {
  const root = tempDir('ftp');
  const user = 'uploader';
  const password = 'ftp-Pa55';
  const args = [
    SCRIPT,
    root,
    user,
    password,
    options.perm ?? '',
    ...(options.rateLimit ? [String(options.rateLimit)] : []),
  ];
  const child = spawn('/usr/bin/python3', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolvePort, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\d+)/.exec(out);
      if (m) resolvePort(Number(m[1]));
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`the FTP server exited (${code}): ${err}`)));
  });
  return {
    url: `ftp://${user}:${password}@127.0.0.1:${port}/`,
    port,
    root,
    user,
    password,
    close: () => stop(child).then(() => removeTempDir(root)),
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}
