import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ScriptError } from '../../runtime/errors';
import { startHttpServer, type TestServer } from '../helpers/http-server';
import { CAPTURE, cell, Folder, idOf, names, rows } from './pipelines';

const folders: Folder[] = [];
const servers: TestServer[] = [];
after(async () => {
  for (const f of folders) await f.close();
  for (const s of servers) await s.close();
});

/** A folder whose `logs` holds three logs of 'orders': the first run, one update, one insert and one delete. */
async function threeLogs(): Promise<{ f: Folder; files: string[] }> {
  const f = new Folder();
  folders.push(f);
  const s = f.session({ pipeline: 'capture' });
  const script = `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs' CDCMARKER 'op';`;
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
  ]);
  await cell(s, script);
  f.orders([
    [1, 'paid', 10],
    [2, 'new', 20],
  ]);
  await cell(s, script);
  f.orders([
    [1, 'paid', 10],
    [3, 'new', 30],
  ]);
  await cell(s, script);
  const files = f.logs('logs');
  assert.equal(files.length, 3);
  return { f, files };
}

test('LOAD by name takes the next log after the watermark, oldest first, one per run; then nothing to load, exit 0 and an empty dataset', async () => {
  const { f, files } = await threeLogs();
  const s = f.session({ pipeline: 'writer' });
  const load = `LOAD UPSERTS DELETES FROM 'orders' PATH 'logs';`;
  const first = await cell(s, load);
  assert.deepEqual(first.messages, [`change log logs/${files[0]} loaded: 2 inserts, 0 updates, 0 deletes`]);
  assert.deepEqual(rows(first.dataset), [
    ['1', 'new', '10', 'I'],
    ['2', 'new', '20', 'I'],
  ]);
  const second = await cell(s, load);
  assert.deepEqual(rows(second.dataset), [['1', 'paid', '10', 'U']]);
  const third = await cell(s, load);
  assert.deepEqual(third.messages, [`change log logs/${files[2]} loaded: 1 insert, 0 updates, 1 delete`]);
  assert.deepEqual(rows(third.dataset), [['3', 'new', '30', 'I']]);
  const none = await cell(s, load);
  assert.deepEqual(none.messages, [
    `no new change log of 'orders' in logs after execution id ${idOf(files[2])}: nothing to load, the rest of the pipeline is skipped`,
  ]);
  assert.equal(none.dataset.rowCount, 0);
  // The log's execution id, then the run that moved it there (the next start of a killed job checks it).
  const watermark = join(f.workspace, 'cdc', 'writer', 'orders.watermark');
  assert.match(readFileSync(watermark, 'utf8'), new RegExp(`^${idOf(files[2])}\nrun \\d+\n$`));
  // A file of an older version, the id alone, is read as before.
  writeFileSync(watermark, `${idOf(files[1])}\n`);
  assert.deepEqual(rows((await cell(s, load)).dataset), [['3', 'new', '30', 'I']]);

  // Another write pipeline has its own watermark and starts from the first log.
  const other = f.session({ pipeline: 'audit' });
  assert.deepEqual(rows((await cell(other, load)).dataset), [
    ['1', 'new', '10', 'I'],
    ['2', 'new', '20', 'I'],
  ]);
});

test('a write pipeline with nothing new to load ends there successfully: its PUSH, which names fields, is not reached', async () => {
  const { f, files } = await threeLogs();
  const server = await startHttpServer((_req, res) => void res.writeHead(200).end('{}'));
  servers.push(server);
  const s = f.session({ pipeline: 'writer' });
  const writer = `LOAD UPSERTS DELETES FROM 'orders' PATH 'logs';
PUSH INTO HTTP ON_UPSERT (POST ${server.url}/orders/{{id}}) PAYLOAD ({"status": "{{status}}"});
PRINT 'pushed';`;
  for (let i = 0; i < files.length; i++) await cell(s, writer);
  assert.equal(server.requests.length, 4, 'every upsert of the three logs was pushed');
  const none = await cell(s, writer);
  assert.deepEqual(none.messages, [
    `no new change log of 'orders' in logs after execution id ${idOf(files[2])}: nothing to load, the rest of the pipeline is skipped`,
  ]);
  assert.equal(none.dataset.rowCount, 0);
  assert.equal(server.requests.length, 4);
});

test('UPSERTS, INSERTS and UPDATES read the upsert stream; DELETES alone gives the delete stream', async () => {
  const { f, files } = await threeLogs();
  for (const words of ['UPSERTS', 'INSERTS', 'UPDATES', 'UPDATES DELETES', 'INSERTS DELETES']) {
    const s = f.session();
    const out = await cell(s, `LOAD ${words} FROM '${files[2]}' PATH 'logs';`);
    assert.deepEqual(rows(out.dataset), [['3', 'new', '30', 'I']], words);
  }
  const s = f.session();
  const deletes = await cell(s, `LOAD DELETES FROM '${files[2]}' PATH 'logs';`);
  assert.deepEqual(rows(deletes.dataset), [['2', null, null, 'D']]);
  assert.deepEqual(names(deletes.dataset), ['id', 'status', 'amount', 'op']);
});

