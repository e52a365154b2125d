import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Value } from '../../runtime/dataset/types';
import type { ScriptError } from '../../runtime/errors';
import { startHttpServer, type TestServer } from '../helpers/http-server';
import { CAPTURE, cell, Folder, idOf, names, rows } from './pipelines';

const folders: Folder[] = [];
const servers: TestServer[] = [];
after(async () => {
  for (const f of folders) await f.close();
  for (const s of servers) await s.close();
});

function folder(): Folder {
  const f = new Folder();
  folders.push(f);
  return f;
}

const LOG = /^change log logs\/orders_(\d+)\.eds: /;

test('ON KEYS alone: the first run captures every record as an insert, later runs inserts and updates, never deletes', async () => {
  const f = folder();
  const s = f.session();
  const script = `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';`;
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
    [3, 'new', 30],
  ]);
  const first = await cell(s, script);
  assert.match(first.messages.join('\n'), LOG);
  assert.match(first.messages.join('\n'), /: 3 inserts, 0 updates, 0 deletes$/);
  assert.deepEqual(rows(first.dataset), [
    ['1', 'new', '10'],
    ['2', 'new', '20'],
    ['3', 'new', '30'],
  ]);

  f.orders([
    [1, 'new', 10],
    [2, 'paid', 20],
    [4, 'new', 40],
  ]);
  const second = await cell(s, script);
  assert.match(second.messages.join('\n'), /: 1 insert, 1 update, 0 deletes$/);
  assert.deepEqual(
    rows(second.dataset),
    [
      ['2', 'paid', '20'],
      ['4', 'new', '40'],
    ],
    'the dataset is the upsert stream, in source order',
  );
  const [, log2] = f.logs('logs');
  const log = await f.read(`logs/${log2}`);
  assert.deepEqual(rows(log.upserts), rows(second.dataset));
  assert.equal(log.deletes.rowCount, 0, 'record 3 went away, and DELETES was not asked for');
  assert.deepEqual(log.header.keys, ['id']);
  assert.deepEqual(log.header.counts, { inserts: 1, updates: 1, deletes: 0 });

  // Without DELETES the state keeps record 3: when it comes back unchanged it is not new.
  f.orders([
    [1, 'new', 10],
    [2, 'paid', 20],
    [3, 'new', 30],
    [4, 'new', 40],
  ]);
  const third = await cell(s, script);
  assert.deepEqual(third.messages, ['no change since the last capture: no change log written']);
  assert.equal(f.logs('logs').length, 2);
});

test('DELETES only when asked: a delete row holds its key, the other columns null; INSERTS or UPDATES alone report their kind', async () => {
  const f = folder();
  const s = f.session();
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
    [3, 'new', 30],
  ]);
  const first = await cell(s, `${CAPTURE} CAPTURE 'orders' DELETES ON KEYS 'id' WITH PATH 'logs';`);
  assert.deepEqual(
    first.messages,
    [
      'no change log written: 3 inserts found, which this CAPTURE does not report (it reports DELETES only); the CDC state has them',
    ],
    'a first run has inserts only, and they were not asked for: said so, not "no change"',
  );
  f.orders([
    [2, 'paid', 20],
    [4, 'new', 40],
  ]);
  const out = await cell(s, `${CAPTURE} CAPTURE 'orders' DELETES ON KEYS 'id' WITH PATH 'logs';`);
  assert.match(out.messages.join('\n'), /: 0 inserts, 0 updates, 2 deletes$/, 'DELETES alone reports deletes only');
  assert.equal(out.dataset.rowCount, 0);
  assert.deepEqual(names(out.dataset), ['id', 'status', 'amount']);
  const log = await f.read(`logs/${f.logs('logs')[0]}`);
  assert.deepEqual(rows(log.deletes), [
    ['1', null, null],
    ['3', null, null],
  ]);

  f.orders([
    [2, 'shipped', 20],
    [4, 'new', 40],
    [5, 'new', 50],
  ]);
  const inserts = await cell(s, `${CAPTURE} CAPTURE 'orders' INSERTS ON KEYS 'id' WITH PATH 'logs';`);
  assert.match(inserts.messages.join('\n'), /: 1 insert, 0 updates, 0 deletes$/);
  assert.deepEqual(rows(inserts.dataset), [['5', 'new', '50']]);
  f.orders([
    [2, 'returned', 20],
    [4, 'new', 40],
    [5, 'new', 50],
    [6, 'new', 60],
  ]);
  const updates = await cell(s, `${CAPTURE} CAPTURE 'orders' UPDATES ON KEYS 'id' WITH PATH 'logs';`);
  assert.match(updates.messages.join('\n'), /: 0 inserts, 1 update, 0 deletes$/);
  assert.deepEqual(
    rows(updates.dataset),
    [['2', 'returned', '20']],
    'the state followed the source: 2 changed once more since the last log',
  );
  f.orders([
    [2, 'returned', 20],
    [4, 'new', 40],
    [5, 'new', 50],
    [6, 'new', 60],
    [7, 'new', 70],
  ]);
  const unasked = await cell(s, `${CAPTURE} CAPTURE 'orders' UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';`);
  assert.deepEqual(unasked.messages, [
    'no change log written: 1 insert found, which this CAPTURE does not report (it reports UPDATES, DELETES only); the CDC state has them',
  ]);
});

