import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Dataset } from '../../runtime/index';
import type { Result } from '../../runtime/results';
import type { Session } from '../../runtime/session';
import { startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

const servers: TestServer[] = [];
const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

/**
 * A session that captured items 1, 2, 3 into a change log in `logs/`, and a server that answers 503 to
 * item 2 while `failing.now` is set, 200 to everything else.
 */
async function captured(): Promise<{
  session: Session;
  dir: string;
  server: TestServer;
  failing: { now: boolean };
  file: string;
}> {
  const failing = { now: true };
  const server = await startHttpServer((req, res) => {
    const refused = failing.now && (JSON.parse(req.body) as { id: number }).id === 2;
    res.writeHead(refused ? 503 : 200).end('{}');
  });
  servers.push(server);
  const { session, dir } = tempSession({}, 'push-outcome');
  sessions.push(session);
  await session.run(`%connection add api ${server.url}`);
  session.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1], [2], [3]]));
  await session.run("CAPTURE 'items' ON KEYS 'id' WITH PATH 'logs';");
  const [file] = readdirSync(join(dir, 'logs'));
  assert.match(file, /^items_\d+\.eds$/);
  return { session, dir, server, failing, file };
}

const push = (options: string) => `PUSH INTO HTTP [api] ON_UPSERT (POST /items) PAYLOAD ({"id": {{id}}}) ${options};`;

const sentIds = (server: TestServer, from = 0) =>
  server.requests.slice(from).map((r) => (JSON.parse(r.body) as { id: number }).id);

test('a failed push without outcome options keeps the log and records, beside it, the batches that succeeded', async () => {
  const { session, dir, server, failing, file } = await captured();
  await assert.rejects(session.run(push('')), /HTTP 503/);
  assert.deepEqual(readdirSync(join(dir, 'logs')).sort(), [file, `${file}.progress.json`]);
  failing.now = false;
  const before = server.requests.length;
  await session.run(`LOAD UPSERTS FROM '${file}' PATH 'logs';\n${push('')}`);
  assert.deepEqual(sentIds(server, before), [2, 3], 'the replay resumes at the batch that failed');
  assert.deepEqual(readdirSync(join(dir, 'logs')), [file], 'a push that succeeds removes the record');
});

test('DLQ_ON_ERROR moves the log and its progress record into the subfolder; a LOAD of the moved log resumes there', async () => {
  const { session, dir, server, failing, file } = await captured();
  await assert.rejects(session.run(push("WITH DLQ_ON_ERROR 'dlq'")), /HTTP 503/);
  assert.deepEqual(sentIds(server), [1, 2]);
  assert.deepEqual(readdirSync(join(dir, 'logs')), ['dlq'], 'nothing of the log is left in its folder');
  assert.deepEqual(readdirSync(join(dir, 'logs', 'dlq')).sort(), [file, `${file}.progress.json`]);
  failing.now = false;
  const before = server.requests.length;
  await session.run(`LOAD UPSERTS FROM '${file}' PATH 'logs/dlq';\n${push("WITH DLQ_ON_ERROR 'dlq'")}`);
  assert.deepEqual(sentIds(server, before), [2, 3]);
  assert.deepEqual(readdirSync(join(dir, 'logs', 'dlq')), [file]);
});

test("a dead-letter move that fails is a warning: the statement's error is the push's (HTTP, DRIVE), and the log stays", async () => {
  const { session, dir, file } = await captured();
  // A file where the dead-letter folder would go: the move cannot make the folder.
  writeFileSync(join(dir, 'logs', 'dlq'), 'not a folder');
  const outcome = async (code: string) => {
    const warnings: string[] = [];
    let error: Error | undefined;
    for await (const r of session.execute(code) as AsyncIterable<Result>) {
      if (r.kind === 'warning') warnings.push(r.text);
      if (r.kind === 'error') error = r.error;
    }
    return { warnings, error };
  };
  const http = await outcome(push("WITH DLQ_ON_ERROR 'dlq'"));
  assert.match(http.error?.message ?? '', /HTTP 503/);
  assert.equal(
    http.warnings.filter((w) => w.endsWith('(after the push had failed)')).length,
    1,
    http.warnings.join('\n'),
  );
  const drive = await outcome(
    `LOAD UPSERTS FROM '${file}' PATH 'logs';\nPUSH INTO DRIVE FORMAT CSV FILE 'o.csv' DATE_FIELD 'id' WITH DLQ_ON_ERROR 'dlq';`,
  );
  assert.match(drive.error?.message ?? '', /must be a datetime column/);
  assert.equal(
    drive.warnings.filter((w) => w.endsWith('(after the push had failed)')).length,
    1,
    drive.warnings.join('\n'),
  );
  assert.ok(readdirSync(join(dir, 'logs')).includes(file), 'the log is where it was, to be replayed');
});

