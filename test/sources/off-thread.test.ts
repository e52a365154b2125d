import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Result } from '../../runtime/results';
import { scaleOf } from '../../runtime/dataset/decimal-scale';
import type { Value } from '../../runtime/dataset/types';
import Decimal from 'decimal.js';
import { load, plain, schema, sessionWith } from './helpers';

const LIMITS = { timeout: 120_000 };

test('an interrupt ends SELECT FROM DRIVE of a large XML document while it is being shaped', LIMITS, async () => {
  // About 7 MB: read in a few milliseconds, parsed and shaped in seconds (xmldom builds a DOM node per element).
  const rows = Array.from({ length: 100_000 }, (_, i) => `<row><id>${i}</id><name>name ${i}</name></row>`);
  const { session } = sessionWith({ 'big.xml': `<rows>${rows.join('')}</rows>` });
  const controller = new AbortController();
  const results: Result[] = [];
  for await (const r of session.execute("PRINT 'reading';\nSELECT * FROM DRIVE 'big.xml';", {
    signal: controller.signal,
  })) {
    results.push(r);
    // While the document is shaped the event loop keeps turning, so this interrupt is seen.
    if (r.kind === 'message') setTimeout(() => controller.abort(), 300);
  }
  const error = results.find((r) => r.kind === 'error')?.error;
  assert.equal(error?.message, 'cancelled');
  assert.equal(error.statement, 'SELECT FROM DRIVE');
  assert.equal(session.dataset.rowCount, 0, 'the pipeline is as before the statement');
});

/** Cells comparable across readers: a decimal with its scale (12.50 is not 12.5). */
function exact(v: Value): unknown {
  return v instanceof Decimal ? `${v.toFixed(scaleOf(v))}m` : v;
}

test('a large JSON document shaped off the main thread gives the rows and types a small one does', LIMITS, async () => {
  const head = [
    { id: 1, big: 3000000000, amount: 12.5, wide: 1.5, ok: true, tags: ['a'], note: 'x' },
    { id: 2, big: 4, amount: 7, wide: 2, ok: false, tags: null, note: null },
  ];
  // More digits than a double holds make `wide` a decimal column, whose cells keep the scale they were written with.
  const text = (n: number) =>
    JSON.stringify([
      ...head,
      ...Array.from({ length: n }, (_, i) => ({ id: i + 3, big: 5, amount: 1.25, wide: 0, ok: true, note: 'p' })),
    ]).replace('"wide":1.5', '"wide":1.12345678901234567890');
  const { session } = sessionWith({ 'small.json': text(1), 'large.json': text(40_000) });
  const small = await load(session, "SELECT * FROM DRIVE 'small.json';");
  const large = await load(session, "SELECT * FROM DRIVE 'large.json';");
  assert.ok(large.rowCount > 40_000);
  assert.deepEqual(schema(large), schema(small));
  assert.deepEqual(plain(large).slice(0, 3), plain(small).slice(0, 3));
  assert.deepEqual(
    large.rows(0, 3).map((r) => r.map(exact)),
    small.rows(0, 3).map((r) => r.map(exact)),
  );
});