test('CDCMARKER: upserts hold I or U, and the delete stream carries the marker too, holding D', async () => {
  const f = folder();
  const s = f.session();
  const script = `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs' CDCMARKER 'op';`;
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
    [3, 'new', 30],
  ]);
  const first = await cell(s, script);
  assert.deepEqual(names(first.dataset), ['id', 'status', 'amount', 'op']);
  assert.deepEqual(
    first.dataset.rows().map((r) => r[3]),
    ['I', 'I', 'I'],
  );
  f.orders([
    [1, 'new', 10],
    [2, 'paid', 20],
    [4, 'new', 40],
  ]);
  const second = await cell(s, script);
  assert.deepEqual(rows(second.dataset), [
    ['2', 'paid', '20', 'U'],
    ['4', 'new', '40', 'I'],
  ]);
  const log = await f.read(`logs/${f.logs('logs')[1]}`);
  assert.equal(log.header.marker, 'op');
  assert.deepEqual(rows(log.deletes), [['3', null, null, 'D']]);
  assert.deepEqual(names(log.deletes), names(log.upserts), 'both streams have one schema');

  await assert.rejects(
    cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs' CDCMARKER 'status';`),
    /CDCMARKER 'status' names an existing column/,
  );
});

test('without KEYS every run captures the whole dataset as inserts and keeps no state', async () => {
  const f = folder();
  const s = f.session();
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
  ]);
  for (let run = 0; run < 3; run++) {
    const out = await cell(s, `${CAPTURE} CAPTURE 'orders' WITH PATH 'logs';`);
    assert.match(out.messages.join('\n'), /: 2 inserts, 0 updates, 0 deletes$/);
    assert.equal(out.dataset.rowCount, 2);
  }
  assert.equal(f.logs('logs').length, 3);
  assert.equal(existsSync(join(f.workspace, 'cdc')), false, 'no CDC state without keys');
  assert.deepEqual((await f.read(`logs/${f.logs('logs')[2]}`)).header.keys, []);
  await assert.rejects(
    cell(s, `${CAPTURE} CAPTURE 'orders' DELETES WITH PATH 'logs';`),
    /DELETES needs ON KEYS: without keys every run captures the whole dataset/,
  );
});

test('a PATH that is a file, not a folder, is an error that says so', async () => {
  const f = folder();
  const s = f.session();
  f.orders([[1, 'new', 10]]);
  f.write('o.csv', 'not a folder\n');
  await assert.rejects(cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'o.csv';`), (e: ScriptError) => {
    assert.match(e.message, /^\S*o\.csv is a file, not a folder$/);
    assert.equal(e.statement, 'CAPTURE');
    return true;
  });
});

test('INIT_ON_FIRST_RUN: the first run records the state and writes no log; the dataset is empty with the source columns', async () => {
  const f = folder();
  const s = f.session();
  const script = `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs' INIT_ON_FIRST_RUN;`;
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
    [3, 'new', 30],
  ]);
  const first = await cell(s, script);
  assert.deepEqual(first.messages, ['CDC state initialized with 3 records; no change log written']);
  assert.equal(first.dataset.rowCount, 0);
  assert.deepEqual(names(first.dataset), ['id', 'status', 'amount']);
  assert.deepEqual(f.logs('logs'), []);
  f.orders([
    [1, 'new', 10],
    [2, 'paid', 20],
    [3, 'new', 30],
    [4, 'new', 40],
  ]);
  const second = await cell(s, script);
  assert.match(second.messages.join('\n'), /: 1 insert, 1 update, 0 deletes$/);
  assert.equal(f.logs('logs').length, 1);
});