test('LOAD of a full file name loads that log whatever the watermark, and does not move it', async () => {
  const { f, files } = await threeLogs();
  const s = f.session({ pipeline: 'writer' });
  for (let i = 0; i < 2; i++) {
    const out = await cell(s, `LOAD UPSERTS FROM '${files[1]}' PATH 'logs';`);
    assert.deepEqual(rows(out.dataset), [['1', 'paid', '10', 'U']]);
  }
  assert.equal(existsSync(join(f.workspace, 'cdc', 'writer', 'orders.watermark')), false);
  assert.deepEqual(
    rows((await cell(s, `LOAD UPSERTS FROM 'orders' PATH 'logs';`)).dataset).length,
    2,
    'the next by name is still the first',
  );
  await assert.rejects(cell(s, `LOAD UPSERTS FROM 'orders_1.eds' PATH 'logs';`), (e: ScriptError) => {
    assert.equal(e.message, 'no change log orders_1.eds in logs');
    assert.equal(e.statement, 'LOAD');
    assert.equal(e.position?.column, 20, 'at the name');
    return true;
  });
});

test('the watermark moves only when the whole run succeeds: after a failed push the same log loads again', async () => {
  let failing = true;
  const server = await startHttpServer(
    (_req, res) => void res.writeHead(failing ? 503 : 200, { 'content-type': 'application/json' }).end('{}'),
  );
  servers.push(server);
  const { f, files } = await threeLogs();
  const s = f.session({ pipeline: 'writer' });
  await cell(s, `%connection add api ${server.url}`);
  const script = `LOAD UPSERTS DELETES FROM 'orders' PATH 'logs';
    PUSH INTO HTTP [api] ON_UPSERT (PUT /orders/{{id}}) ON_DELETE (DELETE /orders/{{id}});`;
  await assert.rejects(cell(s, script), /503/);
  assert.equal(existsSync(join(f.workspace, 'cdc', 'writer', 'orders.watermark')), false);
  failing = false;
  server.requests.length = 0;
  const again = await cell(s, script);
  assert.equal(again.messages[0], `change log logs/${files[0]} loaded: 2 inserts, 0 updates, 0 deletes`);
  assert.deepEqual(
    server.requests.map((r) => `${r.method} ${r.url}`),
    ['PUT /orders/1', 'PUT /orders/2'],
  );
  server.requests.length = 0;
  await cell(s, script);
  await cell(s, script);
  assert.deepEqual(
    server.requests.map((r) => `${r.method} ${r.url}`),
    ['PUT /orders/1', 'PUT /orders/3', 'DELETE /orders/2'],
    'the delete stream rides along',
  );
});

test('INITIAL_ID is the watermark while none is stored; it must be an execution id', async () => {
  const { f, files } = await threeLogs();
  const s = f.session({ pipeline: 'writer' });
  const load = `LOAD UPSERTS FROM 'orders' PATH 'logs' WITH INITIAL_ID '${idOf(files[0])}';`;
  assert.match((await cell(s, load)).messages[0], new RegExp(`${files[1]} loaded`));
  assert.match(
    (await cell(s, load)).messages[0],
    new RegExp(`${files[2]} loaded`),
    'the stored watermark wins over INITIAL_ID',
  );
  await assert.rejects(
    cell(f.session(), `LOAD UPSERTS FROM 'orders' PATH 'logs' WITH INITIAL_ID 'yesterday';`),
    /INITIAL_ID is an execution id \(digits: Unix milliseconds\), not 'yesterday'/,
  );
});

test('PREVIEW_FILE is loaded when there is no new log, and the watermark stays', async () => {
  const { f, files } = await threeLogs();
  const s = f.session({ pipeline: 'writer' });
  const load = `LOAD UPSERTS FROM 'orders' PATH 'logs' WITH INITIAL_ID '${idOf(files[2])}' PREVIEW_FILE '${files[1]}';`;
  const out = await cell(s, load);
  assert.equal(
    out.messages[0],
    `no new change log of 'orders': previewing logs/${files[1]} (the watermark does not move)`,
  );
  assert.deepEqual(rows(out.dataset), [['1', 'paid', '10', 'U']]);
  assert.equal(existsSync(join(f.workspace, 'cdc', 'writer', 'orders.watermark')), false);
  await assert.rejects(
    cell(s, `LOAD UPSERTS FROM 'orders' PATH 'logs' WITH INITIAL_ID '${idOf(files[2])}' PREVIEW_FILE 'nope.eds';`),
    /PREVIEW_FILE: no change log nope\.eds in logs/,
  );
  f.write('o.csv', 'not a folder\n');
  await assert.rejects(cell(s, `LOAD UPSERTS FROM 'orders' PATH 'o.csv';`), /o\.csv is a file, not a folder/);
  // A file of the folder: a path out of it is refused even when the file is there.
  for (const path of [`../logs/${files[1]}`, `./${files[1]}`, `/${files[1]}`])
    await assert.rejects(
      cell(s, `LOAD UPSERTS FROM 'orders' PATH 'logs' WITH INITIAL_ID '${idOf(files[2])}' PREVIEW_FILE '${path}';`),
      /PREVIEW_FILE names a change log of the folder \(logs\), not a path:/,
    );
});

