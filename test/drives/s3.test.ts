import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCliInTemp } from '../helpers/cli';
import { startS3Server, type S3Server } from '../helpers/s3-server';
import { tempDir } from '../helpers/temp';
import { CAPTURE, cell, Folder, rows } from '../changelog/pipelines';

const servers: S3Server[] = [];
const folders: Folder[] = [];
after(async () => {
  for (const f of folders) await f.close();
  for (const s of servers) await s.close();
});

// A secret access key as AWS makes them, with the `/` and `+` a URL must percent-encode.
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzEXAMPLEKEY';
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';

function connectionUrl(server: S3Server, folder = 'data'): string {
  return `s3://${KEY_ID}:${encodeURIComponent(SECRET)}@${server.bucket}/${folder}?region=eu-west-1&endpoint=${server.endpoint}`;
}

async function start(): Promise<S3Server> {
  const server = await startS3Server(KEY_ID);
  servers.push(server);
  return server;
}

/** Runs `script` with `sqlcdc run` beside a connection `lake` to the bucket's `data` folder. */
async function run(server: S3Server, script: string, dir = tempDir('s3-run'), output = ['--output', 'json']) {
  writeFileSync(join(dir, 'job.sql'), `%connection add lake ${connectionUrl(server)}\n${script}\n`);
  return runCliInTemp(dir, ['run', 'job.sql', ...output], { env: { SQLCDC_HOME: join(dir, 'ws') } });
}

test('SINK INTO DRIVE [s3] uploads whole files under the connection folder; SELECT FROM DRIVE [s3] reads them back', async () => {
  const server = await start();
  const dir = tempDir('s3-sink');
  writeFileSync(join(dir, 'orders.csv'), 'id,name\n1,lamp\n2,desk\n');
  const sink = await run(
    server,
    "SELECT * FROM DRIVE 'orders.csv';\nSINK INTO DRIVE [lake] FORMAT CSV FILE 'out/2024-01.csv' ADD_HEADER;\nSINK INTO DRIVE [lake] FORMAT JSON FILE 'out/2024-01.json';",
    dir,
  );
  assert.equal(sink.code, 0, sink.stderr);
  assert.deepEqual(sink.leftInTemp, [], 'the staged copies are removed');
  assert.deepEqual(await server.keys(), ['data/out/2024-01.csv', 'data/out/2024-01.json']);
  assert.equal(await server.read('data/out/2024-01.csv'), 'id,name\r\n1,lamp\r\n2,desk\r\n');

  await server.write('data/out/2024-02.csv', 'id,name\n3,chair\n');
  await server.write('data/out/nested/2024-03.csv', 'id,name\n4,not in the folder\n');
  const read = await run(server, "SELECT * FROM DRIVE [lake] 'out/2024-*.csv';");
  assert.equal(read.code, 0, read.stderr);
  assert.deepEqual(JSON.parse(read.stdout), [
    { id: '1', name: 'lamp' },
    { id: '2', name: 'desk' },
    { id: '3', name: 'chair' },
  ]);
  assert.deepEqual(read.leftInTemp, [], 'the downloaded copies are removed');
  for (const out of [sink, read]) assert.equal(`${out.stdout}${out.stderr}`.includes(SECRET), false);
  const stored = readFileSync(join(dir, 'ws', 'connections.json'), 'utf8');
  assert.equal(stored.includes(SECRET) || stored.includes(encodeURIComponent(SECRET)), false, 'the secret is sealed');
});

test('an S3 connection is listed with its secret masked, and a URL missing its secret is refused', async () => {
  const server = await start();
  const listed = await run(server, '%connection list', undefined, []);
  assert.equal(listed.code, 0, listed.stderr);
  const shown = `${listed.stdout}${listed.stderr}`;
  assert.match(shown, new RegExp(`s3://${KEY_ID}:\\*\\*\\*\\*@lake/data\\?region=eu-west-1`));
  assert.equal(shown.includes(SECRET) || shown.includes(encodeURIComponent(SECRET)), false);

  const dir = tempDir('s3-bad');
  writeFileSync(join(dir, 'job.sql'), `%connection add lake s3://${KEY_ID}@lake/data\n`);
  const half = await runCliInTemp(dir, ['run', 'job.sql'], { env: { SQLCDC_HOME: join(dir, 'ws') } });
  assert.equal(half.code, 1);
  assert.match(half.stderr, /an s3:\/\/ URL holds both the access key id and the secret/);
});

