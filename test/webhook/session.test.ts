import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { OutputItem } from '../../runtime/output';
import { caretLines, describeError, type ScriptError } from '../../runtime/errors';
import type { Result } from '../../runtime/results';
import type { Session } from '../../runtime/session';
import { runCli as sqlcdc } from '../helpers/cli';
import { startHttpServer } from '../helpers/http-server';
import { call, urllibPost, type Refusal, type RunAnswer } from '../helpers/serve';
import { tempSession } from '../helpers/session';

const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
});

function open(): { session: Session; dir: string; output: OutputItem[] } {
  const t = tempSession({}, 'webhook-session');
  sessions.push(t.session);
  const output: OutputItem[] = [];
  t.session.output.subscribe((item) => output.push(item));
  return { ...t, output };
}

/** A POST whose Authorization header is sent as latin-1 bytes; the answer's raw text. */
function rawCall(url: string, authorization: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () =>
      socket.end(
        Buffer.from(
          `POST ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: ${authorization}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
          'latin1',
        ),
      ),
    );
    let answer = '';
    socket.setEncoding('latin1').on('data', (d: string) => (answer += d));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

const text = (results: Result[]) => results.flatMap((r) => (r.kind === 'message' ? [r.text] : [])).join('\n');

test('%webhook start: calls arrive under the starting cell, %webhook wait/take/status/log/stop', async () => {
  const { session, output } = open();
  const started = text(await session.run('%webhook start', { origin: 'cell-1' }));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  const key = /access key .*: (sqk_\S+)/.exec(started)![1];
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/job\/push\?guid=[0-9a-f]{32}$/);
  assert.equal((await call(url, { body: '{"id": 1}' })).status, 401);
  // As many characters as the key, one of them a byte above ASCII (read as latin-1): more bytes once
  // encoded, a wrong key all the same. Sent raw: node's client would send the character as UTF-8.
  assert.match(await rawCall(url, `Bearer \u00e9${key.slice(1)}`), /^HTTP\/1\.1 401 /);
  assert.equal((await call(url.replace(/guid=\w+/, `guid=${'0'.repeat(32)}`), { key, body: '{}' })).status, 404);
  const waiting = session.run('%webhook wait --timeout 60', { origin: 'cell-2' });
  const r = await call(url, {
    key,
    headers: { 'content-type': 'application/json' },
    body: '[{"id": 1, "name": "lamp"}, {"id": 2, "name": "door"}]',
  });
  assert.equal(r.status, 202, r.text);
  assert.match(text(await waiting), /webhook call 1 arrived: 2 rows/);
  const shown = output.filter((o) => o.result.kind === 'table');
  assert.deepEqual(
    shown.map((o) => o.origin),
    ['cell-1'],
  );
  const table = shown[0].result as Extract<Result, { kind: 'table' }>;
  assert.deepEqual(table.dataset.rows(), [
    [1, 'lamp'],
    [2, 'door'],
  ]);
  await call(url, { key, body: 'name=chair', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  await session.run('%webhook take 1');
  assert.deepEqual(session.dataset.rows(), [
    [1, 'lamp'],
    [2, 'door'],
  ]);
  await session.run('%webhook take');
  assert.deepEqual(session.dataset.rows(), [['chair']]);
  // The payload is the pipeline dataset: statements run on it.
  await session.run("ADD COLUMN 'long size=@sql(LEN(name))';");
  assert.deepEqual(session.dataset.rows(), [['chair', 5n]]);
  assert.match(text(await session.run('%webhook status')), /calls received: 2/);
  const log = (await session.run('%webhook log')).find((x) => x.kind === 'table') as Extract<Result, { kind: 'table' }>;
  assert.equal(log.dataset.rowCount, 2);
  // Numbers are numbers, right-aligned in the table as in `%webhook take`'s answer rows.
  assert.deepEqual(
    log.dataset.columns.map((c) => `${c.name} ${c.type.base}`),
    ['call int', 'at string', 'method string', 'rows int', 'status int'],
  );
  assert.deepEqual(log.dataset.rows()[0].slice(3), [2, 202]);
  assert.match(text(await session.run('%webhook stop')), /stopped after 2 calls/);
  await assert.rejects(call(url, { key, body: '{}' }));
  // The inbox outlives the listener until the next start: its calls can still be taken and listed.
  assert.match(
    text(await session.run('%webhook status')),
    /\(stopped\)\ncalls received: 2\n.*\ninbox: payloads of calls 1 to 2 \(\d+b\); keeps the last 1,000 payloads \(32 MB at most\)$/,
  );
  await session.run('%webhook take 1');
  assert.deepEqual(session.dataset.rows(), [
    [1, 'lamp'],
    [2, 'door'],
  ]);
  await assert.rejects(session.run('%webhook wait'), /the webhook listener is stopped \(%webhook start starts another/);
  await assert.rejects(session.run('%webhook stop'), /the webhook listener is stopped/);
  const again = text(await session.run('%webhook start'));
  assert.doesNotMatch(again, new RegExp(url.replace(/[?]/g, '\\?')));
  await assert.rejects(session.run('%webhook take 1'), /no webhook call has arrived yet/);
  assert.match(text(await session.run('%webhook status')), /calls received: 0\n.*\ninbox: empty/);
  await session.run('%webhook stop');
});

test('%webhook start --job runs each call through the job writer and keeps its change log', async () => {
  const { session, dir } = open();
  writeFileSync(join(dir, 'w.sql'), "ADD COLUMN 'long doubled=@sql(id * 2)';\n");
  const created = await sqlcdc(dir, ['job', 'create', 'hook', '--writer', 'w.sql', '--webhook', '--workspace', 'ws']);
  assert.equal(created.code, 0, created.stderr);
  const started = text(await session.run('%webhook start --job hook --no-auth'));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  assert.doesNotMatch(started, /access key/);
  const r = await call(url, { body: '{"id": 21}' });
  assert.equal(r.status, 200, r.text);
  const answer = r.json as RunAnswer;
  assert.equal(answer.job, 'hook');
  const shown = await sqlcdc(dir, ['changelog', 'show', answer.changeLog, '--output', 'json']);
  assert.deepEqual((JSON.parse(shown.stdout) as { upserts: unknown[] }).upserts, [{ id: 21, doubled: 42 }]);
  // Closing the session closes the listener.
  await session.close();
  await assert.rejects(call(url, { body: '{}' }));
});

test('%job create, trigger, list and run from a notebook session', async () => {
  const { session, dir } = open();
  writeFileSync(
    join(dir, 'read.sql'),
    "SELECT * FROM DRIVE 'rows.csv';\nAPPLY SCHEMA (\n  long id\n);\nCAPTURE 'items';\n",
  );
  writeFileSync(join(dir, 'write.sql'), "LOAD UPSERTS FROM 'items';\nPRINT 'loaded #data.count() rows';\n");
  writeFileSync(join(dir, 'after.sql'), "PRINT 'after ran';\n");
  writeFileSync(join(dir, 'rows.csv'), 'id\n1\n2\n3\n');
  assert.match(
    text(await session.run('%job create sync --reader read.sql --writer write.sql')),
    /^job sync: reader [0-9a-f]{32}, writer [0-9a-f]{32}$/,
  );
  await session.run('%job create after --reader after.sql');
  await session.run('%job trigger sync --on success --run after');
  const list = (await session.run('%job list')).find((r) => r.kind === 'table') as Extract<Result, { kind: 'table' }>;
  assert.deepEqual(
    list.dataset.rows().map((r) => [r[0], r[1], r[4]]),
    [
      ['after', 'reader', ''],
      ['sync', 'direct', 'success → after'],
    ],
  );
  const ran = text(await session.run('%job run sync'));
  assert.match(ran, /loaded 3 rows/);
  assert.match(ran, /after ran/);
  assert.match(ran, /job sync: success/);
  // A failing job is the cell's error, placed in the job's script (the cell's text is not where it is).
  writeFileSync(join(dir, 'ws', 'jobs', 'after', 'reader.sql'), "PRINT 'x';\nFROB;\n");
  const script = join(dir, 'ws', 'jobs', 'after', 'reader.sql');
  await assert.rejects(session.run('%job run after'), (e: ScriptError) => {
    assert.deepEqual([e.position?.line, e.position?.column], [2, 1]);
    assert.equal(e.script?.name, 'reader.sql of job after');
    assert.match(e.message, /FROB/);
    return true;
  });
  // A job triggered after a successful run that fails is a warning of that run, not the cell's error.
  const warned = await session.run('%job run sync');
  assert.match(text(warned), /job sync: success/);
  const warnings = warned.flatMap((r) => (r.kind === 'warning' ? [r.text] : []));
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.ok(warnings[0].startsWith(`job after, triggered by sync, failed: ${script}:2:1: syntax error: `), warnings[0]);
});

test('%%job NAME reader|writer saves the cell as that part of the job; the cell is not run', async () => {
  const { session, dir } = open();
  writeFileSync(join(dir, 'rows.csv'), 'id\n1\n2\n');
  const made = text(await session.run("%%job nb reader\nSELECT * FROM DRIVE 'rows.csv';\nCAPTURE 'rows';\n"));
  assert.match(made, /^job nb \(reader\) created with this reader: [0-9a-f]{32}$/);
  assert.equal(session.dataset.rowCount, 0, 'the script was saved, not run');
  assert.match(
    text(await session.run("%%job nb writer\nLOAD UPSERTS FROM 'rows';\nPRINT 'wrote #data.count() rows';\n")),
    /job nb: writer saved \(direct\)/,
  );
  assert.match(text(await session.run('%job run nb')), /wrote 2 rows/);
  await assert.rejects(session.run('%%job nb other\nPRINT 1;'), /usage: %%job NAME reader\|writer/);
  await assert.rejects(session.run('%%nosuch\nx'), /unknown cell magic %%nosuch/);
});

test('interrupting a cell cancels a %webhook wait; the listener goes on taking calls', async () => {
  const { session } = open();
  const started = text(await session.run('%webhook start --no-auth'));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  const interrupt = new AbortController();
  const waiting = session.run('%webhook wait --timeout 60', { signal: interrupt.signal });
  interrupt.abort();
  await assert.rejects(waiting, (e: ScriptError) => e.kind === 'cancelled');
  assert.equal((await call(url, { body: '{"id": 7}' })).status, 202);
  assert.match(text(await session.run('%webhook status')), /calls received: 1/);
});

test('interrupting a cell cancels a %job run; the run is recorded as a failure', async () => {
  const { session, dir } = open();
  // A source that never answers: the reader waits on it until interrupted.
  const site = await startHttpServer(() => undefined);
  try {
    writeFileSync(join(dir, 'slow.sql'), `SELECT * FROM HTTP (GET ${site.url}/slow) APPLY TX '$' TIMEOUT 60;\n`);
    await session.run('%job create slow --reader slow.sql');
    const interrupt = new AbortController();
    const running = session.run('%job run slow', { signal: interrupt.signal });
    await site.received(1);
    interrupt.abort();
    await assert.rejects(running, (e: ScriptError) => e.kind === 'cancelled');
    const runs = await sqlcdc(dir, ['job', 'runs', 'slow', '--output', 'json', '--workspace', 'ws']);
    assert.deepEqual(
      (JSON.parse(runs.stdout) as { outcome: string; error: string }[]).map((r) => [r.outcome, r.error]),
      [['failure', 'cancelled']],
    );
  } finally {
    await site.close();
  }
});

test("%job run: a failing job's error shows its place in the job's script, not in the cell", async () => {
  const { session, dir } = open();
  writeFileSync(join(dir, 'w.sql'), "PRINT 'first';\n  APPLY FILTER 'nosuch > 1';\n");
  await session.run('%job create y --writer w.sql');
  const results: Result[] = [];
  for await (const r of session.execute('%limit 5\n%job run y')) results.push(r);
  const failed = results.find((r) => r.kind === 'error');
  assert.ok(failed, JSON.stringify(results));
  assert.equal(
    describeError(failed.error),
    "APPLY FILTER at line 2, column 17 in writer.sql of job y: unknown column 'nosuch' (columns: (none)) (at character 1 of expression 'nosuch > 1')",
  );
  assert.deepEqual(caretLines(failed.source, failed.error.position!), [
    "  APPLY FILTER 'nosuch > 1';",
    '                ^',
  ]);
});

test('%%job NAME writer --webhook makes a job a notebook can serve with %webhook start --job, no file needed', async () => {
  const { session } = open();
  const made = text(await session.run("%%job hook writer --webhook\nADD COLUMN 'long doubled=@sql(id * 2)';\n"));
  assert.match(made, /^job hook \(writer\) created with this writer: [0-9a-f]{32}$/);
  const started = text(await session.run('%webhook start --job hook --no-auth'));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  const r = await call(url, { body: '{"id": 21}' });
  assert.equal(r.status, 200, r.text);
  assert.equal((r.json as RunAnswer).rows, 1);
  assert.equal(text(await session.run('%webhook stop')), 'webhook listener stopped after 1 call');
  // A job made without it is switched on by saving its script again with the option.
  await session.run("%%job later writer\nPRINT 'later';\n");
  await assert.rejects(session.run('%webhook start --job later'), /job later is not enabled for webhooks/);
  const saved = text(await session.run("%%job later writer --webhook --signing-secret\nPRINT 'later';\n"));
  assert.match(saved, /^job later: writer saved \(writer\)\nsigning secret whsec_\S+ \(shown once\)$/);
  const list = (await session.run('%job list')).find((x) => x.kind === 'table') as Extract<Result, { kind: 'table' }>;
  assert.deepEqual(
    list.dataset.rows().map((row) => [row[0], row[3]]),
    [
      ['hook', 'yes'],
      ['later', 'yes'],
    ],
  );
  await assert.rejects(
    session.run("%%job reads reader --webhook\nPRINT 'r';\n"),
    /a reader job cannot be a webhook: a webhook needs a writer/,
  );
  // Refused for a job that exists too, and then its script stays as it was.
  await session.run("%%job reads reader\nPRINT 'first version';\n");
  await assert.rejects(
    session.run("%%job reads reader --webhook\nPRINT 'second version';\n"),
    /a reader job cannot be a webhook/,
  );
  assert.match(text(await session.run('%job run reads')), /^first version\n/);
  await assert.rejects(session.run("%%job x writer --frob\nPRINT 'x';\n"), /unknown option --frob/);
});

test("%job update switches a job's webhook, sample and signing secret, as sqlcdc job update; a secret is not echoed", async () => {
  const { session } = open();
  await session.run("%%job later writer\nADD COLUMN 'long doubled=@sql(id * 2)';\n");
  await assert.rejects(session.run('%webhook start --job later --no-auth'), /job later is not enabled for webhooks/);
  assert.equal(
    text(await session.run('%job update later --webhook --save-sample')),
    'job later: webhook enabled, save sample yes, signing secret none',
  );
  const started = text(await session.run('%webhook start --job later --no-auth'));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  const first = await call(url, { body: '{"id": 2}' });
  assert.equal(first.status, 200, first.text);
  await session.run('%webhook stop');

  const secret = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
  const set = await session.run(`%job update later --signing-secret ${secret}`);
  assert.equal(text(set), 'job later: webhook enabled, save sample yes, signing secret set');
  assert.ok(!JSON.stringify(set).includes(secret.slice(6)));
  const made = text(await session.run('%job update later --signing-secret new'));
  assert.match(
    made,
    /^job later: webhook enabled, save sample yes, signing secret set\nsigning secret whsec_\S+ \(shown once\)$/,
  );
  assert.equal(
    text(await session.run('%job update later --no-signing-secret --no-webhook --no-save-sample')),
    'job later: webhook not enabled, save sample no, signing secret none',
  );
  await assert.rejects(session.run('%webhook start --job later --no-auth'), /job later is not enabled for webhooks/);
  await assert.rejects(session.run('%job update later --signing-secret -'), /a notebook has no stdin/);
  await assert.rejects(session.run('%job update later'), /%job update: job update needs at least one of --webhook/);
});

test("%webhook start --job checks the job's signing secret and webhook flag at each call, as sqlcdc serve does", async () => {
  const { session, dir } = open();
  await session.run("%%job hook writer --webhook\nADD COLUMN 'long doubled=@sql(id * 2)';\n");
  const started = text(await session.run('%webhook start --job hook --no-auth'));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  const body = '{"id": 4}';
  assert.equal((await call(url, { body })).status, 200);
  // Changed by another process while the listener runs: the next call sees it.
  const update = async (args: string[]) => {
    const r = await sqlcdc(dir, ['job', 'update', 'hook', ...args, '--workspace', 'ws']);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const secret = /^signing secret (whsec_\S+) \(shown once\)$/m.exec(await update(['--signing-secret', 'new']))![1];
  const signed = (id: string, payload = body) => {
    const at = new Date();
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, payload),
    };
  };
  const unsigned = await call(url, { body });
  assert.equal(unsigned.status, 401, unsigned.text);
  assert.match((unsigned.json as Refusal).error, /this job requires a Standard Webhooks signature/);
  const tampered = await call(url, { body: '{"id": 5}', headers: signed('msg_tampered') });
  assert.equal(tampered.status, 401, tampered.text);
  assert.match((tampered.json as Refusal).error, /^signature refused/);
  const good = await call(url, { body, headers: signed('msg_1') });
  assert.equal(good.status, 200, good.text);
  assert.equal((good.json as RunAnswer).rows, 1);
  await update(['--no-webhook']);
  const off = await call(url, { body, headers: signed('msg_2') });
  assert.equal(off.status, 403, off.text);
  assert.equal((off.json as Refusal).error, 'job hook is not enabled for webhooks');
  // Refused calls left no change log and were not run: two calls ran, two logs.
  assert.equal(readdirSync(join(dir, 'ws', 'changelogs', 'hook')).filter((f) => f.endsWith('.eds')).length, 2);
  const log = (await session.run('%webhook log')).find((x) => x.kind === 'table') as Extract<Result, { kind: 'table' }>;
  assert.equal(log.dataset.rowCount, 2);
});

test("%webhook start --job: the job run's output and a failed call's reason show under the starting cell", async () => {
  const { session, output } = open();
  await session.run(
    "%%job hook writer --webhook\nPRINT 'the writer got #data.count() rows';\nAPPLY FILTER 'qty > 0';\n",
  );
  const started = text(await session.run('%webhook start --job hook --no-auth', { origin: 'cell-1' }));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  assert.equal((await call(url, { body: '[{"qty": 1}, {"qty": 0}]' })).status, 200);
  const failed = await call(url, { body: '[{"sku": "lamp"}]' });
  assert.equal(failed.status, 500);
  const shown = (kind: Result['kind']) =>
    output
      .filter((o) => o.origin === 'cell-1' && o.result.kind === kind)
      .map((o) => (o.result as { text: string }).text);
  assert.deepEqual(shown('message'), ['the writer got 2 rows', 'the writer got 1 rows']);
  assert.deepEqual(shown('warning'), [
    `webhook call 2: job hook answered 500: ${(failed.json as { error: string }).error}`,
  ]);
  assert.match(shown('warning')[0], /unknown column 'qty'/);
});

test("%job run shows the job's output as it comes, not when the job ends", async () => {
  const { session, dir } = open();
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  // The source answers only once the cell has shown the job's first line.
  const site = await startHttpServer(async (_req, res) => {
    await released;
    res.writeHead(200, { 'content-type': 'application/json' }).end('[{"id": 1}]');
  });
  try {
    writeFileSync(
      join(dir, 'slow.sql'),
      `PRINT 'started';\nSELECT * FROM HTTP (GET ${site.url}/rows) APPLY TX '$' TIMEOUT 30;\nPRINT 'got #data.count() rows';\n`,
    );
    await session.run('%job create slow --reader slow.sql');
    const shown: Result[] = [];
    for await (const r of session.execute('%job run slow')) {
      shown.push(r);
      if (r.kind === 'message' && r.text === 'started') release();
    }
    const lines = shown.map((r) =>
      r.kind === 'message' ? r.text : r.kind === 'error' ? describeError(r.error) : r.kind,
    );
    assert.equal(lines.length, 3, lines.join('\n'));
    assert.deepEqual(lines.slice(0, 2), ['started', 'got 1 rows']);
    assert.match(lines[2], /^job slow: success, 1 row \(run \d+\)$/);
  } finally {
    release();
    await site.close();
  }
});

test('%webhook start keeps the last 1,000 payloads (32 MB at most) in the inbox; the drop is said, taking a dropped one says so', async () => {
  const { session, output } = open();
  const started = text(await session.run('%webhook start --no-auth', { origin: 'cell-1' }));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  const json = { 'content-type': 'application/json' };
  const agent = new Agent({ keepAlive: true, maxSockets: 20 });
  try {
    for (let i = 1; i <= 1005; i += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, 1006 - i) }, (_, j) =>
          call(url, { agent, headers: json, body: `{"n": ${i + j}}` }).then((r) => assert.equal(r.status, 202)),
        ),
      );
  } finally {
    agent.destroy();
  }
  assert.match(
    text(await session.run('%webhook status')),
    /calls received: 1005\n.*\ninbox: payloads of calls 6 to 1005 \(\d+(\.\d)?kb\); calls 1 to 5 dropped, oldest first, to keep the last 1,000 payloads \(32 MB at most\)$/,
  );
  // The first drop is said once under the starting cell, not at each later one.
  assert.deepEqual(
    output.filter((o) => o.result.kind === 'warning').map((o) => [o.origin, (o.result as { text: string }).text]),
    [
      [
        'cell-1',
        "webhook call 1's payload left the inbox, which keeps the last 1,000 payloads (32 MB at most); older payloads go first from now on (%webhook status)",
      ],
    ],
  );
  await assert.rejects(
    session.run('%webhook take 5'),
    /webhook call 5's payload is no longer in the inbox, which keeps the last 1,000 payloads \(32 MB at most\): calls 6 to 1005 can be taken/,
  );
  await session.run('%webhook take 6');
  assert.equal(session.dataset.rowCount, 1);
  const log = (await session.run('%webhook log')).find((x) => x.kind === 'table') as Extract<Result, { kind: 'table' }>;
  assert.equal(log.dataset.rowCount, 1005, 'the log lists every call, its payload kept or not');
  // By size: four payloads of 9 MB hold more than the inbox keeps; the oldest of them goes first.
  const big = (c: string) => `"${c.repeat(9 * 1024 * 1024 - 2)}"`;
  for (const c of ['a', 'b', 'c', 'd'])
    assert.equal((await call(url, { headers: { 'content-type': 'text/plain' }, body: big(c) })).status, 202);
  await assert.rejects(session.run('%webhook take 1006'), /no longer in the inbox/);
  await session.run('%webhook take 1007');
  assert.equal(session.dataset.rowCount, 1);
  assert.match(
    text(await session.run('%webhook status')),
    /inbox: payloads of calls 1007 to 1009 \(27mb\); calls 1 to 1006 dropped, oldest first/,
  );
  assert.equal(output.filter((o) => o.result.kind === 'warning').length, 1);
  await session.run('%webhook stop');
});

test('closing the session while --job calls are under way lets them finish: each is answered and keeps its log, then the port closes', async () => {
  const { session, dir } = open();
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const target = await startHttpServer(async (_req, res) => {
    await released;
    res.writeHead(200).end('{}');
  });
  try {
    await session.run(
      `%%job hook writer --webhook\nPUSH INTO HTTP ON_UPSERT (POST ${target.url}/orders) PAYLOAD ({"id": {{id}}});\n`,
    );
    const started = text(await session.run('%webhook start --job hook --no-auth', { origin: 'cell-1' }));
    const url = /webhook listening: (\S+)/.exec(started)![1];
    // Two calls whose writers are pushing when the session closes (a REPL's Ctrl-D, a kernel's shutdown).
    const calls = [1, 2].map((id) =>
      call(url, { headers: { 'content-type': 'application/json' }, body: `{"id": ${id}}` }),
    );
    await target.received(2);
    const closed = session.close();
    release();
    const answers = await Promise.all(calls);
    await closed;
    for (const r of answers) {
      assert.equal(r.status, 200, r.text);
      const shown = await sqlcdc(dir, ['changelog', 'show', (r.json as RunAnswer).changeLog, '--output', 'json']);
      assert.equal(shown.code, 0, shown.stderr);
    }
    assert.deepEqual(target.requests.map((q) => (JSON.parse(q.body) as { id: number }).id).sort(), [1, 2]);
    await assert.rejects(call(url, { body: '{"id": 3}' }));
  } finally {
    await target.close();
  }
});

test('%webhook start --job: a job its triggers run shows its output, and its failure as a warning, under the starting cell', async () => {
  const { session, output } = open();
  await session.run("%%job after reader\nPRINT 'after ran';\nAPPLY FILTER 'nosuch > 1';\n");
  await session.run("%%job hook writer --webhook\nPRINT 'hook ran';\n");
  await session.run('%job trigger hook --on success --run after');
  const started = text(await session.run('%webhook start --job hook --no-auth', { origin: 'cell-1' }));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  assert.equal((await call(url, { body: '{"id": 1}' })).status, 200);
  const shown = output
    .filter((o) => o.origin === 'cell-1' && (o.result.kind === 'message' || o.result.kind === 'warning'))
    .map((o) => `${o.result.kind}: ${(o.result as { text: string }).text}`);
  assert.deepEqual(shown.slice(0, 2), ['message: hook ran', 'message: after ran']);
  assert.match(shown[2], /^warning: job after, triggered by hook, failed: .*reader\.sql:2:\d+: .*nosuch/);
  assert.equal(shown.length, 3);
});

test('%webhook stop does not wait for a caller still sending its body: that call is cut off, not accepted', async () => {
  const { session } = open();
  const started = text(await session.run('%webhook start --no-auth'));
  const url = new URL(/webhook listening: (\S+)/.exec(started)![1]);
  const socket = connect(Number(url.port), '127.0.0.1');
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  // Headers of a body of 1,000 bytes. Node answers 100 Continue as it hands the request over: the
  // listener is then reading the body, of which only a first part ever comes.
  socket.write(
    `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
  );
  await new Promise<void>((resolve) =>
    socket.on('data', (d: Buffer) => {
      if (d.toString().includes('100 Continue')) resolve();
    }),
  );
  socket.write('[{"id": 1}');
  assert.match(text(await session.run('%webhook stop')), /stopped after 0 calls/);
  await ended;
});

