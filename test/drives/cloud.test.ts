import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCliInTemp } from '../helpers/cli';
import { startAzureServer } from '../helpers/azure-server';
import { startHttpServer } from '../helpers/http-server';
import { startS3Proxy, startS3Server } from '../helpers/s3-server';
import { tempSession } from '../helpers/session';
import { tempDir } from '../helpers/temp';
import { CAPTURE, cell, Folder, rows } from '../changelog/pipelines';

/** A cloud store started for a test, seen through the connection sqlcdc is given and its own SDK. */
interface Store {
  /** The connection URL to `folder` of the bucket or container. */
  url(folder: string): string;
  /** The same with a wrong secret, or a key the store does not know. */
  wrongUrl(folder: string): string;
  /** The same on a bucket or container that does not exist. */
  missingUrl(folder: string): string;
  /** What must never be shown. */
  secret: string;
  /** How messages name the connection's folder `data` (a regular expression's text). */
  label: string;
  /** How errors name the store, and what it answers to a missing bucket or container and to wrong keys. */
  errors: { store: string; missing: string; refused: string };
  keys(): Promise<string[]>;
  read(key: string): Promise<string>;
  write(key: string, body: string): Promise<void>;
  close(): Promise<void>;
}

const KINDS: Record<string, () => Promise<Store>> = {
  async s3() {
    // A secret access key as AWS makes them, with the `/` and `+` a URL must percent-encode.
    const secret = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzEXAMPLEKEY';
    const server = await startS3Server('AKIAIOSFODNN7EXAMPLE');
    const at = (user: string, bucket: string, folder: string) =>
      `s3://${user}:${encodeURIComponent(secret)}@${bucket}/${folder}?region=eu-west-1&endpoint=${server.endpoint}`;
    return {
      url: (folder) => at('AKIAIOSFODNN7EXAMPLE', server.bucket, folder),
      // s3rver checks the access key id, not the signature.
      wrongUrl: (folder) => at('AKIAUNKNOWN', server.bucket, folder),
      missingUrl: (folder) => at('AKIAIOSFODNN7EXAMPLE', 'gone', folder),
      secret,
      label: 's3://lake/data',
      errors: { store: 'S3', missing: 'NoSuchBucket', refused: 'InvalidAccessKeyId' },
      keys: () => server.keys(),
      read: (key) => server.read(key),
      write: (key, body) => server.write(key, body),
      close: () => server.close(),
    };
  },
  async az() {
    const server = await startAzureServer();
    const at = (key: string, container: string, folder: string) =>
      `az://${server.account}:${encodeURIComponent(key)}@${container}/${folder}?endpoint=${server.endpoint}`;
    return {
      url: (folder) => at(server.key, server.container, folder),
      // Azurite checks every request's signature against the account key.
      wrongUrl: (folder) => at(Buffer.alloc(32, 7).toString('base64'), server.container, folder),
      missingUrl: (folder) => at(server.key, 'gone', folder),
      secret: server.key,
      label: 'az://salesdata/lake/data',
      errors: { store: 'Azure', missing: 'ContainerNotFound', refused: 'AuthorizationFailure|AuthenticationFailed' },
      keys: () => server.names(),
      read: (name) => server.read(name),
      write: (name, body) => server.write(name, body),
      close: () => server.close(),
    };
  },
};

const stores: Store[] = [];
const folders: Folder[] = [];
after(async () => {
  for (const f of folders) await f.close();
  for (const s of stores) await s.close();
});

async function start(kind: string): Promise<Store> {
  const store = await KINDS[kind]();
  stores.push(store);
  return store;
}

/** Runs `script` with `sqlcdc run` beside a connection `lake` to the store's `data` folder. */
async function run(url: string, script: string, dir = tempDir('cloud-run'), output = ['--output', 'json']) {
  writeFileSync(join(dir, 'job.sql'), `%connection add lake ${url}\n${script}\n`);
  return runCliInTemp(dir, ['run', 'job.sql', ...output], { env: { SQLCDC_HOME: join(dir, 'ws') } });
}

