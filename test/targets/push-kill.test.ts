import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { PushProgress } from '../../runtime/targets/resume';
import { runCli, runCliInTemp } from '../helpers/cli';
import { ftpUnavailable, startFtpServer, type FtpServer } from '../helpers/ftp-server';
import { startHttpServer, type TestServer } from '../helpers/http-server';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../helpers/postgres';
import { tempSession } from '../helpers/session';

const servers: (TestServer | FtpServer)[] = [];
let postgres: PostgresServer | undefined;
after(async () => {
  for (const s of servers) await s.close();
  postgres?.stop();
});

/** A push target that holds the third upsert batch of the job's first log until `release`. */
interface Target {
  /** Cells run in the workspace before the job is made: connections, tables. */
  setup: string[];
  /** The writer's push. */
  push: string;
  /** After the kill: the third batch goes through from now on. */
  release(): Promise<void>;
  /** The target's rows, id → v. */
  rows(): Promise<Record<string, string>>;
  /** What the run after the kill says, having sent batches 3 to 5 of the first log. */
  resumed: RegExp;
  /** What the next run says, having sent the second log (2 upserts, 1 delete). */
  next: RegExp;
  /**
   * True once the third batch has reached the target, where it can tell: the second batch's note can
   * be written before the third call arrives, and a kill in between leaves one call fewer to count.
   */
  held?(): boolean;
}

/** Where the job's change logs go: the workspace by default, or an FTP site. */
interface Logs {
  setup: string[];
  /** The reader's PATH and the writer's LOAD … PATH (empty: the job's folder in the workspace). */
  path: string;
  /** The local folder the logs and their progress records are in, seen from the test. */
  folder(dir: string): string;
}

const WORKSPACE_LOGS: Logs = { setup: [], path: '', folder: (dir) => join(dir, 'ws', 'changelogs', 'sync') };

/**
 * kill -9 of a job run once two batches of its push are done and noted, the third held by the target;
 * then the source moves on and the job runs until the target is the source.
 */