test('OBSERVE: only the observed columns make an update; the rows carry every column', async () => {
  const f = folder();
  const s = f.session();
  const script = `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' OBSERVE 'status' WITH PATH 'logs';`;
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
  ]);
  await cell(s, script);
  f.orders([
    [1, 'new', 11],
    [2, 'paid', 20],
  ]);
  const out = await cell(s, script);
  assert.deepEqual(rows(out.dataset), [['2', 'paid', '20']], 'amount is not observed');
  f.orders([
    [1, 'new', 12],
    [2, 'paid', 21],
  ]);
  assert.deepEqual((await cell(s, script)).messages, ['no change since the last capture: no change log written']);
  assert.equal(f.logs('logs').length, 2);
});

test('a run that finds no change writes no log, and its dataset is empty with the source columns', async () => {
  const f = folder();
  const s = f.session();
  f.orders([[1, 'new', 10]]);
  const script = `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs' CDCMARKER 'op';`;
  await cell(s, script);
  const out = await cell(s, script);
  assert.deepEqual(out.messages, ['no change since the last capture: no change log written']);
  assert.equal(out.dataset.rowCount, 0);
  assert.deepEqual(names(out.dataset), ['id', 'status', 'amount', 'op']);
  assert.equal(f.logs('logs').length, 1);
});

test('duplicate keys: an error with the key and its rows, nothing written; IGNORE_DUPS keeps the first row of each key', async () => {
  const f = folder();
  const s = f.session();
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
    [1, 'again', 11],
    [3, 'new', 30],
    [1, 'thrice', 12],
  ]);
  const script = `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';`;
  await assert.rejects(cell(s, script), (e: ScriptError) => {
    assert.match(e.message, /duplicate key id=.?1.? in rows 1, 3 and 5/);
    assert.equal(e.statement, 'CAPTURE');
    assert.equal(e.position?.line, 1);
    return true;
  });
  assert.deepEqual(f.logs('logs'), []);
  assert.equal(existsSync(join(f.workspace, 'cdc')), false, 'no state either');
  const out = await cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs' IGNORE_DUPS;`);
  assert.deepEqual(rows(out.dataset), [
    ['1', 'new', '10'],
    ['2', 'new', '20'],
    ['3', 'new', '30'],
  ]);
});

test('a second CAPTURE is an error on its line before any statement runs: no log, no state, no request', async () => {
  const server = await startHttpServer((_req, res) => void res.writeHead(200).end('[]'));
  servers.push(server);
  const f = folder();
  const s = f.session();
  f.orders([[1, 'new', 10]]);
  await cell(s, `%connection add api ${server.url}`);
  const script = [
    `SELECT * FROM HTTP [api] (GET /before);`,
    CAPTURE,
    `CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';`,
    `APPLY PIPELINE (`,
    `  CAPTURE 'again' ON KEYS 'id' WITH PATH 'logs';`,
    `);`,
  ].join('\n');
  await assert.rejects(cell(s, script), (e: ScriptError) => {
    assert.match(e.message, /only one CAPTURE is allowed per pipeline; the first is at line 3/);
    assert.equal(e.position?.line, 5);
    return true;
  });
  assert.equal(server.requests.length, 0, 'the first statement never ran');
  assert.deepEqual(f.logs('logs'), []);
  assert.equal(existsSync(join(f.workspace, 'cdc')), false);
});

