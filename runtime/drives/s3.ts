import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import type * as Storage from '@aws-sdk/lib-storage';
import { cancelled, ScriptError } from '../errors';
import type { S3Connection } from '../workspace/connections';
import { decodeUserinfo } from '../workspace/connections';
import type { DriveEntry } from './drive';
import { ObjectStoreDrive } from './object-store';

const GB = 1024 ** 3;
/** The largest object one CopyObject copies (S3's limit; S3 counts a GB as 2^30 bytes). */
const COPY_LIMIT = 5 * GB;

/**
 * A folder of an S3 bucket, or of an S3-compatible store (`endpoint`), through the AWS SDK. An
 * object is written whole from its staged file (one PUT, or a multipart upload completed in one step),
 * so a reader never sees half of it.
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
      throw this.failure('S3', what, message && message !== name ? `${name}: ${message}` : name);
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

  /**
   * Uploads with lib-storage's `Upload`: one PUT up to the part size (5 MB, or the size over 10,000
   * parts), else a multipart upload whose parts are read from the staged file as they go (memory holds
   * four parts), completed in one step, so a reader never sees half of it. A failed part makes
   * `Upload` abort the multipart upload itself; at Ctrl-C the parts under way are cut off (their
   * client destroyed, no retry) and the upload is aborted here, so no parts are left stored and billed.
   */
  protected async upload(staged: string, path: string, signal?: AbortSignal): Promise<void> {
    await this.session(
      `upload of ${path}`,
      async (client, sdk) => {
        // Loads with the first upload, as the SDK does.
        const { Upload } = require('@aws-sdk/lib-storage') as typeof Storage;
        const parts = new sdk.S3Client(this.config());
        const stop = new AbortController();
        // Inside the SDK's retries: a part cut off at Ctrl-C is not sent again.
        parts.middlewareStack.add(
          (next) => (args) => {
            if (stop.signal.aborted) throw cancelled();
            return next(args);
          },
          { step: 'finalizeRequest', priority: 'low' },
        );
        const params = { Bucket: this.bucket, Key: this.key(path) };
        const body = createReadStream(staged);
        const upload = new Upload({
          client: parts,
          params: { ...params, Body: body, ContentLength: statSync(staged).size },
          abortController: stop,
        });
        const cut = () => {
          stop.abort();
          parts.destroy();
        };
        signal?.addEventListener('abort', cut, { once: true });
        try {
          await upload.done();
        } catch (e) {
          if (signal?.aborted && upload.uploadId) await abandon(client, sdk, { ...params, UploadId: upload.uploadId });
          throw e;
        } finally {
          signal?.removeEventListener('abort', cut);
          parts.destroy();
          // A cut-off upload stops reading the file midway: its descriptor is closed here, not by the collector.
          body.destroy();
        }
      },
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

  /**
   * Copies, then deletes the source. One CopyObject copies at most 5 GB; a larger object would need
   * a multipart copy (UploadPartCopy), which the S3-compatible stores the tests run against do not
   * implement, so it is refused before anything is copied, with the size and the limit.
   */
  move(from: string, to: string): Promise<void> {
    return this.session(`move of ${from}`, async (client, sdk) => {
      const source = this.key(from);
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: source }));
      const size = head.ContentLength ?? 0;
      if (size > COPY_LIMIT)
        throw new ScriptError(
          `S3 move of ${from} on ${this.label} failed: it is ${(size / GB).toFixed(1)} GB, over S3's 5 GB limit for copying an object in one request`,
          'runtime',
        );
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

/**
 * Aborts a multipart upload cut off by Ctrl-C, so that its stored parts are freed. A store that does
 * not answer within 30 s, or refuses, leaves it pending: Ctrl-C must end the statement, and a bucket
 * lifecycle rule (AbortIncompleteMultipartUpload) is S3's own remedy for uploads left so.
 */
async function abandon(
  client: S3.S3Client,
  sdk: typeof S3,
  upload: { Bucket: string; Key: string; UploadId: string },
): Promise<void> {
  try {
    await client.send(new sdk.AbortMultipartUploadCommand(upload), { abortSignal: AbortSignal.timeout(30_000) });
  } catch {
    // The statement ends as cancelled either way (above).
  }
}
