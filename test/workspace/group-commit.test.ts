import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import { GroupCommit } from '../../runtime/workspace/group-commit';
import {
  decodeSegment,
  encodeEntry,
  EntryKind,
  SEGMENT_HEADER,
  segmentHeader,
  withdrawal,
} from '../../runtime/workspace/journal';
import { inPidNamespace, pidNamespaceUnavailable } from '../helpers/pid-namespace';
import { tempDir } from '../helpers/session';

/** A safety net so a hung child fails the test instead of the run; nothing here depends on timing. */
const LIMITS = { timeout: 300_000 };

/** File `name`'s content: 20 KB naming it throughout, so a file cut short or holding another's bytes shows. */
function content(name: string): Buffer {
  return Buffer.from(`${name};`.repeat(Math.ceil(20_000 / (name.length + 1))));
}

/** Segments, and temp files in the staging folder, left in `dir`'s journal (the staging folder itself is kept). */
function leftInJournal(dir: string): string[] {
  const journal = join(dir, '.journal');
  return readdirSync(journal).flatMap((f) =>
    f === 'staging' ? readdirSync(join(journal, f)).map((t) => `staging/${t}`) : [f],
  );
}

/** Checks that every file of `dir` not dot-named (a temp file) holds exactly its content. */
function checkFolder(dir: string): string[] {
  const names = readdirSync(dir).filter((f) => !f.startsWith('.'));
  for (const f of names) assert.ok(readFileSync(join(dir, f)).equals(content(f)), `${f} is not whole`);
  return names;
}

test('files handed over together share flushes, 32 at a time: when the first is durable, the 31 handed over with it are in place', async () => {
  const dir = tempDir('group-commit');
  const group = new GroupCommit(dir);
  try {
    const names = Array.from({ length: 100 }, (_, i) => `f${i}.bin`);
    const published = names.map((n) => group.publish(join(dir, n), [content(n)], { overwrite: false }));
    await published[0];
    // Nothing has settled the other 31 here: they are in place because their batch was.
    const first = new Set(checkFolder(dir));
    for (const n of names.slice(0, 32)) assert.ok(first.has(n), `${n} went with the first`);
    await Promise.all(published);
    assert.deepEqual(checkFolder(dir).sort(), [...names].sort());
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('.') && f !== '.journal'),
      [],
      'no temp file left',
    );
  } finally {
    await group.close();
  }
});

test('a file that cannot be published fails alone: the rest of its batch is published, no temp file stays', async () => {
  const dir = tempDir('group-commit');
  writeFileSync(join(dir, 'taken.bin'), 'first');
  const group = new GroupCommit(dir);
  try {
    const results = await Promise.allSettled([
      group.publish(join(dir, 'a.bin'), [content('a.bin')], { overwrite: false }),
      group.publish(join(dir, 'taken.bin'), [content('taken.bin')], { overwrite: false }),
      group.publish(join(dir, 'sub', 'b.bin'), [content('b.bin')], { overwrite: false }),
      group.publish(join(dir, 'c.bin'), [content('c.bin')]),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.equal(((results[1] as PromiseRejectedResult).reason as NodeJS.ErrnoException).code, 'EEXIST');
    assert.equal(readFileSync(join(dir, 'taken.bin'), 'utf8'), 'first', 'an existing file is never replaced');
    assert.ok(readFileSync(join(dir, 'sub', 'b.bin')).equals(content('b.bin')), 'a missing folder is made');
    assert.deepEqual(
      readdirSync(dir)
        .filter((f) => f !== '.journal')
        .sort(),
      ['a.bin', 'c.bin', 'sub', 'taken.bin'],
    );
  } finally {
    await group.close();
  }
});

/**
 * Publishes bursts of 40 files at once into files/, round after round, each round alternately by hard
 * link and by rename, with a line each appended to runs.jsonl, and prints each file's name once both
 * resolved, until it is killed.
 */
const CHILD = `
const { join } = require('node:path');
const { GroupCommit } = require(${JSON.stringify(require.resolve('../../runtime/workspace/group-commit'))});
const content = ${content.toString()};
const dir = process.argv[1];
const group = new GroupCommit(dir);
(async () => {
  for (let round = 0; ; round++) {
    await Promise.all(Array.from({ length: 40 }, (_, i) => {
      const name = 'r' + round + '_' + i + '.bin';
      return Promise.all([
        group.publish(join(dir, 'files', name), [content(name)], { overwrite: round % 2 === 1 }),
        group.append(join(dir, 'runs.jsonl'), JSON.stringify({ name }) + '\\n'),
      ]).then(() => process.stdout.write(name + '\\n'));
    }));
  }
})();
`;

/** The complete lines of runs.jsonl, as names; a torn line is no name. */
function namesIn(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [(JSON.parse(l) as { name: string }).name];
      } catch {
        return [];
      }
    });
}

