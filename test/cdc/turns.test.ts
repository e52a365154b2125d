import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { handedOver } from '../../runtime/cdc/diff-thread';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Result } from '../../runtime/results';
import { tempSession } from '../helpers/session';

const LIMITS = { timeout: 120_000 };
const CAPTURE = "CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id';";

/**
 * 400,000 rows (the diff takes a while, and the worker thread takes part in it: more than 65,536
 * rows); `changed` names one more customer otherwise, and the first `repriced` amounts are a cent more.
 */
function orders(changed = -1, repriced = 0): Dataset {
  const n = 400_000;
  const ids = Array.from({ length: n }, (_, i) => i);
  return Dataset.encoded(
    [
      { name: 'id', type: { base: 'int' } },
      { name: 'name', type: { base: 'string' } },
      { name: 'amount', type: { base: 'decimal' } },
    ],
    [
      ids,
      ids.map((i) => `customer ${i}${i === changed ? ' (moved)' : ''}`),
      ids.map((i) => new Decimal(i + (i < repriced ? 1 : 0)).div(100)),
    ],
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

/** The CDC state file of the session's only CAPTURE so far. */
function stateOf(dir: string): string {
  const cdc = join(dir, 'ws', 'cdc');
  const [pipeline] = readdirSync(cdc);
  return join(cdc, pipeline, 'orders.state');
}

test(
  'CAPTURE gives the event loop a turn while it copies the columns for the worker thread: an interrupt there hands nothing over',
  LIMITS,
  async (t) => {
    const { session, dir } = tempSession({}, 'cdc-turns');
    t.after(() => session.close());
    session.setDataset(orders());
    await session.run(CAPTURE);
    const state = stateOf(dir);
    const before = handedOver();
    session.setDataset(orders(7));
    const controller = new AbortController();
    // A look at every turn: the abort comes at the first one after CAPTURE took its state's lock, while
    // the state is read, so the diff meets it at its first turn.
    const look = () => (existsSync(`${state}.lock`) ? controller.abort() : setImmediate(look));
    setImmediate(look);
    const results: Result[] = [];
    for await (const r of session.execute(CAPTURE, { signal: controller.signal })) results.push(r);
    assert.equal(results.find((r) => r.kind === 'error')?.error.message, 'cancelled');
    assert.equal(handedOver(), before, 'the columns went to the worker before the first turn');
    session.setDataset(orders(7));
    assert.match(messages(await session.run(CAPTURE)), /: 0 inserts, 1 update, 0 deletes$/);
  },
);

test(
  'two sessions capturing large datasets at once each get their own changes (the worker thread serves both)',
  LIMITS,
  async (t) => {
    const sessions = [tempSession({}, 'cdc-turns'), tempSession({}, 'cdc-turns')].map((s) => s.session);
    t.after(() => Promise.all(sessions.map((s) => s.close())));
    for (const s of sessions) {
      s.setDataset(orders());
      await s.run(CAPTURE);
    }
    sessions[0].setDataset(orders(7));
    sessions[1].setDataset(orders(-1, 3));
    const [one, other] = await Promise.all(sessions.map((s) => s.run(CAPTURE)));
    assert.match(messages(one), /: 0 inserts, 1 update, 0 deletes$/);
    assert.match(messages(other), /: 0 inserts, 3 updates, 0 deletes$/);
  },
);

function messages(results: Result[]): string {
  return results.flatMap((r) => (r.kind === 'message' ? [r.text] : [])).join('\n');
}