async function killMidPush(target: Target, logs: Logs, afterKill?: () => void): Promise<void> {
  const reader = `SELECT * FROM DRIVE 'src.csv';\nCAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id'${logs.path && ` WITH PATH ${logs.path}`};\n`;
  const writer = `LOAD UPSERTS DELETES FROM 'orders'${logs.path && ` PATH ${logs.path}`};\n${target.push};\n`;
  const { session, dir } = tempSession({ 'r.sql': reader, 'w.sql': writer }, 'push-kill');
  for (const cell of [...logs.setup, ...target.setup]) await session.run(cell);
  await session.close();
  const cli = async (args: string[]) => {
    const r = await runCli(dir, [...args, '--workspace', 'ws']);
    assert.equal(r.code, 0, `sqlcdc ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  await cli(['job', 'create', 'sync', '--reader', 'r.sql', '--writer', 'w.sql']);
  const source = (rows: [number, string][]) =>
    writeFileSync(join(dir, 'src.csv'), `id,v\n${rows.map((r) => r.join(',')).join('\n')}\n`);

  source([
    [1, 'a'],
    [2, 'b'],
    [3, 'c'],
    [4, 'd'],
    [5, 'e'],
  ]);
  let child: ChildProcess | undefined;
  // A temp folder of its own: a killed process leaves its temp files (an FTP log's download) behind.
  const killed = runCliInTemp(dir, ['job', 'run', 'sync', '--workspace', 'ws'], { started: (c) => (child = c) });
  // Killed once the two batches done are noted beside the log (docs/push.md), the third held.
  const folder = logs.folder(dir);
  const noted = () =>
    existsSync(folder) &&
    readdirSync(folder)
      .filter((n) => n.endsWith('.progress.json') && !n.startsWith('.'))
      .some((n) =>
        Object.values((JSON.parse(readFileSync(join(folder, n), 'utf8')) as PushProgress).done).some(
          (s) => s.upsert === 2,
        ),
      );
  try {
    const held = () => target.held?.() ?? true;
    for (let i = 0; i < 2000 && !(noted() && held()); i++) await new Promise((go) => setTimeout(go, 5));
    assert.ok(noted(), 'the batches done are noted');
    assert.ok(held(), 'the third batch reached the target');
  } finally {
    child!.kill('SIGKILL');
  }
  assert.equal((await killed).code, null, 'killed');
  assert.deepEqual(await target.rows(), { 1: 'a', 2: 'b' }, 'two rows were written before the kill');
  afterKill?.();
  await target.release();

  // The source moves on meanwhile: 2 changes, 5 goes, 6 comes.
  source([
    [1, 'a'],
    [2, 'B'],
    [3, 'c'],
    [4, 'd'],
    [6, 'f'],
  ]);
  // This run captures the second change log, and plays the first one again: its push was never
  // finished, so LOAD's watermark did not move past it. Only the batches not noted are sent.
  const second = await cli(['job', 'run', 'sync']);
  assert.match(second.stderr, /resuming at batch 3 of 5/);
  assert.match(second.stderr, target.resumed);
  // The next run plays the second log: the target is the source.
  const third = await cli(['job', 'run', 'sync']);
  assert.match(third.stderr, target.next);
  assert.deepEqual(await target.rows(), { 1: 'a', 2: 'B', 3: 'c', 4: 'd', 6: 'f' });
  const fourth = await cli(['job', 'run', 'sync']);
  assert.match(fourth.stderr, /nothing to load/);
}

/** A receiver keeping a table of the rows put and deleted; it leaves the third call unanswered until released. */
async function httpTarget(): Promise<Target & { received: string[]; calls(): number }> {
  const table = new Map<string, string>();
  let holding: number | undefined = 3;
  const received: string[] = [];
  const server = await startHttpServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    if (received.length === holding) return;
    const id = decodeURIComponent(req.url.split('/').pop()!);
    if (req.method === 'PUT') table.set(id, (JSON.parse(req.body) as { v: string }).v);
    else table.delete(id);
    res.writeHead(204).end();
  });
  servers.push(server);
  return {
    setup: [`%connection add api ${server.url}`],
    push: `PUSH INTO HTTP [api]
    ON_UPSERT (PUT /rows/{{id}}) PAYLOAD ({"v": "{{v}}"})
    ON_DELETE (DELETE /rows/{{id}})`,
    release: async () => {
      holding = undefined;
    },
    rows: async () => Object.fromEntries([...table].sort()),
    resumed: /PUSH INTO HTTP: 3 calls made, 3 rows sent/,
    next: /PUSH INTO HTTP: 3 calls made, 3 rows sent/,
    received,
    calls: () => received.length,
    held: () => received.length >= 3,
  };
}

test('kill -9 of a job run in the middle of its PUSH INTO HTTP: the next run sends only the batches not acknowledged, then the next log; the target ends as the source', async () => {
  const target = await httpTarget();
  let killedAt = 0;
  await killMidPush(target, WORKSPACE_LOGS, () => (killedAt = target.received.length));
  // Calls 1 and 2 were answered before the kill; call 3 was received, never answered: sent again.
  assert.deepEqual(target.received.slice(killedAt, killedAt + 3), ['PUT /rows/3', 'PUT /rows/4', 'PUT /rows/5']);
  assert.equal(target.calls(), 3 + 3 + 3, "the killed run's calls, the first log's calls not answered, the second log");
});

test(
  'kill -9 in the middle of a PUSH INTO HTTP of a log kept on FTP: the progress is noted on the site, the next run resumes',
  { skip: ftpUnavailable(), timeout: 120_000 },
  async () => {
    const site = await startFtpServer();
    servers.push(site);
    const target = await httpTarget();
    await killMidPush(target, {
      setup: [`%connection add site ${site.url}`],
      path: "[site] '/cdc'",
      folder: () => join(site.root, 'cdc'),
    });
    assert.equal(target.calls(), 3 + 3 + 3);
  },
);

/**
 * A database target: ON_UPSERT, a row at a time, fails while `gate` holds the row's id, and WITH RETRY
 * plays it again and again: batches 1 and 2 are committed, the third waits.
 */
async function dbTarget(url: string): Promise<Target> {
  const { session } = tempSession({}, 'push-kill-db');
  await session.run(`%connection add db ${url}`);
  await session.run('EXEC ON DB [db] (create table t (id int primary key, v text));');
  await session.run('EXEC ON DB [db] (create table gate (id int primary key));');
  await session.run('EXEC ON DB [db] (insert into gate values (3));');
  await session.close();
  const query = async (sql: string) => {
    const { session: s } = tempSession({}, 'push-kill-db');
    try {
      await s.run(`%connection add db ${url}`);
      await s.run(sql);
      return s.dataset.rows();
    } finally {
      await s.close();
    }
  };
  return {
    setup: [`%connection add db ${url}`],
    push: `PUSH INTO DB [db]
    ON_UPSERT (insert into gate (id) select id from gate where id = {{id}}; insert into t (id, v) values ({{id}}, {{v}}) on conflict (id) do update set v = excluded.v) BATCH 1
    ON_DELETE (delete from t where id = {{id}}) BATCH 1
    WITH RETRY LINEAR (1000, 0.05)`,
    release: async () => void (await query('EXEC ON DB [db] (delete from gate);')),
    rows: async () =>
      Object.fromEntries(
        (await query('SELECT * FROM DB [db] (select id, v from t order by id);')).map(([id, v]) => [String(id), v]),
      ) as Record<string, string>,
    resumed: /PUSH INTO DB \[db\]: 3 upserts by ON_UPSERT \(2 more committed by an earlier push\) in 3 transactions/,
    next: /PUSH INTO DB \[db\]: 2 upserts by ON_UPSERT, 1 delete by ON_DELETE in 3 transactions/,
  };
}

test('kill -9 in the middle of a PUSH INTO DB into SQLite: the batches committed and noted are not played again', async () => {
  const { dir } = tempSession({}, 'push-kill-sqlite');
  await killMidPush(await dbTarget(`sqlite:${join(dir, 'target.db')}`), WORKSPACE_LOGS);
});

test(
  'kill -9 in the middle of a PUSH INTO DB into PostgreSQL: the batches committed and noted are not played again',
  { skip: postgresUnavailable(), timeout: 120_000 },
  async () => {
    postgres ??= startPostgres();
    await killMidPush(await dbTarget(await postgres.newDatabase()), WORKSPACE_LOGS);
  },
);

test('kill -9 of a job run between two pushes of its change log: the next run sends nothing again to the target the first push finished', async () => {
  // Two targets on one receiver, /a and /b; calls to /b are left unanswered until released, and the
  // job is killed while the first one waits.
  const received: string[] = [];
  let released = false;
  const server = await startHttpServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    if (req.url.startsWith('/b/') && !released) return;
    res.writeHead(204).end();
  });
  servers.push(server);
  const push = (path: string) => `PUSH INTO HTTP [api] ON_UPSERT (PUT /${path}/{{id}}) PAYLOAD ({"v": "{{v}}"})`;
  const { session, dir } = tempSession(
    {
      'r.sql': "SELECT * FROM DRIVE 'src.csv';\nCAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id';\n",
      'w.sql': `LOAD UPSERTS DELETES FROM 'orders';\n${push('a')};\n${push('b')};\n`,
      'src.csv': 'id,v\n1,a\n2,b\n3,c\n',
    },
    'push-kill',
  );
  await session.run(`%connection add api ${server.url}`);
  await session.close();
  const created = await runCli(dir, [
    'job',
    'create',
    'sync',
    '--reader',
    'r.sql',
    '--writer',
    'w.sql',
    '--workspace',
    'ws',
  ]);
  assert.equal(created.code, 0, created.stderr);
  let child: ChildProcess | undefined;
  const killed = runCliInTemp(dir, ['job', 'run', 'sync', '--workspace', 'ws'], { started: (c) => (child = c) });
  try {
    await server.received(4);
  } finally {
    child!.kill('SIGKILL');
  }
  assert.equal((await killed).code, null, 'killed');
  assert.deepEqual(received, ['PUT /a/1', 'PUT /a/2', 'PUT /a/3', 'PUT /b/1']);
  released = true;

  const next = await runCli(dir, ['job', 'run', 'sync', '--workspace', 'ws']);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, /upsert stream: all 3 batches were sent by an earlier push of this change log/);
  assert.deepEqual(received.slice(4), ['PUT /b/1', 'PUT /b/2', 'PUT /b/3'], 'nothing sent to /a again');
  // The run succeeded: the log is played, its record gone.
  const logs = join(dir, 'ws', 'changelogs', 'sync');
  assert.deepEqual(
    readdirSync(logs).filter((n) => n.endsWith('.progress.json')),
    [],
  );
});