test(
  'kill -9 during bursts sharing flushes: every file reported durable is whole, no visible file is partial; after a power cut the journal brings them back',
  LIMITS,
  async () => {
    const dir = tempDir('group-commit-kill');
    const files = join(dir, 'files');
    const child = spawn(process.execPath, ['-e', CHILD, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    let out = '';
    await new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        // A few hundred files in: the child is mid-burst, with temp files written and flushes under way.
        if (out.split('\n').length > 400 && child.signalCode === null) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      void exited.then(() => resolve());
    });
    assert.equal(await exited, 'SIGKILL');
    const reported = out.split('\n').slice(0, -1);
    assert.ok(reported.length >= 400);
    const visible = new Set(checkFolder(files));
    for (const name of reported) assert.ok(visible.has(name), `${name} was reported durable but is missing`);
    // What was written but not yet published is only ever a dot-named temp file.
    for (const f of readdirSync(files))
      assert.ok(visible.has(f) || /^\..+\.tmp-[0-9a-f]*\.\d*\.\d+\.\d*-[0-9a-f]+$/.test(f), f);
    const lines = namesIn(join(dir, 'runs.jsonl'));
    for (const name of reported) assert.equal(lines.filter((l) => l === name).length, 1, `${name}'s line`);
    assert.ok(leftInJournal(dir).length > 0, 'the killed writer left its journal');

    // What a power cut can do to files the page cache had not written back: gone, cut short, and
    // the run records' last lines lost with one torn.
    for (let i = 0; i < reported.length; i += 7) rmSync(join(files, reported[i]));
    for (let i = 3; i < reported.length; i += 11) if (i % 7 !== 0) truncateSync(join(files, reported[i]), 100);
    const runs = readFileSync(join(dir, 'runs.jsonl'), 'utf8');
    writeFileSync(join(dir, 'runs.jsonl'), runs.slice(0, Math.floor(runs.length * 0.8)));

    // The next writer on the folder replays the journal before anything else.
    await new GroupCommit(dir).close();
    const restored = new Set(checkFolder(files));
    for (const name of reported) assert.ok(restored.has(name), `${name} was reported durable but is not restored`);
    const relines = namesIn(join(dir, 'runs.jsonl'));
    for (const name of reported) assert.equal(relines.filter((l) => l === name).length, 1, `${name}'s line, once`);
    assert.deepEqual(leftInJournal(dir), [], "replayed segments and the killed writer's temp files are dropped");
  },
);

test('lines appended together land whole, once each; a closed group commit leaves no journal behind', async () => {
  const dir = tempDir('group-commit-append');
  const group = new GroupCommit(dir);
  const names = Array.from({ length: 200 }, (_, i) => `n${i}`);
  await Promise.all(names.map((name) => group.append(join(dir, 'runs.jsonl'), `${JSON.stringify({ name })}\n`)));
  await group.close();
  assert.deepEqual(namesIn(join(dir, 'runs.jsonl')).sort(), [...names].sort());
  assert.deepEqual(leftInJournal(dir), []);
});

/**
 * Publishes a_0…a_49, says so, then on each line of stdin a round of files named after it, printing
 * each name once durable; it stays alive until killed.
 */
const ROUNDS_CHILD = `
const { join } = require('node:path');
const { GroupCommit } = require(${JSON.stringify(require.resolve('../../runtime/workspace/group-commit'))});
const content = ${content.toString()};
const dir = process.argv[1];
const group = new GroupCommit(dir, { idleCheckpointMs: 200 });
const round = (prefix) => Promise.all(Array.from({ length: 50 }, (_, i) => {
  const name = prefix + '_' + i + '.bin';
  return group.publish(join(dir, name), [content(name)], { overwrite: false }).then(() => process.stdout.write(name + '\\n'));
}));
void round('a');
process.stdin.setEncoding('utf8').on('data', (d) => { for (const p of d.split('\\n').filter(Boolean)) void round(p); });
`;

