import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';
import type { Result } from '../../runtime/results';

function newSession(): Session {
  return tempSession({ 'items.csv': 'id,name\n1,lamp\n2,fridge\n3,door\n' }).session;
}

async function collect(session: Session, text: string, signal?: AbortSignal): Promise<Result[]> {
  const out: Result[] = [];
  for await (const r of session.execute(text, { signal })) out.push(r);
  return out;
}

test('the dataset persists from cell to cell and a cell ends with it as a table', async () => {
  const s = newSession();
  const results = await collect(s, "SELECT * FROM DRIVE 'items.csv'");
  assert.equal(results.at(-1)?.kind, 'table');
  assert.equal(s.dataset.rowCount, 3);
  await s.run('EXIT KEEP 2;');
  assert.equal(s.dataset.rowCount, 2);
  assert.deepEqual(
    s.dataset.columns.map((c) => c.name),
    ['id', 'name'],
  );
});

test('a failing statement stops the cell and leaves the dataset as it was before it', async () => {
  const s = newSession();
  await s.run("SELECT * FROM DRIVE 'items.csv';");
  const before = s.dataset;
  const results = await collect(
    s,
    "PRINT 'first';\nAPPLY FILTER 'id = 1';\nSELECT * FROM DRIVE 'missing.csv';\nPRINT 'never';",
  );
  const kinds = results.map((r) => r.kind);
  assert.deepEqual(kinds, ['message', 'error']);
  const err = results[1].kind === 'error' ? results[1].error : undefined;
  assert.equal(err?.statement, 'SELECT FROM DRIVE');
  assert.equal(err?.position?.line, 3);
  assert.match(err.message, /missing\.csv/);
  // The filter before the failure in the same cell succeeded and keeps its effect; the failing
  // statement has none.
  assert.notEqual(s.dataset, before);
  assert.equal(s.dataset.rowCount, 1);
});

test('EXIT stops the script: later statements do not run', async () => {
  const s = newSession();
  const results = await collect(s, "SELECT * FROM DRIVE 'items.csv';\nEXIT KEEP 2;\nPRINT 'never';");
  assert.deepEqual(
    results.map((r) => r.kind),
    ['table'],
  );
  assert.equal(s.dataset.rowCount, 2);
});

test('a statement without a command in the session\'s table parses and fails with "not supported yet"', async () => {
  const { dir } = tempSession({}, 'session');
  const s = new Session({ workspace: `${dir}/ws`, cwd: dir, commands: { Capture: undefined } });
  const results = await collect(s, "CAPTURE 'orders' ON KEYS 'id';");
  assert.equal(results.length, 1);
  assert.equal(results[0].kind, 'error');
  if (results[0].kind === 'error') {
    assert.equal(results[0].error.message, 'not supported yet: CAPTURE');
    assert.equal(results[0].error.kind, 'unsupported');
  }
});

test('a syntax error names line and column and the session stays usable', async () => {
  const s = newSession();
  const results = await collect(s, "PRINT 'ok';\nAPPLY FILTER 'x = 1' ON;");
  assert.equal(results.length, 1);
  assert.equal(results[0].kind, 'error');
  if (results[0].kind === 'error') {
    assert.equal(results[0].error.kind, 'syntax');
    assert.equal(results[0].error.position?.line, 2);
  }
  assert.deepEqual(await s.run("PRINT 'still here';"), [{ kind: 'message', text: 'still here' }]);
});

test('an aborted signal cancels the cell', async () => {
  const s = newSession();
  const ac = new AbortController();
  ac.abort();
  const results = await collect(s, "SELECT * FROM DRIVE 'items.csv';", ac.signal);
  assert.equal(results.length, 1);
  assert.equal(results[0].kind === 'error' && results[0].error.kind, 'cancelled');
  assert.equal(s.dataset.rowCount, 0);
});

test('magic lines run before the statements of the same cell', async () => {
  const s = newSession();
  const results = await collect(s, "%limit 2\nSELECT * FROM DRIVE 'items.csv';");
  assert.equal(results[0].kind, 'message');
  const table = results.at(-1);
  assert.equal(table?.kind === 'table' && table.limit, 2);
});