test('comparison is typed and null-safe: null and empty text differ; decimal 1 and 1.0 are one value', async () => {
  const f = folder();
  const s = f.session();
  const script = `SELECT * FROM DRIVE 'items.json'; APPLY SCHEMA ( int id
    string note
    decimal price ); CAPTURE 'items' ON KEYS 'id' WITH PATH 'logs';`;
  f.write(
    'items.json',
    JSON.stringify([
      { id: 1, note: null, price: '1' },
      { id: 2, note: '', price: '2.50' },
      { id: 3, note: 'x', price: '3' },
    ]),
  );
  await cell(s, script);
  f.write(
    'items.json',
    JSON.stringify([
      { id: 1, note: '', price: '1.0' },
      { id: 2, note: null, price: '2.5' },
      { id: 3, note: 'x', price: '3.000' },
    ]),
  );
  const out = await cell(s, script);
  assert.match(out.messages.join('\n'), /: 0 inserts, 2 updates, 0 deletes$/);
  assert.deepEqual(
    out.dataset.rows().map((r) => [r[0], r[1]]),
    [
      [1, ''],
      [2, null],
    ],
    'only the notes changed; 1 = 1.0, 2.50 = 2.5, 3 = 3.000',
  );
  f.write(
    'items.json',
    JSON.stringify([
      { id: 1, note: '', price: '1.01' },
      { id: 2, note: null, price: '2.5' },
      { id: 3, note: 'x', price: '3' },
    ]),
  );
  const third = await cell(s, script);
  assert.deepEqual(
    third.dataset.rows().map((r) => r[0]),
    [1],
    'a decimal that changes value is a change',
  );
  const log = await f.read(`logs/${f.logs('logs')[2]}`);
  assert.equal(String(log.upserts.cell(0, 2)), '1.01', 'the decimal keeps its digits in the log');
});

test('a changed key, or a column OBSERVE no longer names, is an error saying what changed and how to start over', async () => {
  const f = folder();
  const s = f.session();
  f.orders([[1, 'new', 10]]);
  await cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' OBSERVE 'status,amount' WITH PATH 'logs';`);
  await assert.rejects(
    cell(
      s,
      `${CAPTURE} APPLY SCHEMA ( int id
      string status
      string amount ); CAPTURE 'orders' ON KEYS 'id' OBSERVE 'status,amount' WITH PATH 'logs';`,
    ),
    /the columns changed since the last capture: key column 'id' was string and is now int\. .*delete the CDC state '.*orders\.state'/,
  );
  await assert.rejects(
    cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' OBSERVE 'status' WITH PATH 'logs';`),
    /the columns changed since the last capture: OBSERVE no longer names 'amount'\./,
  );
  await assert.rejects(
    cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id,status' OBSERVE 'amount' WITH PATH 'logs';`),
    /ON KEYS was 'id' and is now 'id,status'/,
  );
  assert.equal(f.logs('logs').length, 1, 'none of these wrote a log');
});

/** The upserts of the last run's log as [id, rest…] rows, and the run's counts line. */
async function lastRun(f: Folder, out: { messages: string[] }): Promise<{ summary: string; upserts: Value[][] }> {
  const logs = f.logs('logs');
  const log = await f.read(`logs/${logs[logs.length - 1]}`);
  return {
    summary: /\d+ inserts?, \d+ updates?, \d+ deletes?$/m.exec(out.messages.join('\n'))?.[0] ?? '',
    upserts: log.upserts.rows(),
  };
}