const leaks = (text: string, store: Store) =>
  text.includes(store.secret) || text.includes(encodeURIComponent(store.secret));

for (const kind of Object.keys(KINDS)) {
  test(`[${kind}] SINK INTO DRIVE uploads whole files under the connection folder; SELECT FROM DRIVE reads them back`, async () => {
    const store = await start(kind);
    const dir = tempDir('cloud-sink');
    writeFileSync(join(dir, 'orders.csv'), 'id,name\n1,lamp\n2,desk\n');
    const sink = await run(
      store.url('data'),
      "SELECT * FROM DRIVE 'orders.csv';\nSINK INTO DRIVE [lake] FORMAT CSV FILE 'out/2024-01.csv' ADD_HEADER;\nSINK INTO DRIVE [lake] FORMAT JSON FILE 'out/2024-01.json';",
      dir,
    );
    assert.equal(sink.code, 0, sink.stderr);
    assert.deepEqual(sink.leftInTemp, [], 'the staged copies are removed');
    assert.deepEqual(await store.keys(), ['data/out/2024-01.csv', 'data/out/2024-01.json']);
    assert.equal(await store.read('data/out/2024-01.csv'), 'id,name\r\n1,lamp\r\n2,desk\r\n');

    await store.write('data/out/2024-02.csv', 'id,name\n3,chair\n');
    await store.write('data/out/nested/2024-03.csv', 'id,name\n4,not in the folder\n');
    const read = await run(store.url('data'), "SELECT * FROM DRIVE [lake] 'out/2024-*.csv';");
    assert.equal(read.code, 0, read.stderr);
    assert.deepEqual(JSON.parse(read.stdout), [
      { id: '1', name: 'lamp' },
      { id: '2', name: 'desk' },
      { id: '3', name: 'chair' },
    ]);
    assert.deepEqual(read.leftInTemp, [], 'the downloaded copies are removed');
    for (const out of [sink, read]) assert.equal(leaks(`${out.stdout}${out.stderr}`, store), false);
    assert.equal(
      leaks(readFileSync(join(dir, 'ws', 'connections.json'), 'utf8'), store),
      false,
      'the secret is sealed',
    );

    const listed = await run(store.url('data'), '%connection list', undefined, []);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(`${listed.stdout}${listed.stderr}`, new RegExp(`${kind}://[^:]+:\\*\\*\\*\\*@lake/data\\?`));
    assert.equal(leaks(`${listed.stdout}${listed.stderr}`, store), false);
  });

  test(`[${kind}] a missing file, a missing bucket or container, wrong keys and a path above the root are clear errors without the secret`, async () => {
    const store = await start(kind);
    const missing = await run(store.url('data'), "SELECT * FROM DRIVE [lake] 'nothing.csv';");
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      new RegExp(`job\\.sql:2:\\d+: SELECT FROM DRIVE: file not found: nothing\\.csv on ${store.label}`),
    );
    assert.deepEqual(missing.leftInTemp, []);

    const sink = "SINK INTO DRIVE [lake] FORMAT CSV FILE 'x.csv';";
    const noBucket = await run(store.missingUrl('data'), sink);
    assert.equal(noBucket.code, 1);
    assert.match(
      noBucket.stderr,
      new RegExp(`${store.errors.store} upload of x\\.csv on \\S+ failed: ${store.errors.missing}`),
    );
    assert.deepEqual(noBucket.leftInTemp, [], 'the staged copy is removed');

    const refused = await run(store.wrongUrl('data'), sink);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(`${store.errors.store} upload of x\\.csv on \\S+ failed: (${store.errors.refused})`),
    );

    const above = await run(store.url('data'), "SINK INTO DRIVE [lake] FORMAT CSV FILE '../escape.csv';");
    assert.equal(above.code, 1);
    assert.match(above.stderr, new RegExp(`'\\.\\./escape\\.csv' leaves the root of ${kind} connection lake`));
    for (const out of [missing, noBucket, refused, above]) assert.equal(leaks(out.stderr, store), false);
    assert.deepEqual(await store.keys(), []);
  });

  test(`[${kind}] PATH [conn] '/folder': CAPTURE uploads its logs, LOAD reads them back in order, PUSH INTO DRIVE writes both streams`, async () => {
    const store = await start(kind);
    const f = new Folder();
    folders.push(f);
    const s = f.session({ pipeline: 'to-cloud' });
    await cell(s, `%connection add lake ${store.url('data')}`);
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
    const logs = await store.keys();
    assert.equal(logs.length, 2, `two whole logs, nothing else: ${logs.join(', ')}`);
    assert.ok(logs.every((k) => /^data\/cdc\/orders\/orders_\d+\.eds$/.test(k)));

    const w = f.session({ pipeline: 'from-cloud' });
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
    assert.equal(await store.read('data/exports/orders.csv'), 'id,status,amount\r\n2,paid,20\r\n3,new,30\r\n');
    assert.equal(await store.read('data/exports/orders_deletes.csv'), 'id,status,amount\r\n1,,\r\n');
    for (const m of [...first.messages, ...load1.messages, ...pushed.messages]) assert.equal(leaks(m, store), false);
  });
}

