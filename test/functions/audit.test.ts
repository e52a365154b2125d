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

test('#parsejson keeps every digit of long integers and decimals, alone or inside a returned object', async () => {
  const s = newSession();
  const doc = `'{"a": 12345678901234567890123, "b": {"d": 0.12345678901234567890}, "c": [1.5]}'`;
  assert.deepEqual(
    await prints(
      s,
      `PRINT '#parsejson(${doc.replace(/'/g, "''")}, a)'; PRINT '#parsejson(${doc.replace(/'/g, "''")}, b)';` +
        ` PRINT '#parse(${doc.replace(/'/g, "''")}, c[0])';`,
    ),
    ['12345678901234567890123', '{"d":0.12345678901234567890}', '1.5'],
  );
});
