import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ScriptError } from '../../runtime/errors';
import { tempSession } from '../helpers/session';

const ORDERS = JSON.stringify([{ id: 1 }, { id: 2 }]);

async function failure(cell: string, folder?: string): Promise<{ error?: ScriptError; dir: string }> {
  const { session, dir } = tempSession({ 'o.json': ORDERS }, 'fuzz-drive-files');
  if (folder) mkdirSync(join(dir, folder));
  for await (const r of session.execute(`SELECT * FROM DRIVE 'o.json';\n${cell}`))
    if (r.kind === 'error') return { error: r.error, dir };
  return { dir };
}

test('SINK INTO DRIVE: a FILE with a NUL character is an error under FILE, not Node ERR_INVALID_ARG_VALUE', async () => {
  const { error } = await failure("SINK INTO DRIVE FORMAT CSV FILE 'a\0b.csv';");
  assert.equal(error?.message, "FILE 'a\0b.csv' holds a NUL character, which no file name can");
  assert.deepEqual(error.position, { line: 2, column: 34, offset: 63 });
});

test("SINK INTO DRIVE: a file system's refusal names the file, not the staged copy's temp name", async () => {
  const onFolder = await failure("SINK INTO DRIVE FORMAT CSV FILE 'out';", 'out');
  assert.equal(onFolder.error?.message, 'cannot write out: EISDIR: illegal operation on a directory');
  const long = 'x'.repeat(300);
  const tooLong = await failure(`SINK INTO DRIVE FORMAT CSV FILE '${long}.csv';`);
  assert.equal(tooLong.error?.message, `cannot write ${long}.csv: ENAMETOOLONG: name too long`);
  // Nothing staged was left behind.
  assert.deepEqual(readdirSync(onFolder.dir).sort(), ['o.json', 'out', 'ws']);
  assert.deepEqual(readdirSync(join(onFolder.dir, 'out')), []);
});
