import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient, StorageSharedKeyCredential, type ContainerClient } from '@azure/storage-blob';
import { startAzureServer, type AzureServer } from '../helpers/azure-server';
import { ftpUnavailable, startFtpServer, type FtpServer } from '../helpers/ftp-server';
import { startS3Server, type S3Server } from '../helpers/s3-server';
import { tempSession } from '../helpers/session';
import { DOCS, runOk } from './harness';

/**
 * The `%connection add` lines for S3, Azure and FTP that drives.md and session.md's table of URLs show,
 * each run as written with only where the service is and its credentials swapped for a test server's
 * (s3rver, Azurite, pyftpdlib on 127.0.0.1), then used by drives.md's own SINK / PUSH line; the files
 * are then looked for with the service's own client. What each rewrite swaps is said beside it.
 */
const drivesMd = readFileSync(join(DOCS, 'drives.md'), 'utf8');
const sessionMd = readFileSync(join(DOCS, 'session.md'), 'utf8');
const { session } = tempSession(
  {
    'orders.csv':
      'id,status,total,created\n1,new,10.50,2024-03-01 10:00:00\n2,new,20,2024-03-02 11:00:00\n3,new,5,2024-03-03 12:00:00\n',
  },
  'docs-connections',
);
const noFtp = ftpUnavailable();
let s3: S3Server;
let azure: AzureServer;
let ftp: FtpServer | undefined;
before(async () => {
  // The key ids of drives.md's lines (s3rver checks the id, not the secret).
  s3 = await startS3Server(['AKIAIOSFODNN7EXAMPLE', 'minioadmin'], 'sales-bucket');
  azure = await startAzureServer('exports');
  if (!noFtp) ftp = await startFtpServer();
  await runOk(
    session,
    "SELECT * FROM DRIVE 'orders.csv';\nAPPLY SCHEMA ( int id, string status, decimal(10,2) total, datetime created );",
    'the orders',
  );
});
after(async () => {
  await session.close();
  await s3?.close();
  await azure?.close();
  await ftp?.close();
});

/** The one line of a page that starts with `start` (in a block, or in a table cell's code). */
function lineOf(markdown: string, start: string): string {
  const found = [...markdown.matchAll(/(?:^ *|`)(%connection add [^`\n]*)/gm)]
    .map((m) => m[1].trim())
    .filter((l) => l.startsWith(start));
  assert.equal(found.length, 1, `one line starts with ${start}: ${found.join(' | ')}`);
  return found[0];
}

/** drives.md's SINK line that writes a Parquet file a day into `[lake]`, on the connection `name`. */
function sinkOn(name: string): string {
  const line = /^SINK INTO DRIVE \[lake\] .*$/m.exec(drivesMd)![0];
  return line.replace('[lake]', `[${name}]`);
}
const DAY_FILES = [
  'sales/2024/03/01/orders.parquet',
  'sales/2024/03/02/orders.parquet',
  'sales/2024/03/03/orders.parquet',
];

/** The S3 client of a user's other tools, on the test server. */
function s3Client(): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
}

async function makeBucket(bucket: string): Promise<void> {
  const client = s3Client();
  await client.send(new CreateBucketCommand({ Bucket: bucket })).finally(() => client.destroy());
}

async function s3Keys(bucket: string): Promise<string[]> {
  const client = s3Client();
  const out = await client.send(new ListObjectsV2Command({ Bucket: bucket })).finally(() => client.destroy());
  return (out.Contents ?? []).map((o) => o.Key!).sort();
}

test("drives.md's S3 lines: AWS (the endpoint added) and MinIO (its endpoint swapped); the SINK writes a file a day", async () => {
  // As written, but for where AWS is: `&endpoint=` the test server (it takes the line's key id).
  const aws = lineOf(drivesMd, '%connection add lake s3://');
  await runOk(session, `${aws}&endpoint=${s3.endpoint}`, `drives.md: ${aws}`);
  await runOk(session, sinkOn('lake'), 'the SINK to [lake]');
  assert.deepEqual(
    await s3Keys('sales-bucket'),
    DAY_FILES.map((f) => `exports/${f}`),
  );
  // MinIO's endpoint swapped for the test server's; its bucket `lake` made first, as on MinIO.
  const minio = lineOf(drivesMd, '%connection add minio s3://');
  await makeBucket('lake');
  await runOk(session, minio.replace('http://127.0.0.1:9000', s3.endpoint), `drives.md: ${minio}`);
  await runOk(session, sinkOn('minio'), 'the SINK to [minio]');
  assert.deepEqual(
    await s3Keys('lake'),
    DAY_FILES.map((f) => `raw/${f}`),
  );
});

test("session.md's S3 example: its elided key filled in, the endpoint added", async () => {
  const line = lineOf(sessionMd, '%connection add lake s3://');
  const filled = line.replace('AKIA…:…', 'AKIAIOSFODNN7EXAMPLE:secret');
  await runOk(session, `${filled}&endpoint=${s3.endpoint}`, `session.md: ${line}`);
  await makeBucket('sales');
  await runOk(session, sinkOn('lake'), 'the SINK to [lake]');
  assert.deepEqual(
    await s3Keys('sales'),
    DAY_FILES.map((f) => `exports/${f}`),
  );
});

async function blobNames(container: ContainerClient): Promise<string[]> {
  const out: string[] = [];
  for await (const b of container.listBlobsFlat()) out.push(b.name);
  return out.sort();
}

