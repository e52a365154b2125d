import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readChangeLog } from '../../runtime/changelog/read';
import { runCli } from '../helpers/cli';
import { ftpUnavailable, startFtpServer, type FtpServer } from '../helpers/ftp-server';
import { tempSession } from '../helpers/session';
import { SQLCDC } from '../repl/harness';
import { Session } from '../../runtime/session';

const LIMITS = { timeout: 120_000, skip: ftpUnavailable() };
const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing.reverse()) await close();
});

/**
 * A TCP relay in front of the FTP server that can hold the next connection: the run that opens it
 * (to list the log folder, once its CAPTURE has read the CDC state and diffed) stops there, at a
 * known point, until the test lets it go.
 */
async function relay(port: number): Promise<{ port: number; holdNext(): { reached: Promise<void>; release(): void } }> {
  let hold: { reached: () => void; released: Promise<void> } | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const held = hold;
    hold = undefined;
    held?.reached();
    void (held?.released ?? Promise.resolve()).then(() => {
      const upstream = connect(port, '127.0.0.1');
      sockets.add(upstream);
      upstream.on('close', () => (sockets.delete(upstream), client.destroy()));
      client.on('close', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    port: (server.address() as { port: number }).port,
    holdNext() {
      let reached!: () => void;
      let release!: () => void;
      const reachedP = new Promise<void>((resolve) => (reached = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      hold = { reached, released };
      return { reached: reachedP, release };
    },
  };
}

/** `sqlcdc run cap.sql` in `cwd` (its own source), on the shared workspace. */
function run(cwd: string, workspace: string) {
  const child = spawn(process.execPath, [SQLCDC, 'run', 'cap.sql', '--workspace', workspace], { cwd });
  let stderr = '';
  const listeners: (() => void)[] = [];
  child.stderr.setEncoding('utf8').on('data', (d: string) => ((stderr += d), listeners.forEach((l) => l())));
  child.stdout.resume();
  return {
    stderr: () => stderr,
    exited: new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code))),
    kill: () => child.kill('SIGKILL'),
    /** Resolves once the run wrote something matching `pattern` on stderr. */
    said: (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => pattern.test(stderr) && resolve();
        listeners.push(check);
        check();
      }),
  };
}

/** The table the logs describe: every log of the folder applied in execution id order, upserts then deletes. */
async function replayed(folder: string): Promise<Record<string, string>> {
  const table: Record<string, string> = {};
  for (const file of readdirSync(folder).sort()) {
    const log = await readChangeLog(join(folder, file));
    for (const r of log.upserts.rows()) table[String(r[0])] = String(r[1]);
    for (const r of log.deletes.rows()) delete table[String(r[0])];
  }
  return table;
}

const CAPTURE =
  "SELECT * FROM DRIVE 'src.csv';\nCAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH [site] '/logs';\n";

/**
 * A workspace whose connection [site] reaches a real FTP server through the relay, and pipeline `cap`
 * captured once (r=1, s=1). `source` makes a folder holding a version of the source and cap.sql
 * reading it: runs in two such folders are runs of one pipeline on different data.
 */
async function captured() {
  const ftp: FtpServer = await startFtpServer();
  closing.push(() => ftp.close());
  const gate = await relay(ftp.port);
  const { session, dir } = tempSession({}, 'overlapping-runs');
  const workspace = join(dir, 'ws');
  await session.run(`%connection add site ftp://${ftp.user}:${ftp.password}@127.0.0.1:${gate.port}/`);
  await session.close();
  const source = (name: string, rows: string) => {
    mkdirSync(join(dir, name), { recursive: true });
    writeFileSync(join(dir, name, 'src.csv'), `id,v\n${rows}`);
    writeFileSync(join(dir, name, 'cap.sql'), CAPTURE);
    return join(dir, name);
  };
  const first = await runCli(source('v0', 'r,1\ns,1\n'), ['run', 'cap.sql', '--workspace', workspace]);
  assert.equal(first.code, 0, first.stderr);
  /** The source goes back to r=1, s=1: the logs, applied in order, must say what it holds. */
  const checkBack = async () => {
    const back = await runCli(source('back', 'r,1\ns,1\n'), ['run', 'cap.sql', '--workspace', workspace]);
    assert.equal(back.code, 0, back.stderr);
    assert.deepEqual(await replayed(join(ftp.root, 'logs')), { r: '1', s: '1' });
  };
  return { ftp, gate, dir, workspace, source, checkBack };
}

test(
  'two runs of one CAPTURE at once (two processes on one workspace): the second waits for the first, and the logs add up to the source',
  LIMITS,
  async () => {
    const { gate, workspace, source, checkBack } = await captured();
    // A changes s and is held once its diff is made; B, meanwhile, changes r.
    const held = gate.holdNext();
    const a = run(source('a', 'r,1\ns,2\n'), workspace);
    await held.reached;
    const b = run(source('b', 'r,2\ns,1\n'), workspace);
    // B either ends (it did not wait for A) or says it waits; only then is A let go.
    await Promise.race([b.exited, b.said(/waits for another run capturing into .*orders\.state/)]);
    held.release();
    assert.equal(await a.exited, 0, a.stderr());
    assert.equal(await b.exited, 0, b.stderr());
    await checkBack();
  },
);

test(
  'a run killed (kill -9) between reading the CDC state and committing it: the next run takes its lock over and loses no change',
  LIMITS,
  async () => {
    const { gate, workspace, source, checkBack } = await captured();
    const held = gate.holdNext();
    const a = run(source('a', 'r,1\ns,2\n'), workspace);
    await held.reached;
    a.kill();
    assert.equal(await a.exited, null, 'killed');
    const b = run(source('b', 'r,2\ns,2\n'), workspace);
    assert.equal(await b.exited, 0, b.stderr());
    assert.doesNotMatch(b.stderr(), /waits for/, 'a lock whose process died is no lock');
    await checkBack();
  },
);

test(
  'two runs of one CAPTURE at once in one process (two sessions, as a listener runs calls): the second waits for the first',
  LIMITS,
  async () => {
    const { gate, workspace, source, checkBack } = await captured();
    const session = (cwd: string) => new Session({ workspace, cwd, pipeline: 'cap' });
    const held = gate.holdNext();
    const a = session(source('a', 'r,1\ns,2\n'));
    const b = session(source('b', 'r,2\ns,1\n'));
    try {
      const ranA = a.run(CAPTURE);
      await held.reached;
      let waited = false;
      const ranB = (async () => {
        for await (const r of b.execute(CAPTURE))
          if (r.kind === 'message' && /waits for another run capturing/.test(r.text)) {
            waited = true;
            held.release();
          } else if (r.kind === 'error') assert.fail(r.error.message);
      })();
      // B ends without waiting (the defect) or waits, which lets A go.
      await Promise.race([ranB, ranA]);
      held.release();
      await Promise.all([ranA, ranB]);
      assert.ok(waited, 'B waited for A');
    } finally {
      await a.close();
      await b.close();
    }
    await checkBack();
  },
);
