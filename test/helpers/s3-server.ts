import { request, createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3Client, ListObjectsV2Command, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { removeTempDir, tempDir } from './temp';

export interface S3Server {
  /** http://127.0.0.1:port */
  endpoint: string;
  /** The bucket made for the test. */
  bucket: string;
  /** The object keys of the bucket, sorted. */
  keys(): Promise<string[]>;
  read(key: string): Promise<string>;
  readBytes(key: string): Promise<Buffer>;
  write(key: string, body: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * An S3-compatible server (s3rver: the S3 REST API over HTTP on 127.0.0.1, objects kept in a temp
 * folder) with one bucket, taking the access key id `keyId` (or each of a list) and its own, S3RVER. s3rver refuses an
 * unknown key id but does not verify SigV4 signatures, so a wrong secret goes unnoticed. The helpers
 * read and write through the AWS SDK, as a user's other tools would.
 */
export async function startS3Server(keyId: string | readonly string[], bucket = 'lake'): Promise<S3Server> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // s3rver is a dev dependency and CommonJS; loaded here so that the runtime never sees it.
  const S3rver = require('s3rver') as new (options: object) => {
    run(): Promise<{ port: number }>;
    close(): Promise<void>;
  };
  const accounts = require('s3rver/lib/models/account') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  };
  for (const id of typeof keyId === 'string' ? [keyId] : keyId) accounts.DUMMY_ACCOUNT.createKeyPair(id, 'unchecked');
  const directory = tempDir('s3');
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  return {
    endpoint,
    bucket,
    async keys() {
      const out = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (out.Contents ?? []).map((o) => o.Key!).sort();
    },
    async read(key) {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return out.Body!.transformToString();
    },
    async readBytes(key) {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await out.Body!.transformToByteArray());
    },
    async write(key, body) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    async close() {
      client.destroy();
      await server.close();
      removeTempDir(directory);
    },
  };
}

export interface S3Proxy {
  /** http://127.0.0.1:port, to give sqlcdc instead of the server's. */
  endpoint: string;
  /** Each request's method and path with its query, in the order they arrived. */
  requests: string[];
  /** Resolves when a request `hold` picked has arrived (it is never forwarded nor answered). */
  held: Promise<string>;
  close(): Promise<void>;
}

export interface S3ProxyOptions {
  /** Picks requests that get no answer, so a test can interrupt an upload at a known point. */
  hold?: (request: string) => boolean;
  /** Edits the headers of the server's answer to `request` (e.g. a HEAD's size, for what s3rver cannot store). */
  answer?: (request: string, headers: IncomingHttpHeaders) => void;
}

/**
 * A pass-through HTTP proxy in front of an S3 server that records the requests it is sent (`PUT
 * /lake/a.csv?partNumber=2&uploadId=…`), for what s3rver cannot show (the multipart calls made) or
 * does not implement (listing or aborting multipart uploads).
 */
export async function startS3Proxy(target: string, { hold, answer }: S3ProxyOptions = {}): Promise<S3Proxy> {
  const requests: string[] = [];
  let heldOne!: (request: string) => void;
  const held = new Promise<string>((resolve) => (heldOne = resolve));
  const to = new URL(target);
  const server = createServer((req, res) => {
    const line = `${req.method} ${req.url}`;
    requests.push(line);
    if (hold?.(line)) {
      heldOne(line);
      req.resume();
      return;
    }
    const forward = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (reply: IncomingMessage) => {
        answer?.(line, reply.headers);
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    held,
    close: () => {
      server.closeAllConnections();
      return new Promise((done) => server.close(() => done()));
    },
  };
}
