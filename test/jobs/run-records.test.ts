import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';

test('a run record the disk cuts short is an error naming runs.jsonl, never a run reported as recorded; the next record is whole', async () => {
  const dir = tempDir('run-records');
  writeFileSync(join(dir, 'p.sql'), "PRINT 'hi';\n");
  const cli = async (args: string[], fileSizeLimit?: number) =>
    runCli(dir, [...args, '--workspace', 'ws'], { fileSizeLimit });
  assert.equal((await cli(['job', 'create', 'p', '--writer', 'p.sql'])).code, 0);
  assert.equal((await cli(['job', 'run', 'p'])).code, 0);
  const runs = join(dir, 'ws', 'jobs', 'p', 'runs.jsonl');

  // Room for 20 more bytes: the record's write is cut short there (a short write, no error yet).
  const cut = await cli(['job', 'run', 'p'], statSync(runs).size + 20);
  assert.equal(cut.code, 1, cut.stderr);
  assert.match(cut.stderr, new RegExp(`cannot write ${runs}: EFBIG`));
  assert.doesNotMatch(cut.stderr, /internal error/);
  const listed = async () => JSON.parse((await cli(['job', 'runs', 'p', '--output', 'json'])).stdout) as unknown[];
  assert.equal((await listed()).length, 1, 'the torn record is not a record');

  assert.equal((await cli(['job', 'run', 'p'])).code, 0);
  assert.equal((await listed()).length, 2, 'the next record starts on a line of its own');
});
