import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempSession } from '../helpers/session';
import type { Result } from '../../runtime/results';

async function collect(text: string, session = tempSession({ 'items.csv': 'id\n1\n2\n' }).session): Promise<Result[]> {
  const out: Result[] = [];
  for await (const r of session.execute(text)) out.push(r);
  return out;
}

test('a cell whose statements do not parse runs nothing, its magic lines included', async () => {
  const { session } = tempSession({ 'items.csv': 'id\n1\n2\n' }, 'issue2-parse-first');
  await collect("SELECT * FROM DRIVE 'items.csv';", session);
  const results = await collect(
    "%var set region eu-west\n%limit 7\n%reset\n%connection add shop http://127.0.0.1:9\nPRINT 'a' garbage;",
    session,
  );
  assert.deepEqual(
    results.map((r) => r.kind),
    ['error'],
    'only the syntax error: no magic ran before it',
  );
  const [error] = results;
  assert.ok(error.kind === 'error');
  assert.deepEqual([error.error.position?.line, error.error.position?.column], [5, 11]);
  assert.match(error.error.message, /expected ';' but found 'garbage'/);
  // The dataset, the variables, the display limit and the connections are as before the cell.
  assert.deepEqual(
    (await collect("%limit\nPRINT '#data.count() [#trygetvar(region)]';", session)).map((r) =>
      r.kind === 'message' ? r.text : r.kind,
    ),
    ['display limit: 20 rows', '2 []'],
  );
  assert.equal(session.connections.find('shop'), undefined);
  // A magic line below the statements is a syntax error of the same kind: the magics above it do not run either.
  const late = await collect('%var set region eu-west\nPRINT 1;\n%var list', session);
  assert.deepEqual(
    late.map((r) => r.kind),
    ['error'],
  );
  assert.equal(
    (await collect("PRINT '[#trygetvar(region)]';", session)).map((r) => r.kind === 'message' && r.text)[0],
    '[]',
  );
});
