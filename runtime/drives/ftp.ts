import { posix } from 'node:path';
import type { Client } from 'basic-ftp';
import { cancelled, ScriptError } from '../errors';
import type { FtpConnection } from '../workspace/connections';
import { redactUrl } from '../workspace/redact';
import { pathInRoot } from './confine';
import type { Drive, DriveEntry } from './drive';
import { remoteStage } from './remote-stage';

const local = remoteStage('ftp');

/**
 * An FTP or FTPS (explicit TLS) site through basic-ftp. Each operation opens its own control
 * connection: change log and file transfers are few and large, and a fresh connection never inherits
 * a broken state. Publishing uploads under a dot name and renames, so a reader never sees half a file.
 */
export class FtpDrive implements Drive {
  readonly label: string;
  private readonly url: URL;

  constructor(private readonly connection: FtpConnection) {
    this.url = new URL(connection.url);
    this.label = redactUrl(connection.url);
  }

  within(path: string): string {
    return pathInRoot(path, this.connection);
  }

  private path(path: string): string {
    return posix.join(decodeURIComponent(this.url.pathname) || '/', this.within(path));
  }

  /**
   * Runs `work` on a new connection. `signal` (Ctrl-C) closes it: basic-ftp takes no signal, and a
   * transfer would otherwise run to its end before the statement could stop.
   */
  private async session<T>(what: string, work: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    // basic-ftp (16 modules, 25 ms) loads with the first FTP transfer, not with the interpreter.
    const { Client: FtpClient } = require('basic-ftp') as typeof import('basic-ftp');
    const client = new FtpClient(30_000);
    const cancel = () => client.close();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      if (signal?.aborted) throw cancelled();
      await client.access({
        host: this.url.hostname,
        port: this.url.port ? Number(this.url.port) : 21,
        user: decodeURIComponent(this.url.username) || 'anonymous',
        password: this.connection.password ?? '',
        secure: this.url.protocol === 'ftps:',
        secureOptions: this.connection.tls
          ? { rejectUnauthorized: this.connection.tls.rejectUnauthorized ?? true }
          : undefined,
      });
      return await work(client);
    } catch (e) {
      if (signal?.aborted) throw cancelled();
      if (e instanceof ScriptError) throw e;
      throw new ScriptError(`FTP ${what} on ${this.label} failed: ${(e as Error).message}`, 'runtime');
    } finally {
      signal?.removeEventListener('abort', cancel);
      client.close();
    }
  }

  list(folder: string): Promise<DriveEntry[]> {
    return this.session(`listing of ${folder}`, async (client) => {
      // Into the folder first: a LIST of a missing folder over TLS ends in a reset data socket, not a 550.
      try {
        await client.cd(this.path(folder));
      } catch (e) {
        if (isMissing(e)) return [];
        throw e;
      }
      const entries = await client.list();
      return entries.filter((e) => e.isFile).map((e) => ({ name: e.name, size: e.size, modifiedAt: e.modifiedAt }));
    });
  }

  stage(path: string): string {
    return local.stage(path);
  }

  async publish(staged: string, path: string, signal?: AbortSignal): Promise<void> {
    const target = this.path(path);
    const temp = posix.join(posix.dirname(target), `.${posix.basename(target)}.${process.pid}.tmp`);
    try {
      await this.session(
        `upload of ${path}`,
        async (client) => {
          await client.ensureDir(posix.dirname(target));
          await client.uploadFrom(staged, temp);
          try {
            await client.rename(temp, target);
          } catch {
            // Servers that refuse to rename over a file: remove the old one first.
            await client.remove(target, true);
            await client.rename(temp, target);
          }
        },
        signal,
      );
    } catch (e) {
      // Cancelled mid-upload: the part sent so far is not left on the site (best effort, on a connection of its own).
      if (signal?.aborted)
        await this.session(`removal of ${path}`, (client) => client.remove(temp, true)).catch(() => {});
      throw e;
    } finally {
      this.discard(staged);
    }
  }

  discard(staged: string): void {
    local.discard(staged);
  }

  fetch(path: string, signal?: AbortSignal): Promise<{ file: string; done(): void }> {
    return local.fetchWith(path, (file) =>
      this.session(`download of ${path}`, (client) => client.downloadTo(file, this.path(path)), signal),
    );
  }

  exists(path: string): Promise<boolean> {
    return this.session(`lookup of ${path}`, async (client) => {
      try {
        await client.size(this.path(path));
        return true;
      } catch (e) {
        if (isMissing(e)) return false;
        throw e;
      }
    });
  }

  remove(path: string): Promise<void> {
    return this.session(`removal of ${path}`, async (client) => {
      await client.remove(this.path(path), true);
    });
  }

  move(from: string, to: string): Promise<void> {
    return this.session(`move of ${from}`, async (client) => {
      await client.ensureDir(posix.dirname(this.path(to)));
      await client.rename(this.path(from), this.path(to));
    });
  }
}

function isMissing(e: unknown): boolean {
  return (e as { code?: number }).code === 550;
}