test('connection URLs of cloud stores missing a part are refused, without echoing the secret', async () => {
  const cases: [string, RegExp][] = [
    ['s3://AKIAIOSFODNN7EXAMPLE@lake/data', /an s3:\/\/ URL holds both the access key id and the secret/],
    ['az://salesdata@lake/data', /an az:\/\/ URL needs the account key \(az:\/\/ACCOUNT:KEY@…\) or a SAS token/],
    ['az://salesdata:c2VjcmV0@lake/data?sas=sv%3D2024', /an az:\/\/ URL holds an account key or a SAS token, not both/],
    ['s3://AKIA:c2VjcmV0@lake/data?endpoint=ftp://x', /endpoint must be an http\(s\):\/\/ URL, got 'ftp:\/\/x'/],
  ];
  for (const [url, expected] of cases) {
    const dir = tempDir('cloud-bad');
    const out = await run(url, '', dir, []);
    assert.equal(out.code, 1, url);
    assert.match(out.stderr, expected);
    assert.doesNotMatch(out.stderr, /c2VjcmV0/);
  }
});

test('[az] a SAS token instead of the account key: sealed, masked, and enough to write and read', async () => {
  const server = await startAzureServer();
  stores.push({ close: () => server.close() } as Store);
  const sas = server.sas();
  const url = `az://${server.account}@${server.container}/data?sas=${encodeURIComponent(sas)}&endpoint=${server.endpoint}`;
  const dir = tempDir('cloud-sas');
  writeFileSync(join(dir, 'orders.csv'), 'id\n1\n');
  const out = await run(
    url,
    "%connection list\nSELECT * FROM DRIVE 'orders.csv';\nSINK INTO DRIVE [lake] FORMAT CSV FILE 'a.csv' ADD_HEADER;\nSELECT * FROM DRIVE [lake] 'a.csv';",
    dir,
    [],
  );
  assert.equal(out.code, 0, out.stderr);
  assert.deepEqual(await server.names(), ['data/a.csv']);
  assert.match(out.stdout, /\(1 row\)/, 'the file read back');
  assert.match(
    `${out.stdout}${out.stderr}`,
    /az:\/\/salesdata:\*\*\*\*@lake\/data\?sas=\*\*\*\*&endpoint=http:\/\/127/,
    'listed without the token',
  );
  const signature = new URLSearchParams(sas).get('sig')!;
  for (const text of [out.stdout, out.stderr, readFileSync(join(dir, 'ws', 'connections.json'), 'utf8')])
    assert.equal(text.includes(signature) || text.includes(encodeURIComponent(signature)), false);
});