test('JSON types inferred per run: an int run after a double run, a field left out, a field new or once all null are no changes of their own', async () => {
  const f = folder();
  const s = f.session();
  const script = `SELECT * FROM DRIVE 'items.json'; CAPTURE 'items' ON KEYS 'id' WITH PATH 'logs';`;
  const run = async (items: object[]) => {
    f.write('items.json', JSON.stringify(items));
    return cell(s, script);
  };
  const first = await run([
    { id: 1, price: 1.5, note: null },
    { id: 2, price: 2, note: null },
  ]);
  assert.deepEqual(
    first.dataset.columns.map((c) => `${c.name} ${c.type.base}`),
    ['id int', 'price double', 'note string'],
  );

  // Every price whole today: inferred int, compared (and logged) as the double the state saw.
  let out = await run([
    { id: 1, price: 2, note: null },
    { id: 2, price: 2, note: null },
  ]);
  let got = await lastRun(f, out);
  assert.equal(got.summary, '0 inserts, 1 update, 0 deletes');
  assert.deepEqual(got.upserts, [[1, 2, null]]);
  assert.equal(out.dataset.columns[1].type.base, 'double', 'the log keeps the type the state saw');

  // A field once null everywhere now has values: its type is today's, and a value is a change.
  out = await run([
    { id: 1, price: 2, note: 7 },
    { id: 2, price: 2, note: null },
  ]);
  got = await lastRun(f, out);
  assert.equal(got.summary, '0 inserts, 1 update, 0 deletes');
  assert.deepEqual(got.upserts, [[1, 2, 7]]);
  assert.equal(out.dataset.columns[2].type.base, 'int');

  // The API leaves out a field that is null: compared, and logged, as null.
  out = await run([
    { id: 1, price: 2 },
    { id: 2, price: 2 },
  ]);
  got = await lastRun(f, out);
  assert.equal(got.summary, '0 inserts, 1 update, 0 deletes', "only id 1's note was not null");
  assert.deepEqual(got.upserts, [[1, 2, null]]);
  assert.deepEqual(
    out.dataset.columns.map((c) => c.name),
    ['id', 'price', 'note'],
  );

  // A new field: its values are changes, its nulls are not; later runs compare it like the others.
  out = await run([
    { id: 1, price: 2, tag: 'a' },
    { id: 2, price: 2, tag: null },
  ]);
  got = await lastRun(f, out);
  assert.equal(got.summary, '0 inserts, 1 update, 0 deletes');
  assert.deepEqual(got.upserts, [[1, 2, 'a', null]]);
  out = await run([
    { id: 1, price: 2, tag: 'a' },
    { id: 2, price: 2, tag: 'b' },
  ]);
  got = await lastRun(f, out);
  assert.equal(got.summary, '0 inserts, 1 update, 0 deletes');
  assert.deepEqual(got.upserts, [[2, 2, 'b', null]]);

  // A price that is no longer a number: its rows are updates, whole numbers that read back alike are not.
  out = await run([
    { id: 1, price: 2, tag: 'a' },
    { id: 2, price: 'n/a', tag: 'b' },
  ]);
  got = await lastRun(f, out);
  assert.equal(got.summary, '0 inserts, 1 update, 0 deletes');
  assert.deepEqual(got.upserts, [[2, 'n/a', 'b', null]]);
  out = await run([
    { id: 1, price: 2, tag: 'a' },
    { id: 2, price: 'n/a', tag: 'b' },
  ]);
  assert.deepEqual(out.messages, ['no change since the last capture: no change log written'], 'the next run is quiet');
  // The doubles came back: compared with the text the state now holds, 2 as '2'.
  out = await run([
    { id: 1, price: 2, tag: 'a' },
    { id: 2, price: 2.5, tag: 'b' },
  ]);
  got = await lastRun(f, out);
  assert.equal(got.summary, '0 inserts, 1 update, 0 deletes');
  assert.deepEqual(got.upserts, [[2, '2.5', 'b', null]]);
});

test("naming: a name gets <name>_<id>.eds with strictly increasing ids; name.eds is one file, overwritten; no name is the pipeline's", async () => {
  const f = folder();
  const s = f.session();
  for (let i = 0; i < 4; i++) {
    f.orders([[1, 'new', 10 + i]]);
    await cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';`);
  }
  const ids = f.logs('logs').map(idOf);
  assert.equal(ids.length, 4);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], 'ids increase run after run');
  const log = await f.read(`logs/${f.logs('logs')[3]}`);
  assert.equal(log.header.executionId, String(ids[3]));
  assert.equal(log.header.name, 'orders');

  f.orders([[1, 'new', 10]]);
  await cell(s, `${CAPTURE} CAPTURE 'fixed.eds' ON KEYS 'id' WITH PATH 'out';`);
  const firstFixed = await f.read('out/fixed.eds');
  f.orders([[1, 'paid', 10]]);
  await cell(s, `${CAPTURE} CAPTURE 'fixed.eds' ON KEYS 'id' WITH PATH 'out';`);
  assert.deepEqual(f.logs('out'), ['fixed.eds']);
  const fixed = await f.read('out/fixed.eds');
  assert.deepEqual(rows(fixed.upserts), [['1', 'paid', '10']], 'the second run replaced the file');
  assert.ok(BigInt(fixed.header.executionId) > BigInt(firstFixed.header.executionId));
  assert.deepEqual(f.files('out'), ['fixed.eds'], 'no temp file left behind');

  await cell(s, '%pipeline nightly-orders');
  await cell(s, `${CAPTURE} CAPTURE ON KEYS 'id' WITH PATH 'anon';`);
  const [anon] = f.logs('anon');
  assert.match(anon, /^nightly-orders_\d+\.eds$/);
  const header = (await f.read(`anon/${anon}`)).header;
  assert.equal(header.pipeline, 'nightly-orders');
  assert.equal(header.name, 'nightly-orders');
});

