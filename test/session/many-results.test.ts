import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempSession } from '../helpers/session';

test('a cell of 200,000 PRINT statements yields every message once, in order', async () => {
  const { session } = tempSession({}, 'many-results');
  const count = 200_000;
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(`PRINT '${i}';`);
  let next = 0;
  for await (const r of session.execute(lines.join('\n'))) {
    assert.equal(r.kind, 'message');
    if (r.kind === 'message') assert.equal(r.text, String(next));
    next++;
  }
  assert.equal(next, count);
});
