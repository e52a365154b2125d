import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';

const LIMITS = { timeout: 120_000 };

/** The example: a script capturing orders.csv into logs/, and a write script loading them. */
const CAPTURE_SQL = `SELECT * FROM DRIVE 'orders.csv';
APPLY SCHEMA (
  long id
  string status
  decimal amount
  datetime at
);
CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' OBSERVE 'status,amount'
    WITH PATH 'logs' CDCMARKER 'op' IGNORE_DUPS;
`;
const LOAD_SQL = `LOAD UPSERTS DELETES FROM 'orders' PATH 'logs';\n`;

function project(): { dir: string; orders(lines: string[]): void } {
  const dir = tempDir('capture-cli');
  writeFileSync(join(dir, 'orders.sql'), CAPTURE_SQL);
  writeFileSync(join(dir, 'push.sql'), LOAD_SQL);
  return {
    dir,
    orders: (lines) => writeFileSync(join(dir, 'orders.csv'), ['id,status,amount,at', ...lines].join('\n') + '\n'),
  };
}

const logs = (dir: string) =>
  readdirSync(join(dir, 'logs'))
    .filter((f) => f.endsWith('.eds'))
    .sort();

test(
  'sqlcdc run: the counts and the file on stderr, the upsert stream on stdout; the state is keyed by the script name',
  LIMITS,
  async () => {
    const p = project();
    p.orders([
      '1,new,10.50,2024-01-01T10:00:00',
      '2,new,20,2024-01-01T11:00:00',
      '9007199254740993,new,30.125,2024-01-01T12:00:00',
    ]);
    const first = await runCli(p.dir, ['run', 'orders.sql']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /^change log logs\/orders_\d+\.eds: 3 inserts, 0 updates, 0 deletes\n$/);
    assert.ok(
      existsSync(join(p.dir, '.sqlcdc', 'cdc', 'orders', 'orders.state')),
      'pipeline "orders" (the script name), log name "orders"',
    );

    p.orders([
      '1,new,10.5,2024-02-02T00:00:00',
      '2,paid,20,2024-01-01T11:00:00',
      '4,new,40,2024-01-01T13:00:00',
      '4,dup,41,2024-01-01T13:00:00',
    ]);
    const second = await runCli(p.dir, ['run', 'orders.sql', '--output', 'json']);
    assert.equal(second.code, 0, second.stderr);
    const [, file] = logs(p.dir);
    assert.equal(
      second.stderr,
      `change log logs/${file}: 1 insert, 1 update, 1 delete\n`,
      '10.50 = 10.5, `at` is not observed, the duplicate 4 is dropped',
    );
    assert.equal(
      second.stdout,
      '[{"id":2,"status":"paid","amount":20,"at":"2024-01-01T11:00:00","op":"U"},{"id":4,"status":"new","amount":40,"at":"2024-01-01T13:00:00","op":"I"}]\n',
    );

    // The log as JSON: the header fields, then both streams, rows as `sqlcdc run --output json` prints them.
    const show = await runCli(p.dir, ['changelog', 'show', `logs/${file}`, '--output', 'json']);
    assert.equal(show.code, 0, show.stderr);
    const json = JSON.parse(show.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), ['executionId', 'pipeline', 'keys', 'schema', 'upserts', 'deletes']);
    assert.equal(json.executionId, /_(\d+)\.eds$/.exec(file)![1]);
    assert.equal(json.pipeline, 'orders');
    assert.deepEqual(json.keys, ['id']);
    assert.deepEqual(json.schema, [
      { name: 'id', type: 'long' },
      { name: 'status', type: 'string' },
      { name: 'amount', type: 'decimal' },
      { name: 'at', type: 'datetime' },
      { name: 'op', type: 'char[1]' },
    ]);
    assert.ok(
      show.stdout.startsWith(`{"executionId":"${json.executionId}","pipeline":"orders","keys":["id"],"schema":`),
    );
    assert.ok(
      show.stdout.includes(
        `"upserts":${second.stdout.trim()},"deletes":[{"id":9007199254740993,"status":null,"amount":null,"at":null,"op":"D"}]}`,
      ),
      show.stdout,
    );

    // The write side: LOAD plays the logs in order, then has nothing to load.
    const load1 = await runCli(p.dir, ['run', 'push.sql', '--output', 'json']);
    assert.equal(load1.code, 0, load1.stderr);
    assert.match(load1.stderr, /^change log logs\/orders_\d+\.eds loaded: 3 inserts, 0 updates, 0 deletes\n$/);
    assert.ok(
      load1.stdout.includes('{"id":9007199254740993,"status":"new","amount":30.125,'),
      'longs beyond 2^53 and decimals are exact',
    );
    const load2 = await runCli(p.dir, ['run', 'push.sql', '--output', 'json']);
    assert.equal(load2.stdout, `${second.stdout}`, 'the loaded upsert stream is what the capture run printed');
    const load3 = await runCli(p.dir, ['run', 'push.sql', '--output', 'json']);
    assert.equal(load3.code, 0);
    assert.match(
      load3.stderr,
      /^no new change log of 'orders' in logs after execution id \d+: nothing to load, the rest of the pipeline is skipped\n$/,
    );
    assert.equal(load3.stdout, '[]\n');
    assert.ok(existsSync(join(p.dir, '.sqlcdc', 'cdc', 'push', 'orders.watermark')), 'the write pipeline is "push"');

    const list = await runCli(p.dir, ['changelog', 'list', 'logs']);
    assert.equal(list.code, 0, list.stderr);
    for (const f of logs(p.dir)) assert.ok(list.stdout.includes(f), f);
    assert.match(list.stdout, /│\s+1 │\s+1 │\s+1 │/, 'the second log: 1 insert, 1 update, 1 delete');
  },
);

