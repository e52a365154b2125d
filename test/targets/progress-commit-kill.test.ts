import assert from 'node:assert/strict';
import { existsSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempDir } from '../helpers/session';
import { killCliAt, straceUnavailable } from '../helpers/strace';

// A finished push's progress record (<log>.progress.json) goes at its run's commit point
// (docs/push.md): strace kills the CLI at the record's removal, or at the watermark's move after it.
const LIMITS = { timeout: 120_000, skip: straceUnavailable() };
const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const RECORD_GONE = 'unlink,unlinkat';
/** The watermark's write starts by making its folder (which is there): before the file is replaced. */
const FOLDER_MADE = 'mkdir,mkdirat';

/**
 * A folder with a change log of 3 rows in logs/, a writer w.sql that loads it and pushes it to a
 * test server one row a batch, and job j whose writer is w.sql (for `changelog replay`).
 */
async function project() {
  const server = await startHttpServer((_req, res) => sendJson(res, {}));
  servers.push(server);
  const dir = realpathSync(tempDir('progress-commit-kill'));
  const ws = join(dir, 'ws');
  const cli = async (...args: string[]) => {
    const r = await runCli(dir, [...args, '--workspace', ws]);
    assert.equal(r.code, 0, `sqlcdc ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  writeFileSync(join(dir, 'orders.csv'), 'id,v\n1,a\n2,b\n3,c\n');
  writeFileSync(
    join(dir, 'c.sql'),
    "SELECT * FROM DRIVE 'orders.csv';\nCAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';\n",
  );
  writeFileSync(
    join(dir, 'w.sql'),
    `LOAD UPSERTS FROM 'orders' PATH 'logs';\nPUSH INTO HTTP ON_UPSERT (POST ${server.url}/orders) PAYLOAD ({"id": {{id}}}) WITH BATCH 1;\n`,
  );
  await cli('run', 'c.sql');
  await cli('job', 'create', 'j', '--writer', 'w.sql');
  const [log] = readdirSync(join(dir, 'logs')).filter((f) => f.endsWith('.eds'));
  const record = join(dir, 'logs', `${log}.progress.json`);
  /** `sqlcdc ARGS` killed as it enters its first call of `calls` on `path`, before the call is made. */
  const killed = (args: string[], calls: string, path: string) =>
    killCliAt(dir, [...args, '--workspace', ws], calls, path);
  const replay = () => cli('changelog', 'replay', join('logs', log), '--job', 'j');
  const keys = () => server.requests.map((r) => r.headers['idempotency-key']);
  return { server, dir, ws, cli, log, record, killed, replay, keys };
}

test(
  'sqlcdc run killed (kill -9) as it removes its finished push’s progress record: its LOAD watermark has not moved, the next run plays the log without sending it again, and a replay after that sends every batch',
  LIMITS,
  async () => {
    const p = await project();
    await p.killed(['run', 'w.sql'], RECORD_GONE, p.record);
    assert.equal(p.server.requests.length, 3);
    assert.ok(existsSync(p.record), 'killed before the record went');

    // The run was not over: the next one plays the same log, and the target the push finished gets nothing again.
    const next = await p.cli('run', 'w.sql');
    assert.match(next.stderr, new RegExp(`change log logs/${p.log} loaded`));
    assert.match(next.stderr, /upsert stream: all 3 batches were sent by an earlier push of this change log/);
    assert.equal(p.server.requests.length, 3);
    assert.ok(!existsSync(p.record), 'that run removed the record');

    // Now over, the log is played to the target again in full when asked to.
    const replay = await p.replay();
    assert.doesNotMatch(replay.stderr, /sent by an earlier push/);
    assert.equal(p.server.requests.length, 6);
  },
);

test(
  'sqlcdc run killed (kill -9) as its LOAD watermark is about to move, after the progress record went: the next run sends the log again (at least once), with the same Idempotency-Keys',
  LIMITS,
  async () => {
    const p = await project();
    // A first run plays the first log, so the watermark's folder is there (strace -P names a path that is).
    await p.cli('run', 'w.sql');
    writeFileSync(join(p.dir, 'orders.csv'), 'id,v\n1,a\n2,b\n3,c\n4,d\n5,e\n');
    await p.cli('run', 'c.sql');
    const second = readdirSync(join(p.dir, 'logs')).find((f) => f.endsWith('.eds') && f !== p.log)!;
    await p.killed(['run', 'w.sql'], FOLDER_MADE, join(p.ws, 'cdc', 'w'));
    assert.equal(p.server.requests.length, 5);
    assert.ok(
      !existsSync(join(p.dir, 'logs', `${second}.progress.json`)),
      'the record went before the watermark moved',
    );

    const next = await p.cli('run', 'w.sql');
    assert.match(next.stderr, new RegExp(`change log logs/${second} loaded`));
    assert.equal(p.server.requests.length, 7);
    const keys = p.keys();
    assert.deepEqual(keys.slice(5), keys.slice(3, 5), 'a receiver honouring the keys drops them');
    assert.match((await p.cli('run', 'w.sql')).stderr, /no new change log of 'orders'/);
  },
);

test(
  'changelog replay killed (kill -9) as it removes its finished push’s progress record: job runs shows the replay succeeded, and a later replay sends every batch again',
  LIMITS,
  async () => {
    const p = await project();
    await p.killed(['changelog', 'replay', join('logs', p.log), '--job', 'j'], RECORD_GONE, p.record);
    assert.equal(p.server.requests.length, 3);
    assert.ok(existsSync(p.record), 'killed before the record went');
    const runs = JSON.parse((await p.cli('job', 'runs', 'j', '--output', 'json')).stdout) as {
      by: string;
      outcome: string;
    }[];
    assert.deepEqual(
      runs.map((r) => [r.by, r.outcome]),
      [['replay', 'success']],
    );

    const replay = await p.replay();
    assert.doesNotMatch(replay.stderr, /sent by an earlier push/);
    assert.equal(p.server.requests.length, 6);
  },
);
