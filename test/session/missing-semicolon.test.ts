import assert from 'node:assert/strict';
import { test } from 'node:test';
import { caretLines, describeError, ScriptError } from '../../runtime/errors';
import type { Result } from '../../runtime/results';
import { tempSession } from '../helpers/session';

/**
 * The error a new user meets first: a statement without its ';'. Through Session.execute, as the
 * REPL, CLI and notebook run a cell: one error, nothing of the cell run, the caret right after the
 * statement that lacks the ';'.
 */

async function collect(text: string): Promise<Result[]> {
  const { session } = tempSession({ 'd.csv': 'id,name\n1,a\n2,b\n' }, 'semicolon');
  const out: Result[] = [];
  for await (const r of session.execute(text)) out.push(r);
  return out;
}

test("a SELECT without ';' before the next line's APPLY FILTER", async () => {
  const cell = "%limit 5\nPRINT 'not run';\nSELECT * FROM DRIVE 'd.csv'\nAPPLY FILTER 'id > 1';";
  const results = await collect(cell);
  assert.ok(!results.some((x) => x.kind === 'message' && x.text.includes('not run')), 'the cell does not start');
  const errors = results.filter((x) => x.kind === 'error');
  assert.equal(errors.length, 1);
  const [r] = errors;
  assert.ok(r.kind === 'error' && r.error instanceof ScriptError);
  assert.equal(
    describeError(r.error),
    "SELECT FROM DRIVE at line 3, column 28: expected ';' after SELECT FROM DRIVE (line 3)",
  );
  assert.deepEqual(caretLines(cell, r.error.position!), ["SELECT * FROM DRIVE 'd.csv'", `${' '.repeat(27)}^`]);
});

test("inside a pipeline, and a clause that continues the statement keeps the grammar's message", async () => {
  let [r] = await collect(
    "SELECT * FROM DRIVE 'd.csv' APPLY PIPELINE (\n  ADD COLUMN 'x=1'\n  APPLY FILTER 'id > 1'\n);",
  );
  assert.ok(r.kind === 'error');
  assert.equal(describeError(r.error), "ADD COLUMN at line 2, column 19: expected ';' after ADD COLUMN (line 2)");
  [r] = await collect("SELECT * FROM DRIVE 'd.csv'\n  APPLY TX '$' FOO;");
  assert.ok(r.kind === 'error');
  assert.match(
    describeError(r.error),
    /^SELECT FROM DRIVE at line 2, column 16: expected ';' or an option of SELECT FROM DRIVE .* but found 'FOO'$/,
  );
});

test('with the ; the same cell runs', async () => {
  const results = await collect("SELECT * FROM DRIVE 'd.csv';\nAPPLY FILTER 'id > 1';");
  const table = results.find((r) => r.kind === 'table');
  assert.ok(table?.kind === 'table');
  assert.deepEqual(table.dataset.rows(), [['2', 'b']]);
});