test('KEY_COLUMNS replaces the keys the log was captured on; a column the log lacks is an error', async () => {
  const server = await startHttpServer((_req, res) => void res.writeHead(200).end('{}'));
  servers.push(server);
  const { f, files } = await threeLogs();
  const s = f.session();
  await assert.rejects(
    cell(s, `LOAD UPSERTS FROM '${files[0]}' PATH 'logs' WITH KEY_COLUMNS 'id,region';`),
    /KEY_COLUMNS names 'region', which the change log does not have/,
  );
  const out = await cell(s, `LOAD UPSERTS FROM '${files[0]}' PATH 'logs' WITH KEY_COLUMNS 'status';`);
  assert.equal(out.dataset.rowCount, 2);
});

test('LOAD must be the first statement and the only LOAD: checked before anything runs', async () => {
  const { f, files } = await threeLogs();
  const s = f.session();
  await assert.rejects(
    cell(s, `PRINT 'x'; LOAD UPSERTS FROM '${files[0]}' PATH 'logs';`),
    /LOAD must be the first statement of the pipeline/,
  );
  await assert.rejects(
    cell(s, `LOAD UPSERTS FROM '${files[0]}' PATH 'logs'; LOAD UPSERTS FROM '${files[1]}' PATH 'logs';`),
    /only one LOAD is allowed per pipeline; the first is at line 1/,
  );
});

test('without PATH, LOAD reads the workspace store of the pipeline that captured that name', async () => {
  const f = new Folder();
  folders.push(f);
  f.orders([[1, 'new', 10]]);
  await cell(f.session({ pipeline: 'capture-orders' }), `${CAPTURE} CAPTURE 'orders' ON KEYS 'id';`);
  const store = join(f.workspace, 'changelogs', 'capture-orders');
  const [file] = f.logs('ws/changelogs/capture-orders');
  const writer = f.session({ pipeline: 'push-orders' });
  const out = await cell(writer, `LOAD UPDATES FROM 'orders';`);
  assert.deepEqual(out.messages, [`change log ${join(store, file)} loaded: 1 insert, 0 updates, 0 deletes`]);
  assert.deepEqual((await cell(writer, `LOAD UPDATES FROM 'orders';`)).messages, [
    `no new change log of 'orders' in ${store} after execution id ${idOf(file)}: nothing to load, the rest of the pipeline is skipped`,
  ]);

  // The same name captured by a second pipeline: which one is meant must be said.
  await cell(f.session({ pipeline: 'other' }), `${CAPTURE} CAPTURE 'orders' ON KEYS 'id';`);
  await assert.rejects(
    cell(writer, `LOAD UPDATES FROM 'orders';`),
    /change logs named 'orders' are in the workspace store of pipelines capture-orders, other; say which with PATH/,
  );
  // …which the capturing pipeline itself never needs: its own store comes first.
  assert.match(
    (await cell(f.session({ pipeline: 'other' }), `LOAD UPDATES FROM 'orders';`)).messages[0],
    /changelogs\/other\/orders_\d+\.eds loaded/,
  );
});

test("@executionId is the loaded log's execution id, the run's own without one; other @words stay text", async () => {
  const { f, files } = await threeLogs();
  const s = f.session();
  const loaded = await cell(
    s,
    `LOAD UPSERTS FROM '${files[1]}' PATH 'logs';\nPRINT 'played @executionId. Mail ops@success.example or @someone';`,
  );
  assert.equal(loaded.messages.at(-1), `played ${idOf(files[1])}. Mail ops@success.example or @someone`);
  // The next cell carries the log over (a PUSH there plays it), so it names it too; after %reset the run has none.
  assert.deepEqual((await cell(s, "PRINT '@EXECUTIONID';")).messages, [String(idOf(files[1]))]);
  const own = await cell(s, "%reset\nPRINT '@EXECUTIONID';");
  assert.match(own.messages.at(-1)!, /^\d{13}$/);
  assert.notEqual(own.messages.at(-1), String(idOf(files[1])));
  await assert.rejects(cell(s, "PRINT '@success';"), /@success is only set in the ON_COMPLETION SQL of PUSH INTO DB/);
});
