import type * as Blob from '@azure/storage-blob';
import { cancelled, ScriptError } from '../errors';
import type { AzureConnection } from '../workspace/connections';
import { decodeUserinfo } from '../workspace/connections';
import type { DriveEntry } from './drive';
import { ObjectStoreDrive } from './object-store';

/**
 * A folder of an Azure Blob Storage container (`az://ACCOUNT:KEY@container/folder`, or a SAS token),
 * through Microsoft's SDK. A file is uploaded from its staged copy as block blobs are: its blocks
 * first, then one commit, so a reader sees the old blob or the whole new one.
 */
export class AzureDrive extends ObjectStoreDrive {
  readonly label: string;

  constructor(connection: AzureConnection) {
    super(connection);
    this.label = `az://${decodeUserinfo(new URL(connection.url).username)}/${this.bucket}/${this.prefix}`;
  }

  /** The container's client: the account's URL (`endpoint`, else Azure's public cloud), signed by the key or the SAS token. */
  private client(sdk: typeof Blob): Blob.ContainerClient {
    const url = new URL(this.connection.url);
    const account = decodeUserinfo(url.username);
    const endpoint = (url.searchParams.get('endpoint') ?? `https://${account}.blob.core.windows.net`).replace(
      /\/+$/,
      '',
    );
    const secret = this.connection.password ?? '';
    const service = url.searchParams.has('sas')
      ? new sdk.BlobServiceClient(`${endpoint}?${secret.replace(/^\?/, '')}`)
      : new sdk.BlobServiceClient(endpoint, new sdk.StorageSharedKeyCredential(account, secret));
    return service.getContainerClient(this.bucket);
  }

  /** Runs `work` on the container; `signal` (Ctrl-C) aborts the request under way. */
  private async session<T>(
    what: string,
    work: (container: Blob.ContainerClient) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    // The SDK (~200 modules) loads with the first transfer, not with the interpreter.
    const sdk = require('@azure/storage-blob') as typeof Blob;
    try {
      if (signal?.aborted) throw cancelled();
      return await work(this.client(sdk));
    } catch (e) {
      if (signal?.aborted) throw cancelled();
      if (e instanceof ScriptError) throw e;
      throw this.failure('Azure', what, reason(e));
    }
  }

  protected listKeys(folder: string, prefix: string): Promise<DriveEntry[]> {
    return this.session(`listing of ${folder}`, async (container) => {
      const entries: DriveEntry[] = [];
      for await (const item of container.listBlobsByHierarchy('/', { prefix })) {
        if (item.kind !== 'blob') continue;
        const name = item.name.slice(prefix.length);
        entries.push({ name, size: item.properties.contentLength ?? 0, modifiedAt: item.properties.lastModified });
      }
      return entries;
    });
  }

  protected async upload(staged: string, path: string, signal?: AbortSignal): Promise<void> {
    await this.session(
      `upload of ${path}`,
      (container) => container.getBlockBlobClient(this.key(path)).uploadFile(staged, { abortSignal: signal }),
      signal,
    );
  }

  protected async download(path: string, file: string, signal?: AbortSignal): Promise<void> {
    await this.session(
      `download of ${path}`,
      (container) =>
        container.getBlobClient(this.key(path)).downloadToFile(file, 0, undefined, { abortSignal: signal }),
      signal,
    );
  }

  exists(path: string): Promise<boolean> {
    return this.session(`lookup of ${path}`, (container) => container.getBlobClient(this.key(path)).exists());
  }

  remove(path: string): Promise<void> {
    return this.session(`removal of ${path}`, async (container) => {
      await container.getBlobClient(this.key(path)).deleteIfExists();
    });
  }

  move(from: string, to: string): Promise<void> {
    return this.session(`move of ${from}`, async (container) => {
      const source = container.getBlobClient(this.key(from));
      const copy = await container.getBlobClient(this.key(to)).beginCopyFromURL(source.url);
      await copy.pollUntilDone();
      await source.delete();
    });
  }
}

/** The service's error code and the first line of its message (the rest repeats request ids and times). */
function reason(e: unknown): string {
  const { code, message } = e as { code?: string; message?: string };
  const first = (message ?? String(e)).split('\n')[0];
  return code && !first.startsWith(code) ? `${code}: ${first}` : first;
}