test('PATH is a folder relative to the working directory; without PATH logs go to <workspace>/changelogs/<pipeline>/', async () => {
  const f = folder();
  const s = f.session();
  f.orders([[1, 'new', 10]]);
  const inFolder = await cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'exports/cdc';`);
  assert.match(
    inFolder.messages.join('\n'),
    /^change log exports\/cdc\/orders_\d+\.eds: 1 insert, 0 updates, 0 deletes$/,
  );
  assert.equal(f.logs('exports/cdc').length, 1);

  await cell(s, '%pipeline shop');
  const stored = await cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id';`);
  const store = join(f.workspace, 'changelogs', 'shop');
  assert.equal(
    stored.messages.join('\n'),
    `change log ${join(store, f.logs('ws/changelogs/shop')[0])}: 1 insert, 0 updates, 0 deletes`,
  );
});

test('%pipeline keys the CDC state: the same CAPTURE in another pipeline starts from no state', async () => {
  const f = folder();
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
  ]);
  const script = `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';`;
  const a = f.session({ pipeline: 'a' });
  await cell(a, script);
  assert.deepEqual((await cell(a, script)).messages, ['no change since the last capture: no change log written']);
  const b = f.session({ pipeline: 'b' });
  assert.match((await cell(b, script)).messages.join('\n'), /: 2 inserts/, 'pipeline b has its own state');
  await cell(b, '%pipeline a');
  assert.deepEqual(
    (await cell(b, script)).messages,
    ['no change since the last capture: no change log written'],
    '%pipeline a reads the state of a',
  );
  assert.ok(existsSync(join(f.workspace, 'cdc', 'a', 'orders.state')));
  assert.ok(existsSync(join(f.workspace, 'cdc', 'b', 'orders.state')));
});

test('the delete stream rides along with the upserts: PUSH INTO HTTP in the same cell and in a later cell sends both', async () => {
  const server = await startHttpServer(
    (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
  );
  servers.push(server);
  const f = folder();
  const s = f.session();
  await cell(s, `%connection add api ${server.url}`);
  const push = `PUSH INTO HTTP [api] ON_UPSERT (PUT /orders/{{id}}) PAYLOAD ({"status": "{{status}}"}) ON_DELETE (DELETE /orders/{{id}});`;
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
    [3, 'new', 30],
  ]);
  await cell(s, `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs'; ${push}`);
  assert.deepEqual(
    server.requests.map((r) => `${r.method} ${r.url}`),
    ['PUT /orders/1', 'PUT /orders/2', 'PUT /orders/3'],
  );
  server.requests.length = 0;

  f.orders([
    [2, 'paid', 20],
    [3, 'new', 30],
  ]);
  await cell(s, `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';`);
  await cell(s, push);
  assert.deepEqual(
    server.requests.map((r) => `${r.method} ${r.url} ${r.body}`),
    ['PUT /orders/2 {"status": "paid"}', 'DELETE /orders/1 '],
  );
});