test("[az] an answer quoting the request (a proxy in the store's place) does not show the SAS token in the error", async () => {
  const server = await startHttpServer((req, res) => {
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end(`${req.method} ${req.url} refused`);
  });
  stores.push({ close: () => server.close() } as Store);
  const sas = 'sv=2024-05-04&sp=rl&sig=SAS-SECRET-11';
  const out = await run(
    `az://salesdata@lake/data?sas=${encodeURIComponent(sas)}&endpoint=${server.url}`,
    "SELECT * FROM DRIVE [lake] 'orders.csv';",
  );
  assert.equal(out.code, 1);
  assert.match(
    out.stderr,
    /Azure download of orders\.csv on az:\/\/salesdata\/lake\/data failed: .*\/lake\/data\/orders\.csv\?\*\*\*\*/,
  );
  assert.ok(!out.stderr.includes('SAS-SECRET-11'), out.stderr);
});

test('Ctrl-C during a cloud request that gets no answer ends the statement at once, on S3 and on Azure', async () => {
  // A store that takes connections and requests, and never answers: only the signal can end the statement.
  const silent = createServer((socket) => socket.on('data', () => {}));
  await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
  const { port } = silent.address() as AddressInfo;
  const { session } = tempSession({ 'orders.csv': 'id\n1\n' }, 'cloud-cancel');
  try {
    await session.run(
      `%connection add s3 s3://AKIA:c2VjcmV0@lake/data?endpoint=http://127.0.0.1:${port}\n` +
        `%connection add az az://salesdata:c2VjcmV0@lake/data?endpoint=http://127.0.0.1:${port}/salesdata`,
    );
    await session.run("SELECT * FROM DRIVE 'orders.csv';");
    for (const statement of [
      "SINK INTO DRIVE [s3] FORMAT CSV FILE 'x.csv';",
      "SELECT * FROM DRIVE [s3] 'x.csv';",
      "SINK INTO DRIVE [az] FORMAT CSV FILE 'x.csv';",
      "SELECT * FROM DRIVE [az] 'x.csv';",
    ]) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 500);
      const results = [];
      for await (const r of session.execute(statement, { signal: controller.signal })) results.push(r);
      clearTimeout(timer);
      const error = results.find((r) => r.kind === 'error');
      assert.equal(error?.kind === 'error' && error.error.kind, 'cancelled', statement);
    }
  } finally {
    await session.close();
    silent.close();
  }
});

