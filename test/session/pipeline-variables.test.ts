import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Decimal from 'decimal.js';
import type { ScriptError } from '../../runtime/errors';
import type { Result } from '../../runtime/results';
import { Session } from '../../runtime/session';
import { startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

const sessions: Session[] = [];
const servers: TestServer[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

function open(files: Record<string, string> = {}): { session: Session; dir: string } {
  const t = tempSession(files, 'variables');
  sessions.push(t.session);
  return t;
}

const printed = (results: Result[]) =>
  results.flatMap((r) => (r.kind === 'message' ? [r.text] : [])).filter((t) => t.startsWith('» '));

async function print(session: Session, text: string): Promise<string> {
  const [line] = printed(await session.run(`PRINT '» ${text}';`));
  return line.slice(2);
}

const ORDERS =
  'id,modified,amount\n1,2024-01-02T10:00:00,10.50\n2,2024-03-05T11:30:00.250,99.99\n3,2024-02-01T00:00:00,5\n';
const TYPED = `SELECT * FROM DRIVE 'orders.csv';
APPLY SCHEMA (
  int id
  datetime modified
  decimal amount
);
`;

test('{{@executionId}} is the run’s own id, then the id of the change log CAPTURE wrote; names are case-insensitive', async () => {
  const { session } = open({ 'orders.csv': ORDERS });
  const before = await print(session, '{{@executionId}} {{@EXECUTIONID}}');
  assert.match(before, /^(1\d{12}) \1$/);
  const results = await session.run(`${TYPED}CAPTURE 'orders' ON KEYS 'id';\nPRINT '» {{@executionId}}';`);
  const logged = /orders_(\d+)\.eds/.exec(results.map((r) => (r.kind === 'message' ? r.text : '')).join('\n'))![1];
  assert.deepEqual(printed(results), [`» ${logged}`]);
  // A later cell plays the same log (its PUSH sends it): @executionId still names it, as in one script.
  assert.equal(await print(session, '{{@executionId}}'), logged);
  await session.run('%reset');
  assert.notEqual(await print(session, '{{@executionId}}'), logged);
});

test('an unknown pipeline variable is an error at its position listing the known ones', async () => {
  const { session } = open();
  await assert.rejects(session.run("PRINT 'x';\nPRINT 'a {{@nope}}';"), (e: ScriptError) => {
    assert.match(e.message, /unknown pipeline variable @nope \(known: @executionId, @highwatermark\)/);
    assert.deepEqual([e.position?.line, e.position?.column], [2, 10]);
    return true;
  });
});

test('@highwatermark: proposed by #data.calc_hwm*, the largest proposal stored per pipeline after a successful run, typed', async () => {
  const { session, dir } = open({ 'orders.csv': ORDERS });
  session.pipeline = 'orders-sync';
  assert.equal(await print(session, '[{{@highwatermark}}]'), '[]');
  // Within one run the largest proposal wins; {{@highwatermark}} stays the value the run started from.
  await session.run(`${TYPED}PRINT '#data.calc_hwm(#data.calc(''Max(modified)''), {{@highwatermark}})';
PRINT '#data.calc_hwmdate(2024-01-01, {{@highwatermark}}) [{{@highwatermark}}]';`);
  const file = join(dir, 'ws', 'cdc', 'orders-sync', 'highwatermark.json');
  // With the run that wrote it (the next start of a killed job checks it).
  const { run, ...stored } = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  assert.deepEqual(stored, { type: 'datetime', value: '2024-03-05T11:30:00.250' });
  assert.match(run, /^\d+$/);
  assert.equal(await print(session, '{{@highwatermark}}'), '2024-03-05T11:30:00.250');
  // A file of an older version, without the run, is read as before.
  writeFileSync(file, `${JSON.stringify(stored)}\n`);
  assert.equal(await print(session, '{{@highwatermark}}'), '2024-03-05T11:30:00.250');
  // It comes back as a date: calc_hwm compares it as one against a later text date.
  assert.equal(await print(session, '#data.calc_hwm({{@highwatermark}}, 2024-03-05T11:30:01)'), '2024-03-05T11:30:01');
  assert.equal(await print(session, '{{@highwatermark}}'), '2024-03-05T11:30:01');

  // A run that fails after proposing stores nothing.
  await assert.rejects(
    session.run("PRINT '#data.calc_hwm(2030-01-01, {{@highwatermark}})';\nSELECT * FROM DRIVE 'missing.csv';"),
    /missing\.csv/,
  );
  assert.equal(await print(session, '{{@highwatermark}}'), '2024-03-05T11:30:01');

  // Another pipeline has its own.
  session.pipeline = 'other';
  assert.equal(await print(session, '[{{@highwatermark}}]'), '[]');
  await session.run(`${TYPED}PRINT '#data.calc_hwmnumber(#data.calc(''Max(amount)''), {{@highwatermark}})';`);
  assert.equal(await print(session, '{{@highwatermark}}'), '99.99');
  assert.equal(await print(session, '#data.calc_hwmnumber({{@highwatermark}}, 100)'), '100');
  assert.equal(await print(session, '{{@highwatermark}}'), '100');
  session.pipeline = 'orders-sync';
  assert.equal(await print(session, '{{@highwatermark}}'), '2024-03-05T11:30:01');

  // A damaged file is an error naming it, not a watermark silently starting over.
  writeFileSync(join(dir, 'ws', 'cdc', 'orders-sync', 'highwatermark.json'), '{"type": "datetime"');
  await assert.rejects(
    session.run("PRINT '{{@highwatermark}}';"),
    /orders-sync\/highwatermark\.json does not hold a high watermark/,
  );
});

test('a decimal high watermark keeps its digits; a variable in @concatjson is a JSON value, in SQL a bind parameter', async () => {
  const { session } = open({ 'orders.csv': ORDERS });
  await session.run(`${TYPED}PRINT '#data.calc_hwm(#data.calc(''Sum(amount)''), {{@highwatermark}})';`);
  const run = session.newRun();
  assert.ok(Decimal.isDecimal(run.variable('highwatermark')));
  assert.equal(String(run.variable('highwatermark')), '115.49');

  const seen: string[] = [];
  const server = await startHttpServer((req, res) => {
    seen.push(req.body);
    res.writeHead(200).end('{}');
  });
  servers.push(server);
  await session.run(`%connection add api ${server.url}`);
  await session.run(`${TYPED}PRINT '#data.calc_hwm(''say "hi"'', ''a'')';`);
  await session.run(`${TYPED}PUSH INTO HTTP [api] ON_UPSERT (POST /in)
    PAYLOAD ([@concatjson({"id": {{id}}, "since": {{@highwatermark}}, "note": "{{@highwatermark}}!"})]) WITH BATCH 5;`);
  assert.deepEqual(JSON.parse(seen[0]), [
    { id: 1, since: 'say "hi"', note: 'say "hi"!' },
    { id: 2, since: 'say "hi"', note: 'say "hi"!' },
    { id: 3, since: 'say "hi"', note: 'say "hi"!' },
  ]);

  await session.run('%connection add db sqlite::memory:');
  const [table] = (
    await session.run(
      'SELECT * FROM DB [db] (SELECT {{@highwatermark}} AS hwm, typeof({{@highwatermark}}) AS t, {{@highwatermark}} = \'say "hi"\' AS same);',
    )
  ).filter((r) => r.kind === 'table');
  assert.deepEqual(table.dataset.rows(), [['say "hi"', 'text', 1]]);
});

test('%webhook start gives the session @webhookurl and @webhookkey; statements post to it; %webhook stop removes them', async () => {
  const { session } = open({ 'orders.csv': ORDERS });
  await session.run('%webhook start');
  const answer = await session.run(`SELECT * FROM HTTP (POST {{@webhookurl}}) APPLY TX '$'
    WITH PAYLOAD ([{"sku": "lamp"}, {"sku": "desk"}]) HEADERS '[{"Authorization": "Bearer {{@webhookkey}}"}]';`);
  assert.deepEqual((answer.at(-1) as Extract<Result, { kind: 'table' }>).dataset.rows(), [[1, 2]]);
  // The push of docs/webhook.md: a batch wrapped in an object, rootpath picking the rows.
  await session.run(`${TYPED}PUSH INTO HTTP ON_UPSERT (POST {{@webhookurl}}&rootpath=$.items)
    PAYLOAD ({"items": [@concatjson({"id": {{id}}})]}) HEADERS '[{"Authorization": "Bearer {{@webhookkey}}"}]' WITH BATCH 100;`);
  await session.run('%webhook take');
  assert.deepEqual(session.dataset.rows(), [[1], [2], [3]]);
  await session.run('%webhook stop');
  await assert.rejects(session.run("PRINT '{{@webhookurl}}';"), /unknown pipeline variable @webhookurl/);

  await session.run('%webhook start --no-auth');
  assert.match(await print(session, '{{@webhookurl}}'), /^http:\/\/127\.0\.0\.1:\d+\/job\/push\?guid=[0-9a-f]{32}$/);
  await assert.rejects(session.run("PRINT '{{@webhookkey}}';"), /unknown pipeline variable @webhookkey/);
  await session.run('%webhook stop');
});

test('the reserved variables read bare as in reference A (@executionId, @highwatermark; @success only where set); other @words stay text', async () => {
  const { session } = open({ 'orders.csv': ORDERS });
  await session.run(`${TYPED}PRINT '#data.calc_hwmnumber(#data.calc(''Max(amount)''), {{@highwatermark}})';`);
  assert.equal(await print(session, '@highwatermark @HighWatermark. {{@highwatermark}}'), '99.99 99.99. 99.99');
  assert.match(await print(session, '@executionId = {{@executionId}}'), /^(1\d{12}) = \1$/);
  assert.equal(await print(session, 'mail ops@example.com or @param'), 'mail ops@example.com or @param');

  await session.run('%connection add db sqlite::memory:');
  const [table] = (
    await session.run('SELECT * FROM DB [db] (SELECT @highwatermark AS hwm, typeof(@highwatermark) AS t);')
  ).filter((r) => r.kind === 'table');
  // A decimal goes to SQLite as its exact digits (docs/databases.md), as a decimal field would.
  assert.deepEqual(table.dataset.rows(), [['99.99', 'text']]);
  await assert.rejects(session.run("PRINT 'x';\nPRINT 'ok @success';"), (e: ScriptError) => {
    assert.match(e.message, /@success is only set in the ON_COMPLETION SQL of PUSH INTO DB/);
    assert.deepEqual([e.position?.line, e.position?.column], [2, 11]);
    return true;
  });
});
