import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempSession } from '../helpers/session';
import type { Result } from '../../runtime/results';
import { caretLines } from '../../runtime/errors';

/** The error a cell ends with: its message, column and the line shown under it with the caret. */
async function failure(cell: string): Promise<{ message: string; column?: number; shown: string[] }> {
  const { session } = tempSession({}, 'issue2-connection');
  const results: Result[] = [];
  for await (const r of session.execute(cell)) results.push(r);
  const error = results.find((r) => r.kind === 'error');
  assert.ok(error?.kind === 'error', cell);
  const { position } = error.error;
  return { message: error.error.message, column: position?.column, shown: caretLines(error.source, position!) };
}

test('%connection add with two ways of signing in names the ones given, at the second, and shows no secret', async () => {
  // A password in the URL is basic authentication: the error names the flag given beside it, not --basic.
  for (const flag of ['--bearer tok3n', '--apikey "X-Key: tok3n"', '--basic u:tok3n']) {
    const cell = `%connection add shop https://user:pa55@shop.example.test/api ${flag}`;
    const name = flag.split(' ')[0];
    const e = await failure(cell);
    assert.equal(e.message, `a password in the URL is basic authentication: give it there or with ${name}, not both`);
    assert.equal(e.column, cell.indexOf(name) + 1, cell);
    assert.doesNotMatch(e.shown.join('\n'), /pa55|tok3n/);
  }
  const cell = '%connection add shop https://shop.example.test --bearer tok3n --apikey "X-Key: k3y"';
  const e = await failure(cell);
  assert.equal(e.message, 'choose one of --basic, --bearer, --apikey');
  assert.equal(e.column, cell.indexOf('--apikey') + 1);
  assert.doesNotMatch(e.shown.join('\n'), /tok3n|k3y/);
});
