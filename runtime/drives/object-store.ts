import { posix } from 'node:path';
import { ScriptError } from '../errors';
import type { AzureConnection, S3Connection } from '../workspace/connections';
import { maskValues, redactUrlsIn } from '../workspace/redact';
import { pathInRoot } from './confine';
import type { Drive, DriveEntry } from './drive';
import { remoteStage, type RemoteStage } from './remote-stage';

/**
 * A folder of a cloud object store (an S3 bucket, an Azure container): the connection's URL names
 * the bucket as its host and the folder as its path. Objects are written whole from a staged copy
 * and read through a downloaded one; the stores have no rename, so `move` copies then deletes.
 * Subclasses speak the store's API, with paths already turned into object names.
 */
export abstract class ObjectStoreDrive implements Drive {
  abstract readonly label: string;
  /** The bucket or container. */
  protected readonly bucket: string;
  /** The connection's folder in it: '' or `a/b` (no leading or trailing `/`). */
  protected readonly prefix: string;
  private readonly staging: RemoteStage;

  constructor(protected readonly connection: S3Connection | AzureConnection) {
    const url = new URL(connection.url);
    this.bucket = url.hostname;
    this.prefix = posix.normalize(decodeURIComponent(url.pathname)).replace(/^\/+|\/+$|^\.$/g, '');
    this.staging = remoteStage(connection.kind);
  }

  within(path: string): string {
    return pathInRoot(path, this.connection);
  }

  /**
   * `<store> <what> on <label> failed: <reason>`, the connection's secret masked in the SDK's reason:
   * the SAS token a URL carries, which a store or a proxy answering in its place may quote (and its
   * `sig` alone), or a key.
   */
  protected failure(store: string, what: string, reason: string): ScriptError {
    const secret = this.connection.password ?? '';
    const shown = redactUrlsIn(maskValues(reason, [secret, new URLSearchParams(secret).get('sig') ?? '']));
    return new ScriptError(`${store} ${what} on ${this.label} failed: ${shown}`, 'runtime');
  }

  /** The object name of `path` (a folder's has no trailing `/`). */
  protected key(path: string): string {
    const inside = this.within(path);
    return this.prefix && inside ? `${this.prefix}/${inside}` : this.prefix || inside;
  }

  protected abstract listKeys(folder: string, prefix: string): Promise<DriveEntry[]>;
  protected abstract upload(staged: string, path: string, signal?: AbortSignal): Promise<void>;
  protected abstract download(path: string, file: string, signal?: AbortSignal): Promise<void>;

  /** The objects right in `folder` (not in its subfolders), named relative to it. */
  list(folder: string): Promise<DriveEntry[]> {
    const base = this.key(folder);
    return this.listKeys(folder, base ? `${base}/` : '');
  }

  stage(path: string): string {
    return this.staging.stage(path);
  }

  discard(staged: string): void {
    this.staging.discard(staged);
  }

  async publish(staged: string, path: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.upload(staged, path, signal);
    } finally {
      this.discard(staged);
    }
  }

  fetch(path: string, signal?: AbortSignal): Promise<{ file: string; done(): void }> {
    return this.staging.fetchWith(path, (file) => this.download(path, file, signal));
  }

  abstract exists(path: string): Promise<boolean>;
  abstract remove(path: string): Promise<void>;
  abstract move(from: string, to: string): Promise<void>;
}