test(
  'a segment used again after its checkpoint: replay restores what its new records speak for, never a file of its earlier use',
  LIMITS,
  async () => {
    const dir = tempDir('group-commit-reuse');
    const child = spawn(process.execPath, ['-e', ROUNDS_CHILD, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    let out = '';
    let onData = () => {};
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      onData();
    });
    const printed = (n: number) =>
      new Promise<void>((resolve, reject) => {
        onData = () => (out.split('\n').length > n ? resolve() : undefined);
        void exited.then(() => reject(new Error('the child exited')));
        onData();
      });
    try {
      await printed(50);
      // Once the writer has been idle a while it checkpoints and restarts its segment under a new
      // salt: the a_ records are still in the file but no longer read as records.
      const journal = join(dir, '.journal');
      for (;;) {
        const segments = readdirSync(journal).filter((f) => f.endsWith('.wal'));
        if (segments.length === 1 && decodeSegment(dir, readFileSync(join(journal, segments[0]))).length === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      child.stdin.write('b\n');
      await printed(100);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const reported = out.split('\n').filter(Boolean);
    assert.equal(reported.filter((n) => n.startsWith('b_')).length, 50);
    // Old logs a user deleted, and new ones a power cut lost.
    for (let i = 0; i < 10; i++) {
      rmSync(join(dir, `a_${i}.bin`));
      rmSync(join(dir, `b_${i}.bin`));
    }
    await new GroupCommit(dir).close();
    const names = new Set(checkFolder(dir));
    for (let i = 0; i < 50; i++) assert.ok(names.has(`b_${i}.bin`), `b_${i}.bin is restored`);
    for (let i = 0; i < 10; i++)
      assert.ok(!names.has(`a_${i}.bin`), `a_${i}.bin, checkpointed then deleted, stays deleted`);
    assert.deepEqual(leftInJournal(dir), []);
  },
);

test("a segment of the first journal format, left by a listener of an earlier version, is replayed; a dead writer's temp files are dropped", async () => {
  const dir = tempDir('group-commit-format1');
  const journal = join(dir, '.journal');
  mkdirSync(join(journal, 'staging'), { recursive: true });
  const dead = spawnSync(process.execPath, ['-e', '']).pid;
  writeFileSync(join(journal, 'staging', `.lost.bin.tmp-${dead}-0abc1`), 'never published');
  writeFileSync(join(journal, 'staging', `.busy.bin.tmp-${process.pid}-0abc2`), 'being written');
  const records = ['old_1.bin', 'old_2.bin'].map((name) => {
    const path = Buffer.from(name, 'utf8');
    const body = Buffer.concat([Buffer.from([EntryKind.NewFile, 0, 0, 0, 0, path.length, 0]), path, content(name)]);
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32LE(body.length, 0);
    prefix.writeUInt32LE(crc32(body), 4);
    return Buffer.concat([prefix, body]);
  });
  // Written by a process of another boot: gone, so its segment is replayed.
  writeFileSync(
    join(journal, '000000000000-1-1.00000000-0.wal'),
    Buffer.concat([Buffer.from('SQLCDC-JOURNAL-1\n', 'latin1'), ...records]),
  );
  await new GroupCommit(dir).close();
  assert.deepEqual(checkFolder(dir).sort(), ['old_1.bin', 'old_2.bin']);
  assert.deepEqual(
    leftInJournal(dir),
    [`staging/.busy.bin.tmp-${process.pid}-0abc2`],
    "a live writer's temp file stays",
  );
});

/** Runs `script` on `dir` in a child, kills it (SIGKILL) once it printed its line, and returns that line. */
async function killedAfterItsLine(script: string, dir: string): Promise<string> {
  const child = spawn(process.execPath, ['-e', script, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const line = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.endsWith('\n')) resolve(out.trim());
    });
  });
  child.kill('SIGKILL');
  await exited;
  return line;
}

/** Publishes ok.bin and blocked/x.bin together (blocked being a file, the second fails), prints how each ended, and waits to be killed. */
const WITHDRAW_CHILD = `
const { join } = require('node:path');
const { GroupCommit } = require(${JSON.stringify(require.resolve('../../runtime/workspace/group-commit'))});
const content = ${content.toString()};
const dir = process.argv[1];
const group = new GroupCommit(dir);
const publish = (path, name) => group.publish(join(dir, path), [content(name)], { overwrite: false });
void Promise.allSettled([publish('ok.bin', 'ok.bin'), publish(join('blocked', 'x.bin'), 'x.bin')]).then((r) =>
  process.stdout.write(r.map((s) => s.status + (s.reason ? ' ' + s.reason.code : '')).join(',') + '\\n'),
);
setInterval(() => {}, 60_000);
`;

