import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import { cancelled, ScriptError } from '../errors';
import type { S3Connection } from '../workspace/connections';
import { decodeUserinfo } from '../workspace/connections';
import type { DriveEntry } from './drive';
import { ObjectStoreDrive } from './object-store';

/**
 * A folder of an S3 bucket, or of an S3-compatible store (`endpoint`), through the AWS SDK. An
 * object is written by one PUT of the whole staged file, so a reader never sees half of it.
 */
export class S3Drive extends ObjectStoreDrive {
  readonly label: string;

  constructor(connection: S3Connection) {
    super(connection);
    this.label = `s3://${this.bucket}/${this.prefix}`;
  }

  /**
   * Runs `work` with a client of its own, destroyed after: a client keeps its sockets open, which
   * would keep `sqlcdc run` from ending. `signal` (Ctrl-C) aborts the request under way.
   */
  private async session<T>(
    what: string,
    work: (client: S3.S3Client, sdk: typeof S3) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    // The SDK's notice about Node versions it will stop supporting would land in the user's cell output.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    // The SDK (~100 modules) loads with the first S3 transfer, not with the interpreter.
    const sdk = require('@aws-sdk/client-s3') as typeof S3;
    const client = new sdk.S3Client(this.config());
    try {
      if (signal?.aborted) throw cancelled();
      return await work(client, sdk);
    } catch (e) {
      if (signal?.aborted) throw cancelled();
      if (e instanceof ScriptError) throw e;
      const { name, message } = e as Error;
      throw new ScriptError(
        `S3 ${what} on ${this.label} failed: ${message && message !== name ? `${name}: ${message}` : name}`,
        'runtime',
      );
    } finally {
      client.destroy();
    }
  }

  private config(): S3.S3ClientConfig {
    const url = new URL(this.connection.url);
    const endpoint = url.searchParams.get('endpoint') ?? undefined;
    const user = decodeUserinfo(url.username);
    return {
      region: url.searchParams.get('region') ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
      ...(endpoint ? { endpoint, forcePathStyle: url.searchParams.get('path_style') !== 'false' } : {}),
      ...(user ? { credentials: { accessKeyId: user, secretAccessKey: this.connection.password ?? '' } } : {}),
      // Checksums only where S3 requires them: S3-compatible stores refuse the SDK's default trailing checksums.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 30_000, requestTimeout: 300_000 },
    };
  }

  protected listKeys(folder: string, prefix: string): Promise<DriveEntry[]> {
    return this.session(`listing of ${folder}`, async (client, sdk) => {
      const entries: DriveEntry[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new sdk.ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: prefix,
            Delimiter: '/',
            ContinuationToken: token,
          }),
        );
        for (const o of page.Contents ?? []) {
          const name = o.Key!.slice(prefix.length);
          // A key ending in `/` is a folder marker some tools make, not a file.
          if (name && !name.endsWith('/')) entries.push({ name, size: o.Size ?? 0, modifiedAt: o.LastModified });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return entries;
    });
  }

  protected async upload(staged: string, path: string, signal?: AbortSignal): Promise<void> {
    await this.session(
      `upload of ${path}`,
      (client, sdk) =>
        client.send(
          new sdk.PutObjectCommand({
            Bucket: this.bucket,
            Key: this.key(path),
            Body: createReadStream(staged),
            ContentLength: statSync(staged).size,
          }),
          { abortSignal: signal },
        ),
      signal,
    );
  }

  protected download(path: string, file: string, signal?: AbortSignal): Promise<void> {
    return this.session(
      `download of ${path}`,
      async (client, sdk) => {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: this.key(path) }), {
          abortSignal: signal,
        });
        await pipeline(object.Body as Readable, createWriteStream(file), { signal });
      },
      signal,
    );
  }

  exists(path: string): Promise<boolean> {
    return this.session(`lookup of ${path}`, async (client, sdk) => {
      try {
        await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: this.key(path) }));
        return true;
      } catch (e) {
        if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
        throw e;
      }
    });
  }

  remove(path: string): Promise<void> {
    return this.session(`removal of ${path}`, async (client, sdk) => {
      await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(path) }));
    });
  }

  move(from: string, to: string): Promise<void> {
    return this.session(`move of ${from}`, async (client, sdk) => {
      const source = this.key(from);
      await client.send(
        new sdk.CopyObjectCommand({
          Bucket: this.bucket,
          Key: this.key(to),
          CopySource: `${this.bucket}/${source.split('/').map(encodeURIComponent).join('/')}`,
        }),
      );
      await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: source }));
    });
  }
}