test('ENCRYPT_CERT or SIGN_CERT naming no certificate of the store fails before the diff: no log, no state', async () => {
  const f = folder();
  const s = f.session();
  f.orders([[1, 'new', 10]]);
  await assert.rejects(
    cell(s, `${CAPTURE} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs' ENCRYPT_CERT 'ab12';`),
    /no certificate with thumbprint AB12 \(known: none: add PEM files to .*certs/i,
  );
  assert.deepEqual(f.logs('logs'), []);
  assert.equal(existsSync(join(f.workspace, 'cdc')), false);
});

test('a source that returns nothing at all (an empty JSON array, no columns) is no record, not an unknown key: no change, or every record deleted with DELETES', async () => {
  const f = folder();
  const s = f.session();
  const script = (name: string, kinds: string) =>
    `SELECT * FROM DRIVE 'items.json'; CAPTURE '${name}' ${kinds} ON KEYS 'id' WITH PATH 'logs' CDCMARKER 'op';`;
  f.write('items.json', '[]');
  const first = await cell(s, script('items', ''));
  assert.deepEqual(first.messages, ['no change since the last capture: no change log written']);
  f.write(
    'items.json',
    JSON.stringify([
      { id: 1, note: 'a' },
      { id: 2, note: 'b' },
    ]),
  );
  await cell(s, script('items', ''));
  await cell(s, script('all', 'INSERTS UPDATES DELETES'));
  assert.equal(f.logs('logs').length, 2);

  f.write('items.json', '[]');
  const partial = await cell(s, script('items', ''));
  assert.deepEqual(partial.messages, ['no change since the last capture: no change log written']);
  const gone = await cell(s, script('all', 'INSERTS UPDATES DELETES'));
  assert.match(gone.messages.join('\n'), /: 0 inserts, 0 updates, 2 deletes$/);
  const log = await f.read(`logs/${f.logs('logs').filter((l) => l.startsWith('all_'))[1]}`);
  assert.deepEqual(names(log.deletes), ['id', 'note', 'op']);
  assert.deepEqual(log.deletes.rows(), [
    [1, null, 'D'],
    [2, null, 'D'],
  ]);

  // The state still knows both records of 'items': they come back unchanged, so nothing is new.
  f.write(
    'items.json',
    JSON.stringify([
      { id: 1, note: 'a' },
      { id: 2, note: 'b' },
    ]),
  );
  const back = await cell(s, script('items', ''));
  assert.deepEqual(back.messages, ['no change since the last capture: no change log written']);
});

test('CAPTURE with DELETES in the inline APPLY PIPELINE of a read is an error before anything runs: each page would delete the records of the others', async () => {
  const server = await startHttpServer((_req, res) => void res.writeHead(200).end('[{"id":1}]'));
  servers.push(server);
  const f = folder();
  const s = f.session();
  await cell(s, `%connection add api ${server.url}`);
  const script = [
    `SELECT * FROM HTTP [api] (GET /items) APPLY TX '$' APPLY PIPELINE (`,
    `  APPLY PIPELINE ( CAPTURE 'items' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs'; );`,
    `);`,
  ].join('\n');
  await assert.rejects(cell(s, script), (e: ScriptError) => {
    assert.match(e.message, /DELETES .*once per page.*after the read/);
    assert.equal(e.position?.line, 2);
    return true;
  });
  assert.equal(server.requests.length, 0, 'the read never ran');
  assert.deepEqual(f.logs('logs'), []);

  // After the read CAPTURE sees every record, and so does a standalone APPLY PIPELINE.
  const after = await cell(
    s,
    `SELECT * FROM HTTP [api] (GET /items) APPLY TX '$'; APPLY PIPELINE ( CAPTURE 'items' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs'; );`,
  );
  assert.match(after.messages.join('\n'), /: 1 insert, 0 updates, 0 deletes$/);
});

test('INIT_ON_FIRST_RUN in the inline APPLY PIPELINE of a paged read initializes from every page, not only the first', async () => {
  const f = folder();
  const db = new Database(join(f.dir, 'shop.db'));
  db.exec('create table items (id integer primary key, v text)');
  const insert = db.prepare('insert into items values (?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 25000; i++) insert.run(i, `v${i}`);
  })();
  db.close();
  const s = f.session();
  await cell(s, '%connection add lite sqlite:shop.db');
  const script = `SELECT * FROM DB [lite] ( select * from items order by id ) APPLY PIPELINE (
    CAPTURE 'items' ON KEYS 'id' WITH PATH 'logs' INIT_ON_FIRST_RUN );`;
  const first = await cell(s, script);
  assert.deepEqual(f.logs('logs'), [], 'the first run writes no change log, whatever page a record is on');
  assert.equal(first.dataset.rowCount, 0);
  assert.equal(first.messages.filter((m) => m.startsWith('CDC state initialized')).length, 3);

  const second = await cell(s, script);
  assert.deepEqual(f.logs('logs'), [], 'every record of every page is in the state');
  assert.equal(second.dataset.rowCount, 0);
});