/** A CSV file of `size` bytes or a little more: two columns, a row of about 100 bytes. */
function csvOf(size: number): string {
  const lines = ['id,note'];
  for (let i = 0, length = 8; length < size; i++) {
    lines.push(`${i},${'abcdefghij'.repeat(9)}`);
    length += lines[lines.length - 1].length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** An S3 store behind a recording proxy, and a session with a connection `lake` to its `data` folder through the proxy. */
async function behindProxy(area: string, hold?: (request: string) => boolean) {
  const server = await startS3Server('AKIAIOSFODNN7EXAMPLE');
  const proxy = await startS3Proxy(server.endpoint, { hold });
  stores.push({ close: () => proxy.close().then(() => server.close()) } as Store);
  // Over 5 MB, S3's smallest part: two parts.
  const { session, dir } = tempSession({ 'big.csv': csvOf(6 * 1024 * 1024) }, area);
  await session.run(
    `%connection add lake s3://AKIAIOSFODNN7EXAMPLE:c2VjcmV0@${server.bucket}/data?endpoint=${proxy.endpoint}`,
  );
  await session.run("SELECT * FROM DRIVE 'big.csv';");
  return { server, proxy, session, dir };
}

test('[s3] a file over the part size is uploaded in parts from its staged copy and reads back byte-equal', async () => {
  const { server, proxy, session, dir } = await behindProxy('cloud-multipart');
  try {
    await session.run(
      "SINK INTO DRIVE FORMAT CSV FILE 'copy.csv' ADD_HEADER;\nSINK INTO DRIVE [lake] FORMAT CSV FILE 'out/big.csv' ADD_HEADER;",
    );
    const uploads = proxy.requests.filter((r) => r.includes('/lake/data/out/big.csv'));
    assert.match(uploads[0], /^POST \/lake\/data\/out\/big\.csv\?uploads/, uploads.join('\n'));
    assert.equal(uploads.filter((r) => /^PUT .*partNumber=/.test(r)).length, 2, uploads.join('\n'));
    assert.match(uploads[uploads.length - 1], /^POST \/lake\/data\/out\/big\.csv\?uploadId=/);
    assert.ok((await server.readBytes('data/out/big.csv')).equals(readFileSync(join(dir, 'copy.csv'))));
  } finally {
    await session.close();
  }
});

test('[s3] Ctrl-C in the middle of a multipart upload leaves no object, and the upload is aborted', async () => {
  const { server, proxy, session } = await behindProxy('cloud-multipart-abort', (r) => /^PUT .*partNumber=2/.test(r));
  try {
    const controller = new AbortController();
    const results = (async () => {
      const out = [];
      for await (const r of session.execute("SINK INTO DRIVE [lake] FORMAT CSV FILE 'big.csv';", {
        signal: controller.signal,
      }))
        out.push(r);
      return out;
    })();
    const first = await Promise.race([proxy.held, results.then(() => 'the statement ended without uploading parts')]);
    assert.match(first, /^PUT .*partNumber=2/, proxy.requests.join('\n'));
    controller.abort();
    const error = (await results).find((r) => r.kind === 'error');
    assert.equal(error?.kind === 'error' && error.error.kind, 'cancelled');
    const id = /uploadId=([^&]+)/.exec(first)![1];
    // s3rver implements neither ListMultipartUploads nor AbortMultipartUpload: the proxy shows the abort was sent, last.
    const log = proxy.requests.join('\n');
    assert.match(
      proxy.requests[proxy.requests.length - 1],
      new RegExp(`^DELETE /lake/data/big\\.csv\\?uploadId=${id}&`),
      log,
    );
    assert.equal(proxy.requests.filter((r) => / .*partNumber=2/.test(r)).length, 1, `part 2 is not sent again: ${log}`);
    assert.equal(proxy.requests.filter((r) => r.startsWith('POST /lake/data/big.csv?uploadId=')).length, 0, log);
    assert.deepEqual(await server.keys(), []);
  } finally {
    await session.close();
  }
});

test("[s3] a dead letter over S3's 5 GB limit for one copy is not moved: a clear warning, the push's error, the log left in place", async () => {
  const server = await startS3Server('AKIAIOSFODNN7EXAMPLE');
  // s3rver cannot hold 5 GB in a test: the proxy makes the store say the change log is 6 GB.
  const proxy = await startS3Proxy(server.endpoint, {
    answer: (request, headers) => {
      if (/^HEAD \/lake\/data\/cdc\/orders_\d+\.eds(\?|$)/.test(request))
        headers['content-length'] = String(6 * 1024 ** 3);
    },
  });
  stores.push({ close: () => proxy.close().then(() => server.close()) } as Store);
  const f = new Folder();
  folders.push(f);
  const s = f.session({ pipeline: 'big-letter' });
  await cell(s, `%connection add lake s3://AKIAIOSFODNN7EXAMPLE:c2VjcmV0@lake/data?endpoint=${proxy.endpoint}`);
  f.orders([[1, 'new', 10]]);
  await cell(s, `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH [lake] '/cdc';`);
  const [log] = await server.keys();
  const warnings: string[] = [];
  let error: Error | undefined;
  for await (const r of s.execute("PUSH INTO DRIVE FORMAT RAW FILE 'o.txt' WITH DLQ_ON_ERROR 'failed';")) {
    if (r.kind === 'warning') warnings.push(r.text);
    if (r.kind === 'error') error = r.error;
  }
  assert.match(error?.message ?? '', /FORMAT RAW writes one field's values/, "the statement's error is the push's");
  assert.match(
    warnings.join('\n'),
    /S3 move of \/cdc\/orders_\d+\.eds on s3:\/\/lake\/data failed: it is 6\.0 GB, over S3's 5 GB limit for copying an object in one request \(after the push had failed\)/,
  );
  assert.deepEqual(await server.keys(), [log], 'the log stays where it was, and no copy is made');
});