test(
  'sqlcdc run: a second CAPTURE fails before anything runs, with the file, line and column; no name and no PATH use the script name and the store',
  LIMITS,
  async () => {
    const p = project();
    p.orders(['1,new,10,2024-01-01T10:00:00']);
    writeFileSync(
      join(p.dir, 'twice.sql'),
      `SELECT * FROM DRIVE 'orders.csv';\nCAPTURE ON KEYS 'id';\nCAPTURE 'again' ON KEYS 'id';\n`,
    );
    const twice = await runCli(p.dir, ['run', 'twice.sql']);
    assert.equal(twice.code, 1);
    assert.match(
      twice.stderr,
      /^twice\.sql:3:1: CAPTURE: only one CAPTURE is allowed per pipeline; the first is at line 2\n/,
    );
    assert.equal(existsSync(join(p.dir, '.sqlcdc', 'changelogs')), false);

    writeFileSync(join(p.dir, 'nightly sync.sql'), `SELECT * FROM DRIVE 'orders.csv';\nCAPTURE ON KEYS 'id';\n`);
    const anon = await runCli(p.dir, ['run', 'nightly sync.sql']);
    assert.equal(anon.code, 0, anon.stderr);
    const store = join(p.dir, '.sqlcdc', 'changelogs', 'nightly_sync');
    const [file] = readdirSync(store);
    assert.match(file, /^nightly_sync_\d+\.eds$/);
    assert.equal(anon.stderr, `change log ${join(store, file)}: 1 insert, 0 updates, 0 deletes\n`);

    // A write script elsewhere loads it by the pipeline's name, without PATH.
    mkdirSync(join(p.dir, 'writers'));
    writeFileSync(join(p.dir, 'writers', 'send.sql'), `LOAD UPDATES FROM 'nightly_sync';\n`);
    const send = await runCli(p.dir, ['run', 'writers/send.sql', '--output', 'csv']);
    assert.equal(send.code, 0, send.stderr);
    assert.equal(send.stdout, 'id,status,amount,at\r\n1,new,10,2024-01-01T10:00:00\r\n');
  },
);

test(
  'two scripts of one file name in two folders share pipeline and CDC state: a CAPTURE of the second says so, naming the first; a %pipeline of its own, or the same script again, says nothing',
  LIMITS,
  async () => {
    const dir = realpathSync(tempDir('capture-cli'));
    writeFileSync(join(dir, 'rows.csv'), 'id,v\n1,a\n');
    const script = "SELECT * FROM DRIVE 'rows.csv';\nCAPTURE 'items' ON KEYS 'id' WITH PATH 'logs';\n";
    for (const folder of ['a', 'b', 'c']) mkdirSync(join(dir, folder));
    writeFileSync(join(dir, 'a', 'sync.sql'), script);
    writeFileSync(join(dir, 'b', 'sync.sql'), script);
    writeFileSync(join(dir, 'c', 'sync.sql'), `%pipeline sync_c\n${script}`);
    const run = async (file: string) => {
      const r = await runCli(dir, ['run', file, '--workspace', 'ws']);
      assert.equal(r.code, 0, r.stderr);
      return r.stderr;
    };
    const shared = (self: string, other: string) =>
      `warning: pipeline sync of ${join(dir, self)} shares its CDC state with ${join(dir, other)}, which captured into it last: scripts of one file name are one pipeline, and each takes the other's captures as its own (rename one, or give it a pipeline of its own with a leading %pipeline NAME line)\n`;

    assert.doesNotMatch(await run('a/sync.sql'), /warning/);
    // b's CAPTURE diffs against what a captured: it sees no change, and is told why.
    const second = await run('b/sync.sql');
    assert.ok(second.startsWith(shared('b/sync.sql', 'a/sync.sql')), second);
    assert.match(second, /no change since the last capture/);
    assert.doesNotMatch(await run('b/sync.sql'), /warning/);
    assert.ok((await run('a/sync.sql')).startsWith(shared('a/sync.sql', 'b/sync.sql')));
    assert.doesNotMatch(await run('c/sync.sql'), /warning/);
  },
);