test('%webhook start --job: a repeated Idempotency-Key or webhook-id gets the first answer, as sqlcdc serve does, also after a restart', async () => {
  const { session, dir, output } = open();
  await session.run("%%job hook writer --webhook\nADD COLUMN 'long doubled=@sql(id * 2)';\n");
  const start = async () =>
    /webhook listening: (\S+)/.exec(text(await session.run('%webhook start --job hook --no-auth')))![1];
  let url = await start();
  const headers = { 'idempotency-key': 'order-42' };
  const first = await call(url, { body: '{"id": 42}', headers });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers['idempotent-replayed'], undefined);
  const again = await call(url, { body: '{"id": 42}', headers });
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.json, first.json);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  const titles = output.flatMap((o) => (o.result.kind === 'table' ? [o.result.title] : []));
  assert.deepEqual(titles.slice(-2), [
    'webhook call 1 (POST, 1 row, job hook: 200)',
    'webhook call 2 (POST, 1 row, job hook: 200, the first answer to its idempotency key)',
  ]);
  const reused = await call(url, { body: '{"id": 43}', headers });
  assert.equal(reused.status, 422, reused.text);
  assert.match((reused.json as Refusal).error, /Idempotency-Key 'order-42' was used with a different payload/);
  // The answers are the workspace's, as sqlcdc serve keeps them: a listener started again knows them.
  await session.run('%webhook stop');
  url = await start();
  const afterRestart = await call(url, { body: '{"id": 42}', headers });
  assert.deepEqual(afterRestart.json, first.json);
  const signed = { 'webhook-id': 'msg_1' };
  const delivered = await call(url, { body: '{"id": 44}', headers: signed });
  const redelivered = await call(url, { body: '{"id": 44}', headers: signed });
  assert.deepEqual(redelivered.json, delivered.json);
  assert.equal(redelivered.headers['idempotent-replayed'], 'true');
  const log = (await session.run('%webhook log')).find((x) => x.kind === 'table') as Extract<Result, { kind: 'table' }>;
  assert.deepEqual(log.dataset.column(log.dataset.columns.findIndex((c) => c.name === 'status')), [200, 200, 200]);
  // Two calls ran: order-42's and msg_1's.
  assert.equal(readdirSync(join(dir, 'ws', 'changelogs', 'hook')).filter((f) => f.endsWith('.eds')).length, 2);
});

test("a body over the listener's 10 MB limit gets its 413 also by a client that writes it whole before reading (urllib); past 64 MB the connection is cut", async () => {
  const { session } = open();
  const started = text(await session.run('%webhook start --no-auth'));
  const url = /webhook listening: (\S+)/.exec(started)![1];
  for (const framing of ['length', 'chunked'] as const) {
    const answer = await urllibPost(url, 12 * 1024 * 1024, framing);
    assert.ok('status' in answer, `${framing}: ${JSON.stringify(answer)}`);
    assert.equal(answer.status, 413);
    assert.match((JSON.parse(answer.body) as Refusal).error, /over the listener's limit of 10485760 bytes/);
  }
  // A body longer than is worth reading to answer it is cut off: the client gets no answer.
  assert.ok('error' in (await urllibPost(url, 80 * 1024 * 1024, 'length')));
  assert.deepEqual(await urllibPost(url, 2, 'length', { 'content-type': 'text/plain' }), {
    status: 202,
    body: '{"call":1,"rows":1}',
  });
  await session.run('%webhook stop');
});
