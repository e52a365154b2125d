import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GroupCommit } from '../../runtime/workspace/group-commit';
import { tempDir } from '../helpers/session';

/** A safety net so a hung child fails the test instead of the run; nothing here depends on timing. */
const LIMITS = { timeout: 300_000 };

/** File `name`'s content: 20 KB naming it throughout, so a file cut short or holding another's bytes shows. */
function content(name: string): Buffer {
  return Buffer.from(`${name};`.repeat(Math.ceil(20_000 / (name.length + 1))));
}

/** Checks that every file of `dir` not dot-named (a temp file) holds exactly its content. */
function checkFolder(dir: string): string[] {
  const names = readdirSync(dir).filter((f) => !f.startsWith('.'));
  for (const f of names) assert.ok(readFileSync(join(dir, f)).equals(content(f)), `${f} is not whole`);
  return names;
}

test('files handed over together are flushed as one batch: when the first is durable, all are in place', async () => {
  const dir = tempDir('group-commit');
  const group = new GroupCommit();
  try {
    const names = Array.from({ length: 100 }, (_, i) => `f${i}.bin`);
    const published = names.map((n) => group.publish(join(dir, n), [content(n)], { overwrite: false }));
    await published[0];
    // Nothing has settled the other 99 here: they are in place because their batch was.
    assert.deepEqual(checkFolder(dir).sort(), [...names].sort());
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('.')),
      [],
      'no temp file left',
    );
    await Promise.all(published);
  } finally {
    await group.close();
  }
});

test('a file that cannot be published fails alone: the rest of its batch is published, no temp file stays', async () => {
  const dir = tempDir('group-commit');
  writeFileSync(join(dir, 'taken.bin'), 'first');
  const group = new GroupCommit();
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
    assert.deepEqual(readdirSync(dir).sort(), ['a.bin', 'c.bin', 'sub', 'taken.bin']);
  } finally {
    await group.close();
  }
});

/**
 * Publishes bursts of 40 files at once, round after round, each round alternately by hard link and by
 * rename, and prints each file's name once its publish resolved, until it is killed.
 */
const CHILD = `
const { join } = require('node:path');
const { GroupCommit } = require(${JSON.stringify(require.resolve('../../runtime/workspace/group-commit'))});
const content = ${content.toString()};
const dir = process.argv[1];
const group = new GroupCommit();
(async () => {
  for (let round = 0; ; round++) {
    await Promise.all(Array.from({ length: 40 }, (_, i) => {
      const name = 'r' + round + '_' + i + '.bin';
      return group.publish(join(dir, name), [content(name)], { overwrite: round % 2 === 1 })
        .then(() => process.stdout.write(name + '\\n'));
    }));
  }
})();
`;

test(
  'kill -9 during bursts sharing flushes: every file reported durable is whole, no visible file is partial',
  LIMITS,
  async () => {
    const dir = tempDir('group-commit-kill');
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
    const visible = new Set(checkFolder(dir));
    for (const name of reported) assert.ok(visible.has(name), `${name} was reported durable but is missing`);
    // What was written but not yet published is only ever a dot-named temp file.
    for (const f of readdirSync(dir)) assert.ok(visible.has(f) || /^\..+\.tmp-\d+-[0-9a-f]+$/.test(f), f);
  },
);
