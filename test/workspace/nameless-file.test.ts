import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, cpSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
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

/**
 * The module and what it loads (koffi with its Linux builds), copied where any user can read them:
 * the checkout may sit in a folder only its owner can enter, as a clone into `mktemp -d` does.
 */
function readableModule(): string {
  const root = tempDir('nameless-module');
  chmodSync(root, 0o755);
  const koffi = dirname(require.resolve('koffi/package.json'));
  cpSync(koffi, join(root, 'node_modules', 'koffi'), {
    recursive: true,
    filter: (from) => {
      const [top, kind, build] = relative(koffi, from).split(sep);
      return !['doc', 'src', 'vendor'].includes(top) && !(kind === 'koffi' && build && !/^(linux|musl)_/.test(build));
    },
  });
  const runtime = dirname(dirname(require.resolve('../../runtime/workspace/nameless-file')));
  for (const file of [
    'workspace/nameless-file.js',
    'workspace/files.js',
    'workspace/redact.js',
    'util/process-alive.js',
    'util/lines.js',
    'errors.js',
  ]) {
    cpSync(join(runtime, file), join(root, 'runtime', file));
  }
  return join(root, 'runtime', 'workspace', 'nameless-file.js');
}

/** Makes `log.eds` in the folder argv[1] nameless and names it, then prints what it holds. */
const CHILD = (module: string): string => `
const { closeSync, readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');
const { namelessFilesIn } = require(${JSON.stringify(module)});
const files = namelessFilesIn(process.argv[1]);
if (!files) throw new Error('no nameless files');
const fd = files.open(process.argv[1]);
writeSync(fd, 'made by ' + process.getuid());
files.name(fd, join(process.argv[1], 'log.eds'));
closeSync(fd);
process.stdout.write(readFileSync(join(process.argv[1], 'log.eds'), 'utf8'));
`;

test('a user other than root makes and names nameless files too', () => {
  const dir = tempDir('nameless-user');
  // As root the child runs as nobody, without root's capabilities (before Linux 6.10 naming a
  // descriptor itself needed one; the module then names it through /proc).
  const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  chmodSync(dir, 0o777);
  const child = spawnSync(process.execPath, ['-e', CHILD(readableModule()), dir], { encoding: 'utf8', ...user });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, `made by ${user.uid ?? process.getuid?.()}`);
});