test(
  'a file whose record went in the journal but that could not be put in place is withdrawn: replay after a crash does not make it',
  LIMITS,
  async () => {
    const dir = tempDir('group-commit-withdrawn');
    writeFileSync(join(dir, 'blocked'), 'a file where a folder should be');
    // Killed before its idle checkpoint: the segment still holds the batch's records.
    const line = await killedAfterItsLine(WITHDRAW_CHILD, dir);
    assert.equal(line, 'fulfilled,rejected ENOTDIR');
    const journal = join(dir, '.journal');
    const [segment] = readdirSync(journal).filter((f) => f.endsWith('.wal'));
    const records = decodeSegment(dir, readFileSync(join(journal, segment))).map((e) => [e.kind, e.path]);
    const blocked = join(dir, 'blocked', 'x.bin');
    assert.deepEqual(
      records.filter(([, path]) => path === blocked),
      [
        [EntryKind.NewFile, blocked],
        [EntryKind.Withdrawn, blocked],
      ],
    );
    // The operator clears the way; the next writer replays the killed one's journal.
    rmSync(join(dir, 'blocked'));
    rmSync(join(dir, 'ok.bin'));
    await new GroupCommit(dir).close();
    assert.deepEqual(checkFolder(dir), ['ok.bin'], 'ok.bin is restored, x.bin was never published');
    assert.deepEqual(leftInJournal(dir), []);
  },
);

test('a withdrawal names its record by position: lines another batch recorded for the same file in between are still replayed', async () => {
  const dir = tempDir('group-commit-withdrawal-position');
  const journal = join(dir, '.journal');
  mkdirSync(journal, { recursive: true });
  const runs = join(dir, 'runs.jsonl');
  const salt = 0x5eed;
  const first = encodeEntry(
    dir,
    { kind: EntryKind.Append, path: runs, data: Buffer.from('{"name":"failed"}\n') },
    salt,
  );
  const second = encodeEntry(dir, { kind: EntryKind.Append, path: runs, data: Buffer.from('{"name":"kept"}\n') }, salt);
  const segment = Buffer.concat([segmentHeader(salt), first, second, withdrawal(dir, runs, SEGMENT_HEADER, salt)]);
  // Written by a process of another boot: gone, so its segment is replayed.
  writeFileSync(join(journal, '000000000000-1-1.00000000-0.wal'), segment);
  await new GroupCommit(dir).close();
  assert.deepEqual(namesIn(runs), ['kept']);
});

/**
 * Publishes ok.bin and taken.bin (whose name another process holds) together, each with its run
 * record riding with it, prints how each ended, and waits to be killed.
 */
const TAKEN_CHILD = `
const { join } = require('node:path');
const { GroupCommit } = require(${JSON.stringify(require.resolve('../../runtime/workspace/group-commit'))});
const content = ${content.toString()};
const dir = process.argv[1];
const group = new GroupCommit(dir);
const publish = (name) => group.publish(join(dir, name), [content(name)], {
  overwrite: false,
  line: { path: join(dir, 'runs.jsonl'), text: JSON.stringify({ name }) + '\\n' },
});
void Promise.allSettled([publish('ok.bin'), publish('taken.bin')]).then((r) =>
  process.stdout.write(r.map((s) => s.status + (s.reason ? ' ' + s.reason.code : '')).join(',') + '\\n'),
);
setInterval(() => {}, 60_000);
`;

test(
  'a power cut before the withdrawal of a file whose name was taken is flushed: replay appends no run record for it',
  LIMITS,
  async () => {
    const dir = tempDir('group-commit-taken');
    writeFileSync(join(dir, 'taken.bin'), "another listener's log");
    const line = await killedAfterItsLine(TAKEN_CHILD, dir);
    assert.equal(line, 'fulfilled,rejected EEXIST');
    assert.deepEqual(namesIn(join(dir, 'runs.jsonl')), ['ok.bin']);
    // The power cut: what was written after the batch's first flush never reached the disk (the
    // withdrawal, and anything after it), nor the files the page cache held.
    const journal = join(dir, '.journal');
    const [segment] = readdirSync(journal).filter((f) => f.endsWith('.wal'));
    const records = decodeSegment(dir, readFileSync(join(journal, segment)));
    const firstWithdrawal = records.find((r) => r.kind === EntryKind.Withdrawn);
    assert.ok(firstWithdrawal, 'the taken name was withdrawn');
    truncateSync(join(journal, segment), firstWithdrawal.position);
    rmSync(join(dir, 'ok.bin'));
    rmSync(join(dir, 'runs.jsonl'));
    await new GroupCommit(dir).close();
    assert.deepEqual(namesIn(join(dir, 'runs.jsonl')), ['ok.bin'], 'no record of the log that never got its name');
    assert.equal(readFileSync(join(dir, 'taken.bin'), 'utf8'), "another listener's log");
    assert.ok(readFileSync(join(dir, 'ok.bin')).equals(content('ok.bin')));
  },
);

