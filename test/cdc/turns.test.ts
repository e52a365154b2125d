import assert from 'node:assert/strict';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Result } from '../../runtime/results';
import { tempSession } from '../helpers/session';

const LIMITS = { timeout: 120_000 };
const CAPTURE = "CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id';";

/**
 * 400,000 rows (the diff takes a while, and the worker thread takes part in it: more than 65,536
 * rows); `changed` names one more customer otherwise.
 */
function orders(changed = -1): Dataset {
  const n = 400_000;
  const ids = Array.from({ length: n }, (_, i) => i);
  return Dataset.encoded(
    [
      { name: 'id', type: { base: 'int' } },
      { name: 'name', type: { base: 'string' } },
      { name: 'amount', type: { base: 'decimal' } },
    ],
    [ids, ids.map((i) => `customer ${i}${i === changed ? ' (moved)' : ''}`), ids.map((i) => new Decimal(i).div(100))],
  );
}

test(
  'CAPTURE of a large dataset gives the event loop turns: an interrupt during the diff ends it before any log or state is written',
  LIMITS,
  async (t) => {
    const { session } = tempSession({}, 'cdc-turns');
    t.after(() => session.close());
    session.setDataset(orders());
    await session.run(CAPTURE);
    session.setDataset(orders(7));
    const controller = new AbortController();
    // The timer ticks only when the loop turns: the first tick comes while the statement runs.
    const timer = setInterval(() => controller.abort(), 5);
    const results: Result[] = [];
    for await (const r of session.execute(CAPTURE, { signal: controller.signal })) results.push(r);
    clearInterval(timer);
    const error = results.find((r) => r.kind === 'error')?.error;
    assert.equal(error?.message, 'cancelled');
    assert.equal(error.statement, 'CAPTURE');
    // Had the cancelled run written its log and committed its state after all, this run would find no change.
    session.setDataset(orders(7));
    const again = await session.run(CAPTURE);
    assert.match(
      again.flatMap((r) => (r.kind === 'message' ? [r.text] : [])).join('\n'),
      /: 0 inserts, 1 update, 0 deletes$/,
    );
  },
);
