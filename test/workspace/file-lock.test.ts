import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';

const locked: { what: string; args: string[]; folder: string; made: string[] }[] = [
  {
    what: 'job create',
    args: ['job', 'create', 'orders', '--writer', 'w.sql'],
    folder: 'jobs/orders',
    made: ['job.json', 'writer.sql'],
  },
  {
    what: 'webhook key new',
    args: ['webhook', 'key', 'new', '--name', 'k'],
    folder: 'webhook',
    made: ['keys.json'],
  },
];

for (const { what, args, folder, made } of locked) {
  test(`${what} whose first write fails (a full disk): a clear error naming the file, and no lock left to block the next one`, async () => {
    const dir = tempDir('file-lock');
    writeFileSync(join(dir, 'w.sql'), "PRINT 'w';\n");
    // Its first write fails with EFBIG, as a full disk fails it with ENOSPC: the job's or key's own
    // file (the lock holds no bytes: its holder is the name of an empty file in it).
    const failed = await runCli(dir, [...args, '--workspace', 'ws'], { fileSizeLimit: 0 });
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, new RegExp(`${join(dir, 'ws', folder)}/(${made.join('|')}).*file too large`));
    assert.doesNotMatch(failed.stderr, /internal error/);
    assert.deepEqual(readdirSync(join(dir, 'ws', folder)), [], 'nothing left behind, neither a lock nor a temp file');

    // The same command with room to write: the failed one holds nothing (a lock left empty would
    // read as one still being written, and block every change of the file for good).
    const next = await runCli(dir, [...args, '--workspace', 'ws']);
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(readdirSync(join(dir, 'ws', folder)).sort(), made);
  });
}

for (const { what, args, folder } of locked) {
  test(`${what} where the workspace cannot hold its folder: an error naming it, not an internal error`, async () => {
    const dir = tempDir('file-lock');
    writeFileSync(join(dir, 'w.sql'), "PRINT 'w';\n");
    // A file where the folder should be: making the folder (and its lock) fails, as on a read-only disk.
    mkdirSync(join(dir, 'ws'));
    writeFileSync(join(dir, 'ws', folder.split('/')[0]), '');
    const failed = await runCli(dir, [...args, '--workspace', 'ws']);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, new RegExp(`cannot write ${join(dir, 'ws', folder.split('/')[0])}.*(ENOTDIR|EEXIST)`));
    assert.doesNotMatch(failed.stderr, /internal error/);
  });
}