/** Publishes live.bin, says `published` once it is durable, and stays alive (touching its segment) until killed. */
const LIVE_CHILD = `
const { join } = require('node:path');
const { GroupCommit } = require(${JSON.stringify(require.resolve('../../runtime/workspace/group-commit'))});
const content = ${content.toString()};
const dir = process.argv[1];
const group = new GroupCommit(dir, { idleCheckpointMs: 3_600_000, heartbeatMs: 50 });
void group.publish(join(dir, 'live.bin'), [content('live.bin')], { overwrite: false }).then(() => process.stdout.write('published\\n'));
setInterval(() => {}, 60_000);
`;

/** The segments in `dir`'s journal. */
function segments(dir: string): string[] {
  return readdirSync(join(dir, '.journal')).filter((f) => f.endsWith('.wal'));
}

test(
  "a listener of another PID namespace (a container) whose process id is this process's: its segment is its own while it lives, quiet or not, replayed once it is gone and stale",
  { ...LIMITS, skip: pidNamespaceUnavailable() },
  async () => {
    const dir = tempDir('group-commit-namespace');
    // In its namespace it gets this process's id: judged by the id alone, it would be this process,
    // started at another time, so gone.
    const child = spawn(...inPidNamespace(process.pid, [process.execPath, '-e', LIVE_CHILD, dir]), {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d).includes('published') && resolve());
        void exited.then(() => reject(new Error(`the child exited: ${out}`)));
      });
      const [segment] = segments(dir);
      assert.ok(segment, 'the listener has a segment');
      // Another listener starts on the workspace: it replays only the segments of listeners that are gone.
      await new GroupCommit(dir).close();
      assert.deepEqual(segments(dir), [segment], "the live listener's segment is left to it");
      // Quiet for longer than 10 minutes, it still touches its segment, which stays its own.
      const path = join(dir, '.journal', segment);
      const then = new Date(Date.now() - 11 * 60_000);
      utimesSync(path, then, then);
      for (let i = 0; i < 2000 && statSync(path).mtimeMs < Date.now() - 60_000; i++)
        await new Promise((go) => setTimeout(go, 5));
      await new GroupCommit(dir).close();
      assert.deepEqual(segments(dir), [segment], 'a quiet live listener touches its segment');
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    }
    // Killed long ago (untouched for longer than 10 minutes), and a power cut lost its file.
    const [segment] = segments(dir);
    const then = new Date(Date.now() - 11 * 60_000);
    utimesSync(join(dir, '.journal', segment), then, then);
    rmSync(join(dir, 'live.bin'));
    await new GroupCommit(dir).close();
    assert.deepEqual(checkFolder(dir), ['live.bin'], 'restored from its segment');
    assert.deepEqual(segments(dir), []);
  },
);

test('a segment named as an older sqlcdc named them (without the PID namespace), of a listener killed on this boot, is replayed', async () => {
  const dir = tempDir('group-commit-old-name');
  await killedAfterItsLine(LIVE_CHILD, dir);
  const [segment] = segments(dir);
  // `<boot>.<namespace>.<pid>.<start>.<writer>-<seq>.wal` as `<boot>-<pid>-<start>.<writer>-<seq>.wal`.
  const old = segment.replace(/^([0-9a-f]*)\.\d*\.(\d+)\.(\d*)\./, '$1-$2-$3.');
  renameSync(join(dir, '.journal', segment), join(dir, '.journal', old));
  rmSync(join(dir, 'live.bin'));
  await new GroupCommit(dir).close();
  assert.deepEqual(checkFolder(dir), ['live.bin'], 'restored from its segment');
  assert.deepEqual(segments(dir), []);
});