test('S3 reads and writes: a missing file, a missing bucket and a path above the root are clear errors without the secret', async () => {
  const server = await start();
  const missing = await run(server, "SELECT * FROM DRIVE [lake] 'nothing.csv';");
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /job\.sql:2:\d+: SELECT FROM DRIVE: file not found: nothing\.csv on s3:\/\/lake\/data/);
  assert.deepEqual(missing.leftInTemp, []);

  const dir = tempDir('s3-nobucket');
  writeFileSync(
    join(dir, 'job.sql'),
    `%connection add gone ${connectionUrl(server).replace('@lake/', '@gone/')}\nSINK INTO DRIVE [gone] FORMAT CSV FILE 'x.csv';\n`,
  );
  const noBucket = await runCliInTemp(dir, ['run', 'job.sql'], { env: { SQLCDC_HOME: join(dir, 'ws') } });
  assert.equal(noBucket.code, 1);
  assert.match(noBucket.stderr, /S3 upload of x\.csv on s3:\/\/gone\/data failed: NoSuchBucket/);
  assert.deepEqual(noBucket.leftInTemp, [], 'the staged copy is removed');

  const above = await run(server, "SINK INTO DRIVE [lake] FORMAT CSV FILE '../escape.csv';");
  assert.equal(above.code, 1);
  assert.match(above.stderr, /'\.\.\/escape\.csv' leaves the root of s3 connection lake/);
  for (const out of [missing, noBucket, above]) assert.equal(out.stderr.includes(SECRET), false);
  assert.deepEqual(await server.keys(), []);
});

test("PATH [s3] '/folder': CAPTURE uploads its logs, LOAD reads them back in order, PUSH INTO DRIVE [s3] writes both streams", async () => {
  const server = await start();
  const f = new Folder();
  folders.push(f);
  const s = f.session({ pipeline: 'to-s3' });
  await cell(s, `%connection add lake ${connectionUrl(server)}`);
  const script = `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH [lake] '/cdc/orders';`;
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
  ]);
  const first = await cell(s, script);
  assert.match(
    first.messages.join('\n'),
    /^change log \[lake\] \/cdc\/orders\/orders_\d+\.eds: 2 inserts, 0 updates, 0 deletes$/,
  );
  f.orders([
    [2, 'paid', 20],
    [3, 'new', 30],
  ]);
  await cell(s, script);
  const logs = await server.keys();
  assert.equal(logs.length, 2, `two whole logs, no temp object: ${logs.join(', ')}`);
  assert.ok(logs.every((k) => /^data\/cdc\/orders\/orders_\d+\.eds$/.test(k)));

  const w = f.session({ pipeline: 'from-s3' });
  const load1 = await cell(w, `LOAD UPSERTS DELETES FROM 'orders' PATH [lake] '/cdc/orders';`);
  assert.deepEqual(rows(load1.dataset), [
    ['1', 'new', '10'],
    ['2', 'new', '20'],
  ]);
  const load2 = await cell(w, `LOAD UPSERTS DELETES FROM 'orders' PATH [lake] '/cdc/orders';`);
  assert.deepEqual(rows(load2.dataset), [
    ['2', 'paid', '20'],
    ['3', 'new', '30'],
  ]);
  const pushed = await cell(w, "PUSH INTO DRIVE [lake] FORMAT CSV FILE 'exports/orders.csv' ADD_HEADER;");
  assert.match(
    pushed.messages.join('\n'),
    /PUSH INTO DRIVE: 3 rows in 2 files on \[lake\]: exports\/orders\.csv, exports\/orders_deletes\.csv/,
  );
  assert.equal(await server.read('data/exports/orders.csv'), 'id,status,amount\r\n2,paid,20\r\n3,new,30\r\n');
  assert.equal(await server.read('data/exports/orders_deletes.csv'), 'id,status,amount\r\n1,,\r\n');
  for (const m of [...first.messages, ...load1.messages, ...pushed.messages]) assert.equal(m.includes(SECRET), false);
});
