import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import {
  BlobServiceClient,
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
  type ContainerClient,
} from '@azure/storage-blob';
import { removeTempDir, tempDir } from './temp';

const AZURITE = resolve(__dirname, '../../../node_modules/.bin/azurite-blob');

export interface AzureServer {
  account: string;
  /** The account key (base64), which Azurite checks every request's signature against. */
  key: string;
  /** The account's endpoint: http://127.0.0.1:port/<account> */
  endpoint: string;
  container: string;
  /** The blob names of the container, sorted. */
  names(): Promise<string[]>;
  read(name: string): Promise<string>;
  write(name: string, body: string): Promise<void>;
  /** A SAS token for the container (read, add, create, write, delete, list) valid for an hour. */
  sas(): string;
  close(): Promise<void>;
}

/**
 * Azurite, Microsoft's Azure Storage emulator, serving Blob Storage on 127.0.0.1 and a port of its
 * own, with one account (its key checked on every request) and one container. Whoever starts it closes it.
 */
export async function startAzureServer(container = 'lake'): Promise<AzureServer> {
  const account = 'salesdata';
  const key = randomBytes(32).toString('base64');
  const location = tempDir('azurite');
  const child: ChildProcess = spawn(
    AZURITE,
    [
      ...['--blobHost', '127.0.0.1', '--blobPort', '0', '--location', location, '--silent', '--disableTelemetry'],
      // The SDK may be newer than the emulator; the requests it makes are the same.
      '--skipApiVersionCheck',
    ],
    { env: { ...process.env, AZURITE_ACCOUNTS: `${account}:${key}` }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) done(Number(m[1]));
    });
    child.on('exit', (code) => fail(new Error(`azurite ended (${code}) before listening: ${out}`)));
  });
  const endpoint = `http://127.0.0.1:${port}/${account}`;
  const credential = new StorageSharedKeyCredential(account, key);
  const client: ContainerClient = new BlobServiceClient(endpoint, credential).getContainerClient(container);
  await client.create();
  return {
    account,
    key,
    endpoint,
    container,
    async names() {
      const out: string[] = [];
      for await (const b of client.listBlobsFlat()) out.push(b.name);
      return out.sort();
    },
    async read(name) {
      return (await client.getBlobClient(name).downloadToBuffer()).toString('utf8');
    },
    async write(name, body) {
      await client.getBlockBlobClient(name).upload(body, Buffer.byteLength(body));
    },
    sas() {
      return generateBlobSASQueryParameters(
        {
          containerName: container,
          permissions: ContainerSASPermissions.parse('racwdl'),
          expiresOn: new Date(Date.now() + 3_600_000),
        },
        credential,
      ).toString();
    },
    async close() {
      child.kill('SIGKILL');
      await new Promise((done) => (child.exitCode !== null ? done(undefined) : child.once('exit', done)));
      removeTempDir(location);
    },
  };
}