test("drives.md's and session.md's Azure lines: the key, the SAS token and Azurite's endpoint", async () => {
  const service = new BlobServiceClient(azure.endpoint, new StorageSharedKeyCredential(azure.account, azure.key));
  const exports = service.getContainerClient('exports');
  const key = encodeURIComponent(azure.key);
  // The account key in place of `<account key>`, and the endpoint of Azurite (the account is salesdata).
  const withKey = lineOf(drivesMd, '%connection add blob az://salesdata:');
  await runOk(session, `${withKey.replace('<account key>', key)}?endpoint=${azure.endpoint}`, `drives.md: ${withKey}`);
  await runOk(session, sinkOn('blob'), 'the SINK to [blob] (key)');
  assert.deepEqual(
    await blobNames(exports),
    DAY_FILES.map((f) => `daily/${f}`),
  );
  // A SAS token the test server signed, percent-encoded as the line says.
  const withSas = lineOf(drivesMd, '%connection add blob az://salesdata@');
  const sas = withSas.replace('<SAS token, percent-encoded>', encodeURIComponent(azure.sas()));
  await runOk(session, `${sas}&endpoint=${azure.endpoint}`, `drives.md: ${withSas}`);
  await runOk(session, sinkOn('blob').replace("CONTAINER 'sales'", "CONTAINER 'sas'"), 'the SINK to [blob] (SAS)');
  assert.ok((await blobNames(exports)).includes('daily/sas/2024/03/01/orders.parquet'));
  // Azurite's own endpoint: the test's account and key for devstoreaccount1's, and its port; container `lake` made first.
  const local = lineOf(drivesMd, '%connection add local az://');
  const lake = service.getContainerClient('lake');
  await lake.create();
  const swapped = local
    .replace('devstoreaccount1:<key>', `${azure.account}:${key}`)
    .replace('http://127.0.0.1:10000/devstoreaccount1', azure.endpoint);
  await runOk(session, swapped, `drives.md: ${local}`);
  await runOk(session, sinkOn('local'), 'the SINK to [local]');
  assert.deepEqual(
    await blobNames(lake),
    DAY_FILES.map((f) => `raw/${f}`),
  );
  // session.md's example: the elided key filled in, the endpoint added.
  const table = lineOf(sessionMd, '%connection add blob az://');
  await runOk(
    session,
    `${table.replace('salesdata:…', `salesdata:${key}`)}?endpoint=${azure.endpoint}`,
    `session.md: ${table}`,
  );
  await runOk(session, sinkOn('blob').replace("CONTAINER 'sales'", "CONTAINER 'table'"), 'the SINK to [blob]');
  assert.ok((await blobNames(exports)).includes('daily/table/2024/03/01/orders.parquet'));
});

test(
  "drives.md's and session.md's FTP lines: the user, password, host and port swapped; the PUSH writes its file",
  { skip: noFtp },
  async () => {
    const server = ftp!;
    const site = `${server.user}:${server.password}@127.0.0.1:${server.port}`;
    const out = /`(%connection add out ftp:\/\/[^`]+)`/.exec(drivesMd)![1];
    await runOk(session, out.replace('user:pw@host', site), `drives.md: ${out}`);
    // drives.md's CAPTURE and PUSH INTO DRIVE [ftp out] …, on that connection.
    const push = /^CAPTURE 'orders' .*\nPUSH INTO DRIVE \[ftp out\] .*$/m.exec(drivesMd)![0];
    await runOk(session, push.replace('[ftp out]', '[out]'), 'the PUSH to [out]');
    assert.equal(
      readFileSync(join(server.root, 'drop', 'orders.csv'), 'utf8').split('\r\n')[0],
      'id,status,total,created',
    );
    const table = lineOf(sessionMd, '%connection add site ftp://');
    await runOk(session, table.replace('up:pw@127.0.0.1:2121', site), `session.md: ${table}`);
    await runOk(session, "SINK INTO DRIVE [site] FORMAT CSV FILE 'site.csv' ADD_HEADER;", 'a SINK to [site]');
    assert.ok(readdirSync(server.root).includes('site.csv'));
    // changelog.md: a CAPTURE to a folder of the FTP site, as its table's example writes it.
    const changelogMd = readFileSync(join(DOCS, 'changelog.md'), 'utf8');
    const capture = /`(%connection add site ftp:\/\/[^`]+)`/.exec(changelogMd)![1];
    await runOk(session, capture.replace('user:pw@host:21', site), `changelog.md: ${capture}`);
    const path = /`… (WITH PATH \[site\] '[^']+');`/.exec(changelogMd)![1];
    // A pipeline of its own: drives.md's PUSH above captured 'orders' already.
    const cell = `%pipeline changelog_docs\nCAPTURE 'orders' ON KEYS 'id' ${path};`;
    const { said } = await runOk(session, cell, `changelog.md: ${path}`);
    const shown = /`(change log \[site\] [^`]+)`/.exec(changelogMd)![1];
    const [prefix, suffix] = shown.split('…');
    assert.ok(
      said.some((line) => line.startsWith(prefix) && line.split(':')[0].endsWith(suffix)),
      `says ${shown}: ${said.join(' | ')}`,
    );
    assert.ok(readdirSync(join(server.root, 'cdc', 'orders')).some((f) => /^orders_\d+\.eds$/.test(f)));
  },
);
