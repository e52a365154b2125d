import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';

/**
 * Issue 16: ".help still lists node's `.load  Load JS from a file` text; `.load` runs SQL CDC — say so".
 * Through the REPL binary, as a user types it.
 */
test(
  '.help describes .load and .save as SQL CDC script files, never as node’s JavaScript',
  { timeout: 60_000 },
  async () => {
    const dir = tempDir('issue16-help');
    const r = await runCli(dir, ['repl'], { input: '.help\n', env: { SQLCDC_HOME: join(dir, 'ws') } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}\.load +Run a SQL CDC script file in this session as one cell \(\.load FILE\)/m);
    assert.match(r.stdout, /^ {2}\.save +Save the statements that ran without error to a SQL CDC script file/m);
    assert.doesNotMatch(r.stdout, /JS|JavaScript|\.editor/);
  },
);
