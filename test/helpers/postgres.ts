import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { selfSigned } from './self-signed';
import { removeTempDir, tempDir } from './temp';

export interface PostgresServer {
  /** A connection URL for a database of its own: `postgres://postgres@/db?host=<socket folder>`. */
  newDatabase(): Promise<string>;
  /** With `tcp` or `tls`: the TCP port on 127.0.0.1 (taking TLS with a self-signed certificate with `tls`). */
  port?: number;
  stop(): void;
}

export interface PostgresOptions {
  /**
   * Also listen on 127.0.0.1 with TLS on (a self-signed certificate for CN=localhost), as managed
   * PostgreSQL services do. TLS needs TCP: PostgreSQL takes no TLS on its Unix socket.
   */
  tls?: boolean;
  /** Also listen on 127.0.0.1, TLS off (`ssl=off`, as a server on a private network may run). */
  tcp?: boolean;
}

function binFolder(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')));
  return versions.length ? join(root, versions.sort((a, b) => Number(b) - Number(a))[0], 'bin') : undefined;
}

/** Why a real PostgreSQL cannot be started here, or undefined when it can. */
export function postgresUnavailable(): string | undefined {
  if (binFolder()) return undefined;
  return 'the PostgreSQL tests need a real server: apt-get install -y postgresql (CI installs it)';
}

/**
 * A real PostgreSQL server for one test file: initdb into a temp folder, pg_ctl listening only on a
 * Unix socket in that folder (no TCP port another test process could take). PostgreSQL refuses to run
 * as root, so as root it runs as the `postgres` user the Debian package creates.
 */
export function startPostgres(options: PostgresOptions = {}): PostgresServer {
  const bin = binFolder();
  if (!bin) throw new Error(postgresUnavailable());
  const dir = tempDir('pg');
  const asRoot = userInfo().uid === 0;
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    const r = spawnSync(command, argv, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${tool} failed: ${r.stderr || r.stdout}`);
  };
  const owner = (path: string) => {
    if (!asRoot) return;
    const pg = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(path, Number(pg.stdout.trim()), Number(gid.stdout.trim()));
  };
  owner(dir);
  chmodSync(dir, 0o755);
  run('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const tls = options.tls ? tlsSettings(dir, owner) : '';
  const start = (listen: string) =>
    run('pg_ctl', [
      '-D',
      join(dir, 'data'),
      '-o',
      `-k ${dir} ${listen} -c fsync=off${tls}`,
      '-l',
      join(dir, 'log'),
      '-w',
      'start',
    ]);
  const tcp = options.tls || options.tcp;
  let tcpPort: number | undefined;
  if (!tcp) start('-c listen_addresses=');
  // The port is free when picked, but another process may take it before the server binds it: pick again.
  for (let attempt = 1; tcp && tcpPort === undefined; attempt++) {
    const port = freePort();
    try {
      start(`-c listen_addresses=127.0.0.1 -p ${port}`);
      tcpPort = port;
    } catch (e) {
      if (attempt === 5) throw e;
    }
  }
  let databases = 0;
  // The port names the socket file too (.s.PGSQL.<port>).
  const socket = `host=${encodeURIComponent(dir)}${tcpPort === undefined ? '' : `&port=${tcpPort}`}`;
  const base = `postgres://postgres@/postgres?${socket}`;
  return {
    port: tcpPort,
    async newDatabase() {
      const name = `t${process.pid}_${++databases}`;
      const { Client } = await import('pg');
      const client = new Client({ connectionString: base });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return `postgres://postgres@/${name}?${socket}`;
    },
    stop() {
      try {
        run('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
      } finally {
        removeTempDir(dir);
      }
    },
  };
}

/** A self-signed certificate and its key in `dir`, readable only by the server; the settings naming them. */
function tlsSettings(dir: string, owner: (path: string) => void): string {
  const { cert, key } = selfSigned(dir, '/CN=localhost');
  for (const file of [cert, key]) owner(file);
  chmodSync(key, 0o600);
  return ` -c ssl=on -c ssl_cert_file=${cert} -c ssl_key_file=${key}`;
}

/** A TCP port on 127.0.0.1 nobody listens on right now (the kernel's pick for port 0). */
function freePort(): number {
  const r = spawnSync(
    process.execPath,
    ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"],
    { encoding: 'utf8' },
  );
  return Number(r.stdout.trim());
}
