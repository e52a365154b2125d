import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from '../../runtime/session';
import { tempDir } from './helpers';

/** Runs a cell on `session` and returns the texts its PRINT statements wrote, in order. */
async function prints(session: Session, cell: string): Promise<string[]> {
  const results = await session.run(cell);
  return results.flatMap((r) => (r.kind === 'message' ? [r.text] : []));
}

function newSession(): Session {
  const workspace = tempDir('fn-audit');
  return new Session({ workspace, cwd: workspace });
}

test('a rejected #setjsonsettings culture is not kept: later date functions of the session still work', async () => {
  const s = newSession();
  await assert.rejects(s.run("PRINT '#setjsonsettings(culture:xx-notaculture-ZZ)';"), /unknown culture/);
  assert.deepEqual(await prints(s, "PRINT '#formatdate(2009-06-15T13:45:30, s)';"), ['2009-06-15T13:45:30']);
});