test('a fixed change log name (with an extension) in the inline APPLY PIPELINE of a read is an error before anything runs: each page would overwrite the log of the page before', async () => {
  const server = await startHttpServer((_req, res) => void res.writeHead(200).end('[{"id":1}]'));
  servers.push(server);
  const f = folder();
  const s = f.session();
  await cell(s, `%connection add api ${server.url}`);
  const script = `SELECT * FROM HTTP [api] (GET /items) APPLY TX '$' APPLY PIPELINE (
    CAPTURE 'items.eds' ON KEYS 'id' WITH PATH 'logs'; );`;
  await assert.rejects(cell(s, script), (e: ScriptError) => {
    assert.match(e.message, /'items\.eds' .*overwrite.*after the read/);
    assert.equal(e.position?.line, 2);
    return true;
  });
  assert.equal(server.requests.length, 0, 'the read never ran');
  assert.equal(existsSync(join(f.workspace, 'cdc')), false, 'no state');

  const timestamped = await cell(s, script.replace("'items.eds'", "'items'"));
  assert.match(timestamped.messages.join('\n'), /change log logs\/items_\d+\.eds: 1 insert/);
});

test('a record on two pages of one paged read (an API shifting items while it is read) is a duplicate key, as within one dataset: an error, or with IGNORE_DUPS the first one seen is kept', async () => {
  let pages: Record<string, unknown[]> = {};
  const server = await startHttpServer((req, res) => {
    const page = new URL(req.url, 'http://x').searchParams.get('page') ?? '1';
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(pages[page] ?? []));
  });
  servers.push(server);
  const f = folder();
  const s = f.session();
  await cell(s, `%connection add api ${server.url}`);
  const paged = (name: string, extra = '') =>
    `SELECT * FROM HTTP [api] (GET /items?page=1) APPLY TX '$' WITH PAGING 'page'
       APPLY PIPELINE ( CAPTURE '${name}' ON KEYS 'id' WITH PATH 'logs' ${extra} );`;
  const upserts = async (name: string) => {
    const out: Value[][] = [];
    for (const log of f.logs('logs').filter((l) => l.startsWith(`${name}_`)))
      out.push(...rows((await f.read(`logs/${log}`)).upserts));
    return out;
  };
  // Item 2 moved from the end of page 1 to the start of page 2 while the pages were read.
  pages = {
    '1': [
      { id: 1, v: 'a' },
      { id: 2, v: 'b' },
    ],
    '2': [
      { id: 2, v: 'b' },
      { id: 3, v: 'c' },
    ],
  };
  await assert.rejects(cell(s, paged('strict')), (e: ScriptError) => {
    assert.match(
      e.message,
      /duplicate key id=2 in row 1 of this page was on an earlier page of this read\. Add WITH IGNORE_DUPS to keep the first one seen of each key/,
    );
    return true;
  });
  assert.deepEqual(await upserts('strict'), [
    [1, 'a'],
    [2, 'b'],
  ]);

  // With IGNORE_DUPS one change per key per run, the first one seen: here it even changed between
  // the two pages, and the later value waits for the next run (at least once, never lost).
  pages['2'] = [
    { id: 2, v: 'b2' },
    { id: 3, v: 'c' },
  ];
  const first = await cell(s, paged('lenient', 'IGNORE_DUPS'));
  assert.deepEqual(
    first.messages.slice(0, 2).map((m) => m.replace(/^change log \S+: /, '')),
    ['2 inserts, 0 updates, 0 deletes', '1 insert, 0 updates, 0 deletes'],
  );
  assert.deepEqual(await upserts('lenient'), [
    [1, 'a'],
    [2, 'b'],
    [3, 'c'],
  ]);
  pages = {
    '1': [
      { id: 1, v: 'a' },
      { id: 2, v: 'b2' },
    ],
    '2': [{ id: 3, v: 'c' }],
  };
  const second = await cell(s, paged('lenient', 'IGNORE_DUPS'));
  assert.deepEqual(second.messages[0].replace(/^change log \S+: /, ''), '0 inserts, 1 update, 0 deletes');
  assert.deepEqual((await upserts('lenient')).slice(3), [[2, 'b2']]);
});