test('DISCARD_ON_ERROR deletes the log and its progress record; DISCARD_ON_SUCCESS deletes the log after success', async () => {
  const failed = await captured();
  await assert.rejects(failed.session.run(push('WITH DISCARD_ON_ERROR')), /HTTP 503/);
  assert.deepEqual(readdirSync(join(failed.dir, 'logs')), []);
  const done = await captured();
  done.failing.now = false;
  await done.session.run(push('WITH DISCARD_ON_SUCCESS'));
  assert.deepEqual(sentIds(done.server), [1, 2, 3]);
  assert.deepEqual(readdirSync(join(done.dir, 'logs')), []);
});

test("DLQ_ON_ERROR outside the log's folder ('..' or absolute) is refused before any call; the log stays", async () => {
  const { session, dir, server, file } = await captured();
  for (const folder of ['../failed', 'dlq/../../failed', '/tmp/failed']) {
    await assert.rejects(
      session.run(push(`WITH DLQ_ON_ERROR '${folder}'`)),
      (e: Error) =>
        e.message ===
        `DLQ_ON_ERROR '${folder}' must name a subfolder of the change log's folder (a relative path without '..')`,
    );
  }
  assert.equal(server.requests.length, 0);
  assert.deepEqual(readdirSync(join(dir, 'logs')), [file]);
});

test('a fixed-name log captured again after a failed push is a new log: its push starts at its first batch, not where the old one stopped', async () => {
  const { session, dir, server, failing } = await captured();
  // items.eds is written again by every run (reference C.3).
  await session.run("CAPTURE 'items.eds' ON KEYS 'id' WITH PATH 'fixed';");
  await assert.rejects(session.run(push('')), /HTTP 503/);
  assert.deepEqual(readdirSync(join(dir, 'fixed')).sort(), ['items.eds', 'items.eds.progress.json']);
  failing.now = false;
  // The next run's changes replace the log under the same name: 4, 5 and 6 are new, none was sent.
  session.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[1], [2], [3], [4], [5], [6]]));
  await session.run("CAPTURE 'items.eds' ON KEYS 'id' WITH PATH 'fixed';");
  const before = server.requests.length;
  await session.run(push(''));
  assert.deepEqual(sentIds(server, before), [4, 5, 6]);
});

test('DLQ_ON_ERROR keeps every dead letter of a fixed-name log: the next failed log does not replace the one there', async () => {
  const server = await startHttpServer((_req, res) => {
    res.writeHead(503).end('{}');
  });
  servers.push(server);
  const { session, dir } = tempSession({}, 'push-outcome');
  sessions.push(session);
  await session.run(`%connection add api ${server.url}`);
  const ids = (list: number[]) =>
    session.setDataset(
      Dataset.fromRows(
        [{ name: 'id', type: { base: 'int' } }],
        list.map((id) => [id]),
      ),
    );
  const failed = async (list: number[]) => {
    ids(list);
    await session.run("CAPTURE 'items.eds' ON KEYS 'id' WITH PATH 'fixed';");
    await assert.rejects(session.run(push("WITH DLQ_ON_ERROR 'dlq'")), /HTTP 503/);
  };
  await failed([1]);
  await failed([1, 2]);
  // Two dead letters, item 1's and item 2's: each can be replayed once the target is back.
  const letters = readdirSync(join(dir, 'fixed', 'dlq')).filter((f) => f.endsWith('.eds'));
  assert.equal(letters.length, 2, letters.join(', '));
  const held = [];
  for (const f of letters) {
    await session.run(`LOAD UPSERTS FROM '${f}' PATH 'fixed/dlq';`);
    held.push(...session.dataset.rows().map((r) => Number(r[0])));
  }
  assert.deepEqual(held.sort(), [1, 2]);
});

test('a failing push is retried per WITH RETRY first; DLQ_ON_ERROR and DISCARD_ON_ERROR apply only once the retries are spent (spec 7)', async () => {
  const dlq = await captured();
  await assert.rejects(dlq.session.run(push("WITH RETRY LINEAR (2, 0) DLQ_ON_ERROR 'dlq'")), /HTTP 503/);
  assert.deepEqual(sentIds(dlq.server), [1, 2, 2, 2], 'item 2 was tried three times');
  assert.deepEqual(readdirSync(join(dlq.dir, 'logs', 'dlq')).sort(), [dlq.file, `${dlq.file}.progress.json`]);
  const discarded = await captured();
  await assert.rejects(discarded.session.run(push('WITH RETRY EXPONENTIAL (1, 0) DISCARD_ON_ERROR')), /HTTP 503/);
  assert.deepEqual(sentIds(discarded.server), [1, 2, 2]);
  assert.deepEqual(readdirSync(join(discarded.dir, 'logs')), []);
});
