import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempDir } from '../helpers/session';
import { killCliAt, straceUnavailable } from '../helpers/strace';

const LIMITS = { timeout: 120_000 };
// strace kills `job run` between two of its system calls.
const NO_STRACE = straceUnavailable();
const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

interface Run {
  by: string;
  outcome: string;
  end?: string;
}

/**
 * A workspace with job `j`, whose run proposes 5 as its high watermark (its watermark commit is a
 * rename onto cdc/j/highwatermark.json and a flush of cdc/j), and job `t`, which a success of `j`
 * triggers.
 */
function project(reader = "PRINT 'next #data.calc_hwm(5, {{@highwatermark}})';\n") {
  const dir = realpathSync(tempDir('run-kill'));
  const ws = join(dir, 'ws');
  writeFileSync(join(dir, 'j.sql'), reader);
  writeFileSync(join(dir, 't.sql'), "PRINT 't ran';\n");
  const cli = async (...args: string[]) => {
    const r = await runCli(dir, [...args, '--workspace', ws]);
    assert.equal(r.code, 0, `sqlcdc ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  const runs = async (job: string) => JSON.parse((await cli('job', 'runs', job, '--output', 'json')).stdout) as Run[];
  const watermark = async () => /^high watermark (.*)$/m.exec((await cli('job', 'show', 'j')).stdout)?.[1];
  return { dir, ws, cli, runs, watermark };
}

async function withTrigger(p: ReturnType<typeof project>) {
  await p.cli('job', 'create', 'j', '--reader', 'j.sql');
  await p.cli('job', 'create', 't', '--reader', 't.sql');
  await p.cli('job', 'trigger', 'j', '--on', 'success', '--run', 't');
}

/** `sqlcdc job run j` killed as it enters its first call of `calls` (on `path` when given), not made. */
function killedAt(p: ReturnType<typeof project>, calls: string, path?: string): Promise<void> {
  return killCliAt(p.dir, ['job', 'run', 'j', '--workspace', p.ws], calls, path);
}

/** `sqlcdc job run j` killed at its one rename, the commit of a watermark file: its success was recorded first. */
async function killedAtCommit(p: ReturnType<typeof project>): Promise<void> {
  await killedAt(p, 'rename,renameat,renameat2');
  assert.deepEqual(
    (await p.runs('j')).map((r) => r.outcome),
    ['success'],
  );
}

/** The stderr of the next `job run j`, which first writes the watermark file `cdc/j/<file>` the killed run did not. */
async function nextMoving(p: ReturnType<typeof project>, file: string): Promise<string> {
  const { stderr } = await p.cli('job', 'run', 'j');
  const warning = `job j: run \\d+ \\(success\\) was killed before its watermarks moved: moved now \\(cdc/j/${file.replace('.', '\\.')}\\)`;
  assert.match(stderr, new RegExp(warning));
  return stderr;
}

test(
  'job run killed (kill -9) after its high watermark moved: job runs shows it succeeded, and the next run of the job runs its triggers for it, once',
  { ...LIMITS, skip: NO_STRACE },
  async () => {
    const p = project();
    await withTrigger(p);
    // The flush of cdc/j that follows the rename onto highwatermark.json: the watermark moved.
    await killedAt(p, 'fsync,fdatasync', join(p.ws, 'cdc', 'j'));
    assert.equal(await p.watermark(), '5 (string)');
    assert.deepEqual(
      (await p.runs('j')).map((r) => [r.by, r.outcome]),
      [['run', 'success']],
    );
    assert.deepEqual(await p.runs('t'), [], 'killed before its triggers');

    const next = await p.cli('job', 'run', 'j');
    assert.match(next.stderr, /job j: run \d+ \(success\) ended before its triggers ran: running them now/);
    assert.deepEqual(
      (await p.runs('j')).map((r) => r.outcome),
      ['success', 'success'],
    );
    assert.deepEqual(
      (await p.runs('t')).map((r) => [r.by, r.outcome]),
      [
        ['trigger:j', 'success'],
        ['trigger:j', 'success'],
      ],
      'once for the killed run, once for this one',
    );
    await p.cli('job', 'run', 'j');
    assert.equal((await p.runs('t')).length, 3, 'the killed run’s triggers ran once');
  },
);

test(
  "job run killed (kill -9) as its high watermark is being written: the next start moves it as the run would have, from the run's commit record, and runs its triggers once",
  { ...LIMITS, skip: NO_STRACE },
  async () => {
    const p = project("PRINT 'from {{@highwatermark}}';\nPRINT 'next #data.calc_hwm(5, {{@highwatermark}})';\n");
    await withTrigger(p);
    // The run's one rename: the temp file's onto cdc/j/highwatermark.json.
    await killedAtCommit(p);
    assert.equal(await p.watermark(), 'none');
    // The next run starts from the watermark the killed run committed, as if it had not been killed.
    assert.match(await nextMoving(p, 'highwatermark.json'), /^from 5$/m);
    assert.equal(await p.watermark(), '5 (string)');
    assert.equal((await p.runs('t')).length, 2, 'once for the killed run, once for this one');

    const third = await p.cli('job', 'run', 'j');
    assert.doesNotMatch(third.stderr, /was killed before its watermarks moved/);
    assert.equal((await p.runs('t')).length, 3);
  },
);

test(
  'job run killed (kill -9) as its high watermark is being written, then a later run of the pipeline moves it: the next start leaves the later one',
  { ...LIMITS, skip: NO_STRACE },
  async () => {
    const p = project();
    await p.cli('job', 'create', 'j', '--reader', 'j.sql');
    await killedAtCommit(p);
    // `sqlcdc run later/j.sql` runs pipeline j, as the job does: a later write of its high watermark.
    mkdirSync(join(p.dir, 'later'));
    writeFileSync(join(p.dir, 'later', 'j.sql'), "PRINT '#data.calc_hwm(9, {{@highwatermark}})';\n");
    await p.cli('run', join('later', 'j.sql'));
    assert.equal(await p.watermark(), '9 (string)');
    const next = await p.cli('job', 'run', 'j');
    assert.doesNotMatch(next.stderr, /was killed before its watermarks moved/);
    assert.match(next.stderr, /^next 9$/m);
    assert.equal(await p.watermark(), '9 (string)');
  },
);

test(
  'job run killed (kill -9) as its LOAD watermark is being written: the next start moves it, so that run does not load the same change log again',
  { ...LIMITS, skip: NO_STRACE },
  async () => {
    const p = project();
    writeFileSync(join(p.dir, 'orders.csv'), 'id,v\n1,a\n2,b\n');
    writeFileSync(
      join(p.dir, 'c.sql'),
      "SELECT * FROM DRIVE 'orders.csv';\nCAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';\n",
    );
    writeFileSync(join(p.dir, 'w.sql'), "LOAD UPSERTS FROM 'orders' PATH 'logs';\n");
    await p.cli('run', 'c.sql');
    // A writer alone: its one rename is the commit of cdc/j/orders.watermark.
    await p.cli('job', 'create', 'j', '--writer', 'w.sql');
    await killedAtCommit(p);
    const next = await nextMoving(p, 'orders.watermark');
    assert.doesNotMatch(next, /change log .* loaded/, 'the killed run played that log');
    assert.match(next, /no new change log of 'orders'/);
  },
);

test(
  'job run killed (kill -9) mid-statement: job runs shows it running while its process lives, then interrupted; its triggers never run',
  LIMITS,
  async () => {
    let arrived!: () => void;
    const held = new Promise<void>((resolve) => (arrived = resolve));
    let calls = 0;
    // The first call is never answered: that run waits in its SELECT until it is killed.
    const server = await startHttpServer((_req, res) => {
      if (calls++ === 0) arrived();
      else sendJson(res, [{ id: 1 }]);
    });
    servers.push(server);
    const p = project(`SELECT * FROM HTTP (GET ${server.url}/orders);\n`);
    await withTrigger(p);
    let child!: ChildProcess;
    const killed = runCli(p.dir, ['job', 'run', 'j', '--workspace', p.ws], { started: (c) => (child = c) });
    await held;
    const running = await p.runs('j');
    assert.deepEqual(
      running.map((r) => [r.by, r.outcome, r.end]),
      [['run', 'running', undefined]],
    );
    child.kill('SIGKILL');
    assert.equal((await killed).code, null);
    assert.deepEqual(
      (await p.runs('j')).map((r) => r.outcome),
      ['interrupted'],
    );

    const next = await p.cli('job', 'run', 'j');
    assert.match(next.stderr, /job j: run \d+ \(started [^)]+\) was interrupted: its process ended before the run did/);
    assert.deepEqual(
      (await p.runs('j')).map((r) => r.outcome),
      ['interrupted', 'success'],
    );
    assert.equal((await p.runs('t')).length, 1, 'triggered by the second run only');
  },
);

test(
  'job run killed (kill -9) as it removes its finished push’s progress record, after its success was recorded: a later changelog replay of that log sends every batch again, and the next run moves the watermark',
  { ...LIMITS, skip: NO_STRACE },
  async () => {
    const server = await startHttpServer((_req, res) => sendJson(res, {}));
    servers.push(server);
    const p = project();
    writeFileSync(join(p.dir, 'orders.csv'), 'id,v\n1,a\n2,b\n3,c\n');
    writeFileSync(
      join(p.dir, 'c.sql'),
      "SELECT * FROM DRIVE 'orders.csv';\nCAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';\n",
    );
    writeFileSync(
      join(p.dir, 'w.sql'),
      `LOAD UPSERTS FROM 'orders' PATH 'logs';\nPUSH INTO HTTP ON_UPSERT (POST ${server.url}/orders) PAYLOAD ({"id": {{id}}}) WITH BATCH 1;\n`,
    );
    await p.cli('run', 'c.sql');
    const [log] = readdirSync(join(p.dir, 'logs')).filter((f) => f.endsWith('.eds'));
    await p.cli('job', 'create', 'j', '--writer', 'w.sql');
    // The push's record is removed once the run's success is recorded, before its watermark moves.
    const record = join(p.dir, 'logs', `${log}.progress.json`);
    await killedAt(p, 'unlink,unlinkat', record);
    assert.equal(server.requests.length, 3);
    assert.deepEqual(
      (await p.runs('j')).map((r) => r.outcome),
      ['success'],
    );
    assert.ok(existsSync(record), 'killed before the record went');

    // A deliberate replay of the log plays it to the target again, as after a run that was not killed.
    const replay = await p.cli('changelog', 'replay', join('logs', log), '--job', 'j');
    assert.doesNotMatch(replay.stderr, /sent by an earlier push/);
    assert.equal(server.requests.length, 6);
    // The killed run's success stands: its LOAD watermark moves at the next start, which plays no log again.
    assert.match(await nextMoving(p, 'orders.watermark'), /no new change log of 'orders'/);
    assert.equal(server.requests.length, 6);
  },
);
