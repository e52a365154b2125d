import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { inPidNamespace, pidNamespaceUnavailable } from '../helpers/pid-namespace';
import { killCliAt, straceUnavailable } from '../helpers/strace';
import { tempDir } from '../helpers/temp';
import { processAlive, processIdentity } from '../../runtime/util/process-alive';

const CHILD = join(__dirname, 'lock-child.js');

function start(
  args: string[],
  command: string[] = [process.execPath, CHILD],
): {
  child: ChildProcess;
  said: (word: string) => Promise<void>;
  exited: Promise<number | null>;
} {
  const child = spawn(command[0], [...command.slice(1), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let out = '';
  const waiters: { word: string; done: () => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of waiters) if (out.includes(w.word)) w.done();
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const said = (word: string) =>
    new Promise<void>((done, failed) => {
      if (out.includes(word)) return done();
      waiters.push({ word, done });
      void exited.then(() => failed(new Error(`child exited before saying ${word}`)));
    });
  return { child, said, exited };
}

test('a lock whose holder was killed (kill -9), asked for by several processes at once: one at a time takes it over', async () => {
  const dir = tempDir('lock-takeover');
  const file = join(dir, 'job.json');
  for (let round = 0; round < 8; round++) {
    const holder = start(['--hold', file]);
    await holder.said('held');
    holder.child.kill('SIGKILL');
    await holder.exited;

    const journal = join(dir, `journal-${round}`);
    const go = join(dir, `go-${round}`);
    writeFileSync(journal, '');
    const waiters = Array.from({ length: 6 }, (_, i) =>
      start(['--enter', file, journal, go, i % 2 ? 'sync' : 'async']),
    );
    await Promise.all(waiters.map((w) => w.said('ready')));
    writeFileSync(go, '');
    assert.deepEqual(await Promise.all(waiters.map((w) => w.exited)), [0, 0, 0, 0, 0, 0]);

    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    assert.equal(lines.length, 12, lines.join('\n'));
    for (let i = 0; i < lines.length; i += 2) {
      const [what, pid] = lines[i].split(' ');
      assert.equal(what, 'enter', `round ${round}: two processes inside at once\n${lines.join('\n')}`);
      assert.equal(lines[i + 1], `leave ${pid}`, `round ${round}: two processes inside at once\n${lines.join('\n')}`);
    }
  }
});

test(
  'a lock held by a process of another PID namespace (another container on the workspace): held while its holder may live, taken over once stale',
  { skip: pidNamespaceUnavailable() },
  async () => {
    const dir = tempDir('lock-takeover');
    writeFileSync(join(dir, 'w.sql'), "PRINT 'w';\n");
    const file = join(dir, 'ws', 'jobs', 'orders', 'job.json');
    mkdirSync(dirname(file), { recursive: true });
    // Its process id there names no process here, as a container's usually does not.
    let pid = 30_000;
    while (processAlive(pid)) pid++;
    const [command, args] = inPidNamespace(pid, [process.execPath, CHILD, '--hold', file]);
    const holder = start([], [command, ...args]);
    try {
      await holder.said('held');
      const waited = await runCli(dir, ['job', 'create', 'orders', '--writer', 'w.sql', '--workspace', 'ws']);
      assert.equal(waited.code, 1, waited.stderr);
      assert.match(waited.stderr, /job\.json is being changed by another sqlcdc process/);
    } finally {
      process.kill(-holder.child.pid!, 'SIGKILL');
      await holder.exited;
    }
    // Its holder killed long ago (the lock untouched for longer than 10 minutes): no longer held.
    const lock = `${file}.lock`;
    const then = new Date(Date.now() - 11 * 60_000);
    for (const name of readdirSync(lock)) utimesSync(join(lock, name), then, then);
    const made = await runCli(dir, ['job', 'create', 'orders', '--writer', 'w.sql', '--workspace', 'ws']);
    assert.equal(made.code, 0, made.stderr);
    assert.deepEqual(readdirSync(dirname(file)).sort(), ['job.json', 'writer.sql']);
  },
);

test('a lock of another boot id: another machine on a shared workspace holds it while it touches it; one from before this boot is dead', async () => {
  const dir = tempDir('lock-takeover');
  writeFileSync(join(dir, 'w.sql'), "PRINT 'w';\n");
  const file = join(dir, 'ws', 'jobs', 'orders', 'job.json');
  const lock = `${file}.lock`;
  mkdirSync(lock, { recursive: true });
  // As another machine's sqlcdc names its lock: its own boot id, namespace, process id and start time.
  const holder = join(lock, `0123456789ab.4026531836.${process.pid}.1234.abcdef01.0`);
  writeFileSync(holder, '');
  const held = await runCli(dir, ['job', 'create', 'orders', '--writer', 'w.sql', '--workspace', 'ws']);
  assert.equal(held.code, 1, held.stderr);
  assert.match(held.stderr, /job\.json is being changed by another sqlcdc process/);
  // Last touched before this machine started: left by a process of an earlier boot, dead at once.
  const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))![1]);
  const before = new Date((btime - 60) * 1000);
  utimesSync(holder, before, before);
  const made = await runCli(dir, ['job', 'create', 'orders', '--writer', 'w.sql', '--workspace', 'ws']);
  assert.equal(made.code, 0, made.stderr);
  assert.deepEqual(readdirSync(dirname(file)).sort(), ['job.json', 'writer.sql']);
});

test(
  "a taker killed (kill -9) between making its lock aside and renaming it into place: the next taker removes that folder, not a live taker's",
  // strace kills the taker between two of its system calls.
  { skip: straceUnavailable() },
  async () => {
    const dir = tempDir('lock-takeover');
    writeFileSync(join(dir, 'w.sql'), "PRINT 'w';\n");
    const folder = join(dir, 'ws', 'jobs', 'orders');
    const create = ['job', 'create', 'orders', '--writer', 'w.sql', '--workspace', 'ws'];
    // SIGKILL as it enters its first rename, not made: the one putting the lock made aside in place
    // (job.json is written after it).
    await killCliAt(dir, create, 'rename,renameat,renameat2');
    const left = readdirSync(folder);
    assert.equal(left.length, 1, left.join(', '));
    assert.match(left[0], /^\.job\.json\.lock\./, 'the killed taker left its lock made aside');
    // A live taker's, as another process making its lock aside at this moment has it.
    const token = `${processIdentity()}.abcdef01.0`;
    const live = `.job.json.lock.${token}`;
    mkdirSync(join(folder, live));
    writeFileSync(join(folder, live, token), '');

    const made = await runCli(dir, create);
    assert.equal(made.code, 0, made.stderr);
    assert.deepEqual(readdirSync(folder).sort(), [live, 'job.json', 'writer.sql']);
  },
);
