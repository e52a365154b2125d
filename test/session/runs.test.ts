import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { ServerResponse } from 'node:http';
import { Dataset, Session, parseScript, type Command, type OutputItem, type Result } from '../../runtime/index';
import { Resources } from '../../runtime/resources';
import type { Print } from '../../runtime/script/ast';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

function texts(results: Result[]): string[] {
  return results.flatMap((r) => (r.kind === 'message' ? [r.text] : []));
}

test('a cell and a run started meanwhile on the same session see only their own dataset and statebag', async () => {
  // The cell stops in the middle on an HTTP call that the test answers only after the other run is done.
  let answer: (() => void) | undefined;
  const server = await startHttpServer((_req, res: ServerResponse) => {
    answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('[{"n": 1}, {"n": 2}, {"n": 3}]');
  });
  servers.push(server);
  const { session } = tempSession({}, 'runs');
  session.setDataset(Dataset.fromRows([{ name: 'cell_col', type: { base: 'int' } }], [[1], [2]]));
  const cell = session.run(
    `PRINT 'cell before: #statebag(who, cell)|#data.count()';
     SELECT * FROM HTTP (GET ${server.url}/slow) APPLY TX '$';
     PRINT 'cell after: #statebag(who)|#data.count()';`,
  );
  await server.received(1);

  const outputs: OutputItem[] = [];
  const unsubscribe = session.output.subscribe((item) => outputs.push(item));
  const payload = Dataset.fromRows(
    [{ name: 'payload_col', type: { base: 'string' } }],
    [['a'], ['b'], ['c'], ['d'], ['e']],
  );
  const other = session.newRun({ dataset: payload, pipeline: 'hook', origin: 'webhook call 1' });
  await other.execute(
    parseScript(
      "PRINT 'other: [#statebag(who)]|#data.count()'; PRINT '#statebag(who, other)'; APPLY FILTER 'payload_col <> ''a''';",
    ).statements,
  );
  unsubscribe();
  assert.deepEqual(
    outputs.map((o) => [o.origin, o.result.kind === 'message' ? o.result.text : o.result.kind]),
    [
      ['webhook call 1', 'other: []|5'],
      ['webhook call 1', 'other'],
    ],
    "the other run does not see the cell's statebag or dataset, and its output is labelled with its origin",
  );
  assert.equal(other.dataset.rowCount, 4);
  assert.equal(other.pipeline, 'hook');
  assert.notEqual(other.executionId, undefined);

  answer!();
  assert.deepEqual(
    texts(await cell),
    ['cell before: cell|2', 'cell after: cell|3'],
    "the cell keeps its statebag; the other run's value never reached it",
  );
  assert.deepEqual(
    session.dataset.columns.map((c) => c.name),
    ['n'],
    "the cell's result is the interactive pipeline; the other run's dataset never was",
  );
  await session.close();
});

test('execution ids are unique and increasing, also for runs started in the same millisecond', () => {
  const { session } = tempSession({}, 'runs');
  const ids = Array.from({ length: 50 }, () => Number(session.newRun().executionId));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `id ${ids[i]} follows ${ids[i - 1]}`);
  assert.ok(Math.abs(ids[0] - Date.now()) < 60_000, 'an execution id is a Unix time in milliseconds');
});

test('output emitted after its cell ended reaches the session output channel with the cell origin', async () => {
  // A command of the test's own (SessionOptions.commands) that also prints later, as a listener would.
  let later: Promise<void> = Promise.resolve();
  const print: Command<Print> = async (stmt, _input, ctx) => {
    ctx.emit({ kind: 'message', text: stmt.text.value });
    later = new Promise((resolve) =>
      setTimeout(() => {
        ctx.emit({ kind: 'message', text: `${stmt.text.value}, later` });
        resolve();
      }, 10),
    );
  };
  const { dir } = tempSession({}, 'runs');
  const session = new Session({ workspace: `${dir}/ws2`, cwd: dir, commands: { Print: print } });
  const items: OutputItem[] = [];
  session.output.subscribe((item) => items.push(item));
  const results = [];
  for await (const r of session.execute("PRINT 'hello';", { origin: 'cell-7' })) results.push(r);
  assert.deepEqual(texts(results), ['hello'], 'the cell itself shows only what came while it ran');
  await later;
  assert.deepEqual(items, [{ origin: 'cell-7', result: { kind: 'message', text: 'hello, later' } }]);
  // The session's other commands are the language's own.
  assert.deepEqual(texts(await session.run("PRINT 'x'; EXIT;")), ['x']);
});

