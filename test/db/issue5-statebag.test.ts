import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempSession } from '../helpers/session';
import type { Result } from '../../runtime/results';

async function rowsOf(session: ReturnType<typeof tempSession>['session'], cell: string): Promise<unknown[][]> {
  const results: Result[] = [];
  for await (const r of session.execute(cell)) results.push(r);
  const error = results.find((r) => r.kind === 'error');
  assert.equal(error, undefined, error?.kind === 'error' ? error.error.message : '');
  const table = [...results].reverse().find((r) => r.kind === 'table');
  assert.ok(table?.kind === 'table', cell);
  return table.dataset.rows();
}

/**
 * Spec 4.4: `#statebag(a[, b])` lives for one pipeline execution; a missing key is an empty string, or
 * null when the key name is in single quotes inside a SQL command — here SQLite's, through a real file.
 */
test('#statebag in a SQL command: a missing quoted key is NULL, a bare one empty; a set key lasts one run', async () => {
  const { session } = tempSession({}, 'issue5-statebag');
  const query = "SELECT #statebag('last') IS NULL AS quoted_null, #statebag(last) AS bare, #statebag('k') AS k";
  assert.deepEqual(await rowsOf(session, `%connection add lite sqlite:bag.db\nSELECT * FROM DB [lite] (${query});`), [
    [1, '', null],
  ]);
  // Set in the run (a PRINT evaluates it), read back by the SQL command of the same run.
  assert.deepEqual(await rowsOf(session, `PRINT '#statebag(k, 42)';\nSELECT * FROM DB [lite] (${query});`), [
    [1, '', '42'],
  ]);
  // The next cell is a new run: the key is gone.
  assert.deepEqual(await rowsOf(session, `SELECT * FROM DB [lite] (${query});`), [[1, '', null]]);
});
