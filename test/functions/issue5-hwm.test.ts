import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempSession } from '../helpers/session';
import type { Result } from '../../runtime/results';

test('a high watermark proposal that does not compare with the run’s earlier one names both values, not an argument', async () => {
  const { session } = tempSession({}, 'issue5-hwm');
  const results: Result[] = [];
  const cell = "PRINT '#data.calc_hwm(17, 5)';\nPRINT '#data.calc_hwmdate(2024-01-02, 2023-12-31T23:00:00)';";
  for await (const r of session.execute(cell)) results.push(r);
  assert.deepEqual(results[0], { kind: 'message', text: '17' });
  const error = results[1];
  assert.ok(error?.kind === 'error');
  assert.match(
    error.error.message,
    /^#data\.calc_hwmdate: '2024-01-02' does not compare with '17', proposed earlier in this run as the next high watermark: '17' is not a date/,
  );
  assert.deepEqual([error.error.position?.line, error.error.position?.column], [2, 8]);
  // In a run of its own, the same call proposes its date.
  const alone: Result[] = [];
  for await (const r of session.execute("PRINT '#data.calc_hwmdate(2024-01-02, 2023-12-31T23:00:00)';")) alone.push(r);
  assert.deepEqual(alone, [{ kind: 'message', text: '2024-01-02' }]);
});