test('a failing cell leaves the pipeline as before the failing statement and keeps earlier statements', async () => {
  const { session } = tempSession({ 'a.csv': 'id\n1\n2\n3\n' }, 'runs');
  await assert.rejects(session.run("SELECT * FROM DRIVE 'a.csv'; APPLY FILTER 'nosuch > 1';"), /nosuch/);
  assert.equal(session.dataset.rowCount, 3);
});

test('resources: shared by key, all closed with the session even when one fails, none opened after', async () => {
  const resources = new Resources();
  const closed: string[] = [];
  const a = resources.shared('a', () => ({ close: () => void closed.push('a') }));
  assert.equal(
    resources.shared('a', () => assert.fail('created twice')),
    a,
  );
  resources.add({
    close: async () => {
      throw new Error('b failed');
    },
  });
  const c = resources.add({ close: () => void closed.push('c') });
  const d = resources.add({ close: () => void closed.push('d') });
  await resources.release(d);
  assert.deepEqual(closed, ['d'], 'released early');
  await assert.rejects(resources.close(), /b failed/);
  assert.deepEqual(closed.sort(), ['a', 'c', 'd'], 'a failure of one does not keep the others open');
  assert.throws(() => resources.add(c), /closed/);
});

test('closing the session closes its HTTP connections', async () => {
  const server = await startHttpServer((_req, res) => sendJson(res, { a: 1 }));
  servers.push(server);
  const { session } = tempSession({}, 'runs');
  await session.run(`SELECT * FROM HTTP (GET ${server.url}/x);`);
  const open = await server.connections();
  assert.equal(open, 1, 'the keep-alive connection stays open between statements');
  await session.close();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(await server.connections(), 0, 'closing the session closed it');
});

test('a second CAPTURE, or a LOAD that is not first and only, fails before any statement runs', async () => {
  const { session } = tempSession({}, 'runs');
  const cases: [string, RegExp, number][] = [
    [
      "PRINT 'side effect';\nCAPTURE 'a' ON KEYS 'id';\nAPPLY PIPELINE (\n  CAPTURE 'b' ON KEYS 'id';\n);",
      /only one CAPTURE is allowed per pipeline; the first is at line 2/,
      4,
    ],
    ["PRINT 'side effect';\nLOAD UPSERTS FROM 'orders';", /LOAD must be the first statement of the pipeline/, 2],
    [
      "LOAD UPSERTS FROM 'a';\nLOAD UPSERTS FROM 'b';",
      /only one LOAD is allowed per pipeline; the first is at line 1/,
      2,
    ],
  ];
  for (const [script, message, line] of cases) {
    const results: Result[] = [];
    for await (const r of session.execute(script)) results.push(r);
    assert.deepEqual(texts(results), [], `nothing ran: ${script}`);
    const error = results.find((r) => r.kind === 'error');
    assert.ok(error?.kind === 'error');
    assert.match(error.error.message, message);
    assert.equal(error.error.position?.line, line, script);
  }
});

test("a cell whose CAPTURE finds no change pushes nothing: the previous cell's change log is not played again", async () => {
  const { session } = tempSession({ 'orders.csv': 'id,name\n1,lamp\n2,door\n' }, 'runs');
  const target = await startHttpServer((_req, res) => sendJson(res, {}));
  servers.push(target);
  const cell = `SELECT * FROM DRIVE 'orders.csv';
CAPTURE 'orders' ON KEYS 'id';
PUSH INTO HTTP ON_UPSERT (POST ${target.url}/orders) PAYLOAD ({"id": {{id}}});`;
  try {
    assert.match(texts(await session.run(cell)).join('\n'), /2 inserts/);
    assert.equal(target.requests.length, 2);
    // The same cell again, the source unchanged (a notebook re-run).
    assert.match(texts(await session.run(cell)).join('\n'), /no change since the last capture/);
    assert.equal(target.requests.length, 2);
  } finally {
    await session.close();
  }
});

test('evaluate (user_expressions) sees what the next cell would: the last HTTP response and the change log', async () => {
  const server = await startHttpServer((_req, res) => sendJson(res, [{ id: 1 }, { id: 2 }]));
  servers.push(server);
  const { session } = tempSession({}, 'runs');
  try {
    await session.run(`SELECT * FROM HTTP (GET ${server.url}/orders) APPLY TX '$';\nCAPTURE 'orders' ON KEYS 'id';`);
    const next = async (text: string) => texts(await session.run(`PRINT '${text}';`))[0];
    assert.equal(session.evaluate('#last_http_bytecount()'), await next('#last_http_bytecount()'));
    assert.equal(session.evaluate('{{@executionId}}'), await next('{{@executionId}}'));
  } finally {
    await session.close();
  }
});
