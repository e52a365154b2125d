import assert from 'node:assert/strict';
import { closeSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { namelessFilesIn } from '../../runtime/workspace/nameless-file';
import { tempDir } from '../helpers/temp';

test('a nameless file is invisible until named, then appears whole; it never takes the name of an existing file', () => {
  const dir = tempDir('nameless');
  const files = namelessFilesIn(dir);
  // Linux with koffi installed, as on the machines this project runs on.
  assert.ok(files, 'O_TMPFILE and linkat are available here');
  assert.deepEqual(readdirSync(dir), [], 'the probe leaves nothing behind');

  const fd = files.open(dir, 0o640);
  try {
    writeSync(fd, 'whole content');
    assert.deepEqual(readdirSync(dir), [], 'written but not named: no name in the folder');
    files.name(fd, join(dir, 'log.eds'));
  } finally {
    closeSync(fd);
  }
  assert.equal(readFileSync(join(dir, 'log.eds'), 'utf8'), 'whole content');
  assert.equal(statSync(join(dir, 'log.eds')).mode & 0o777, 0o640, 'made with the mode asked for');

  writeFileSync(join(dir, 'taken.eds'), 'first');
  const other = files.open(dir);
  try {
    writeSync(other, 'second');
    assert.throws(
      () => files.name(other, join(dir, 'taken.eds')),
      (e: NodeJS.ErrnoException) => e.code === 'EEXIST' && e.syscall === 'linkat',
    );
  } finally {
    closeSync(other);
  }
  assert.equal(readFileSync(join(dir, 'taken.eds'), 'utf8'), 'first');
  assert.deepEqual(readdirSync(dir).sort(), ['log.eds', 'taken.eds'], 'the unnamed file went with its descriptor');
});
