import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Dataset } from '../../runtime/index';
import type { Session } from '../../runtime/session';
import { ftpUnavailable, startFtpServer, type FtpServer } from '../helpers/ftp-server';
import { messages, plain, session, typedRows } from './helpers';

const sessions: Session[] = [];
const servers: FtpServer[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

const columns = [
  { name: 'id', type: { base: 'int' as const } },
  { name: 'status', type: { base: 'string' as const } },
];

/** A session whose CDC state holds orders 1, 2, 3; the next dataset updates 2, deletes 3 and inserts 4. */
async function captured(): Promise<{ session: Session; dir: string }> {
  const made = session();
  sessions.push(made.session);
  made.session.setDataset(
    Dataset.fromRows(columns, [
      [1, 'new'],
      [2, 'new'],
      [3, 'new'],
    ]),
  );
  await made.session.run("CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH INIT_ON_FIRST_RUN;");
  made.session.setDataset(
    Dataset.fromRows(columns, [
      [1, 'new'],
      [2, 'paid'],
      [4, 'new'],
    ]),
  );
  return made;
}

function logs(dir: string): string[] {
  const root = join(dir, 'ws', 'changelogs');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name).slice(root.length + 1));
}

test('PUSH INTO DRIVE writes the upsert stream to FILE and the delete stream to <stem>_deletes<ext>', async () => {
  const { session: s, dir } = await captured();
  const out = await s.run(
    "CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH INIT_ON_FIRST_RUN;\nPUSH INTO DRIVE FORMAT CSV FILE 'out/orders.csv' ADD_HEADER;",
  );
  assert.equal(readFileSync(join(dir, 'out/orders.csv'), 'utf8'), 'id,status\r\n2,paid\r\n4,new\r\n');
  assert.equal(
    readFileSync(join(dir, 'out/orders_deletes.csv'), 'utf8'),
    'id,status\r\n3,\r\n',
    'a delete carries its key',
  );
  assert.match(
    messages(out).at(-1)!,
    /^PUSH INTO DRIVE: 3 rows in 2 files on .*: out\/orders\.csv, out\/orders_deletes\.csv$/,
  );
  assert.equal(logs(dir).length, 1, 'without an outcome option the change log stays');
});

test('PUSH INTO DRIVE without FILE names the files after the pipeline and execution id; without a change log the dataset is the upsert stream', async () => {
  const { session: s, dir } = await captured();
  await s.run(
    "CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH INIT_ON_FIRST_RUN;\nPUSH INTO DRIVE FORMAT JSON CONTAINER 'exports';",
  );
  const files = readdirSync(join(dir, 'exports')).sort();
  assert.equal(files.length, 2);
  assert.match(files[0], /^.+-\d+\.json$/);
  assert.equal(files[1], files[0].replace(/\.json$/, '_deletes.json'));
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'exports', files[0]), 'utf8')), [
    { id: 2, status: 'paid' },
    { id: 4, status: 'new' },
  ]);
  s.setDataset(typedRows());
  await s.run("PUSH INTO DRIVE FORMAT PARQUET FILE 'plain.parquet';");
  assert.equal(existsSync(join(dir, 'plain_deletes.parquet')), false, 'no delete stream, no delete file');
  await s.run("SELECT * FROM DRIVE 'plain.parquet';");
  assert.deepEqual(plain(s.dataset), plain(typedRows()));
});

test('WITH DISCARD_ON_SUCCESS removes the change log after the files are written', async () => {
  const { session: s, dir } = await captured();
  const out = await s.run(
    "CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH INIT_ON_FIRST_RUN;\nPUSH INTO DRIVE FORMAT NDJSON FILE 'o.ndjson' WITH DISCARD_ON_SUCCESS;",
  );
  assert.equal(readFileSync(join(dir, 'o.ndjson'), 'utf8'), '{"id":2,"status":"paid"}\n{"id":4,"status":"new"}\n');
  assert.deepEqual(logs(dir), []);
  assert.match(messages(out).at(-1)!, /^change log .* discarded after success$/);
});

test('WITH DLQ_ON_ERROR moves the change log aside when writing fails; DISCARD_ON_ERROR removes it; nothing half-written', async () => {
  const { session: s, dir } = await captured();
  await assert.rejects(
    s.run(
      "CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH INIT_ON_FIRST_RUN;\nPUSH INTO DRIVE FORMAT RAW FILE 'o.txt' WITH DLQ_ON_ERROR 'failed';",
    ),
    /FORMAT RAW writes one field's values/,
  );
  const [moved] = logs(dir);
  assert.match(moved, /(^|\/)failed\/[^/]+$/, moved);
  assert.equal(existsSync(join(dir, 'o.txt')), false);
  const again = await captured();
  await assert.rejects(
    again.session.run(
      "CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH INIT_ON_FIRST_RUN;\nPUSH INTO DRIVE FORMAT CSV FILE 'o.csv' DATE_FIELD 'status' WITH DISCARD_ON_ERROR;",
    ),
    /must be a datetime column/,
  );
  assert.deepEqual(logs(again.dir), []);
});

test(
  'an FTP connection: SINK and PUSH upload under the connection folder, whole files only',
  { skip: ftpUnavailable() },
  async () => {
    const server = await startFtpServer();
    servers.push(server);
    const { session: s } = await captured();
    await s.run(`%connection add site ${server.url}drop`);
    await s.run(
      "CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH INIT_ON_FIRST_RUN;\nPUSH INTO DRIVE [site] FORMAT CSV FILE 'orders.csv' CONTAINER 'in';",
    );
    const folder = join(server.root, 'drop', 'in');
    assert.deepEqual(
      readdirSync(folder).sort(),
      ['orders.csv', 'orders_deletes.csv'],
      'no temp name left on the server',
    );
    assert.equal(readFileSync(join(folder, 'orders.csv'), 'utf8'), '2,paid\r\n4,new\r\n');
    s.setDataset(typedRows());
    const out = await s.run("SINK INTO DRIVE [site] FORMAT PARQUET FILE 'typed/{{id}}.parquet' FILE_PER_ROW;");
    assert.deepEqual(readdirSync(join(server.root, 'drop', 'typed')).sort(), ['1.parquet', '2.parquet', '3.parquet']);
    assert.match(messages(out)[0], /^SINK INTO DRIVE: 3 rows in 3 files on \[site\]/);
    assert.doesNotMatch(JSON.stringify(out), new RegExp(server.password));
  },
);

test(
  'WITH RETRY repeats a failed upload per its policy, then fails saying how many retries were made',
  { skip: ftpUnavailable() },
  async () => {
    const server = await startFtpServer();
    const port = server.port;
    await server.close();
    const made = session();
    sessions.push(made.session);
    await made.session.run(`%connection add gone ftp://u:secretpw@127.0.0.1:${port}/`);
    made.session.setDataset(typedRows());
    await assert.rejects(
      made.session.run("SINK INTO DRIVE [gone] FORMAT CSV FILE 'x.csv' WITH RETRY LINEAR (2, 0);"),
      (e: Error) => {
        assert.match(
          e.message,
          /^FTP upload of x\.csv on ftp:\/\/u@127\.0\.0\.1:\d+\/ failed: .* \(after 2 retries\)$/,
        );
        assert.doesNotMatch(e.message, /secretpw/);
        return true;
      },
    );
    await assert.rejects(
      made.session.run("SINK INTO DRIVE [gone] FORMAT CSV FILE 'x.csv';"),
      (e: Error) => !/retries/.test(e.message),
    );
  },
);
