import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { handedOver, PARALLEL_ROWS } from '../../runtime/cdc/diff-thread';
import { readState } from '../../runtime/cdc/state';
import { both, N } from '../helpers/typed-data';
import { capture, options, tempStateFile } from './helpers';

/*
 * State format 2 (docs/cdc.md "State file"): the row hash of format 1 changed so that the typed
 * columns are hashed on a second thread. A format 1 state must keep working: its records are
 * compared with format 1 hashes (never all reported updated) and its next state is format 2.
 */

/** A format 1 state, written by the capture before format 2 from `both(0 … N - 1).typed`, KEYS 'id'. */
const FORMAT1 = resolve(__dirname, '../../../test/cdc/fixtures/format1-all-types.state');
const everyRow = (n: number) => Array.from({ length: n }, (_, r) => r);
const o = options({ keys: 'id', inserts: true, updates: true, deletes: true, marker: 'op' });

function formatOf(file: string): number {
  return readFileSync(file).readUInt32LE(8);
}

function format1State(): string {
  const file = tempStateFile();
  mkdirSync(dirname(file), { recursive: true });
  copyFileSync(FORMAT1, file);
  assert.equal(formatOf(file), 1);
  return file;
}

test('a format 1 state sees the same rows, typed or plain, unchanged, and is then replaced by a format 2 state', async () => {
  for (const storage of ['typed', 'plain'] as const) {
    const file = format1State();
    const run = await capture(both(everyRow(N))[storage], o, file);
    assert.deepEqual(run.diff.counts, { inserted: 0, updated: 0, deleted: 0, unchanged: N, duplicates: 0 }, storage);
    assert.equal(formatOf(file), 2);
    const again = await capture(both(everyRow(N))[storage], o, file);
    assert.deepEqual(again.diff.counts, { inserted: 0, updated: 0, deleted: 0, unchanged: N, duplicates: 0 }, storage);
  }
});

test('changes found against a format 1 state are those found against a format 2 state of the same rows', async () => {
  const format2 = tempStateFile();
  await capture(both(everyRow(N)).typed, o, format2);
  assert.equal(formatOf(format2), 2);
  // Rows 0–3 gone, N .. N + 3 new, and every third row's other cells those of the next row.
  const changed = () =>
    both(
      everyRow(N).map((r) => r + 4),
      (r) => (r % 3 === 0 ? r + 1 : r),
    ).typed;
  const old = format1State();
  const a = await capture(changed(), o, old);
  const b = await capture(changed(), o, format2);
  assert.deepEqual(a.diff.counts, b.diff.counts);
  assert.deepEqual(a.upserts, b.upserts);
  assert.deepEqual(a.deletes, b.deletes);
  assert.equal(a.diff.counts.inserted, 4);
  assert.equal(a.diff.counts.deleted, 4);
  assert.ok(a.diff.counts.updated > 5 && a.diff.counts.updated < N / 2, `${a.diff.counts.updated} updated`);
  // Both states now hold the same records with the same hashes.
  const [upgraded, fresh] = [(await readState(old))!, (await readState(format2))!];
  assert.equal(upgraded.format, 2);
  assert.deepEqual([...upgraded.hashes], [...fresh.hashes]);
  assert.deepEqual(Buffer.from(upgraded.entries.bytes), Buffer.from(fresh.entries.bytes));
  const again = await capture(changed(), o, old);
  assert.equal(again.diff.counts.unchanged, N);
});

test('a diff of many rows hashes its typed columns and matches its keys on the worker thread, with the hashes of the same values hashed here', async () => {
  const rows = everyRow(PARALLEL_ROWS + 1000);
  const before = both(rows);
  // Every third row's other cells those of the next row; keys as before.
  const changed = both(rows, (r) => (r % 3 === 0 ? r + 1 : r));
  for (const [first, second] of [
    ['typed', 'plain'],
    ['plain', 'typed'],
  ] as const) {
    const file = tempStateFile();
    const jobs = handedOver();
    await capture(before[first], o, file);
    // Plain arrays of values are hashed here; typed storage goes to the thread.
    assert.equal(handedOver() - jobs, first === 'typed' ? 1 : 0);
    const same = await capture(before[second], o, file, false);
    assert.deepEqual(same.diff.counts, { inserted: 0, updated: 0, deleted: 0, unchanged: rows.length, duplicates: 0 });
    const a = await capture(changed[first], o, file, false);
    const b = await capture(changed[second], o, file, false);
    // One typed diff of the first two, and one of the last two.
    assert.equal(handedOver() - jobs, 2);
    assert.deepEqual(a.diff.counts, b.diff.counts);
    assert.deepEqual(a.upserts, b.upserts);
    assert.ok(a.diff.counts.updated > rows.length / 10, `${a.diff.counts.updated} updated`);
    assert.equal(a.diff.counts.updated + a.diff.counts.unchanged, rows.length);
  }
});

test('keys matched on the worker thread find the inserts, deletes and duplicates found here', async () => {
  const rows = everyRow(PARALLEL_ROWS + 1000);
  // Rows 0–9 gone, 10 new at the end, and the key of row 500 again as row 600's (the data of 600).
  const next = [...rows.slice(10), ...everyRow(10).map((r) => rows.length + r)];
  const withDuplicate = next.map((r) => (r === 600 ? 500 : r));
  for (const [first, second] of [
    ['typed', 'plain'],
    ['plain', 'typed'],
  ] as const) {
    const file = tempStateFile();
    await capture(both(rows)[first], o, file);
    const a = await capture(both(next)[first], o, file, false);
    const b = await capture(both(next)[second], o, file, false);
    assert.deepEqual(a.diff.counts, {
      inserted: 10,
      updated: 0,
      deleted: 10,
      unchanged: rows.length - 10,
      duplicates: 0,
    });
    assert.deepEqual(b.diff.counts, a.diff.counts);
    assert.deepEqual(a.deletes, b.deletes);
    assert.deepEqual(
      a.deletes.map((row) => row[0]),
      everyRow(10),
    );
    assert.deepEqual(a.upserts, b.upserts);
    for (const storage of [first, second]) {
      await assert.rejects(
        capture(both(withDuplicate)[storage], o, file, false),
        /duplicate key id=500 in rows 491 and 591/,
        storage,
      );
      const kept = await capture(both(withDuplicate)[storage], { ...o, ignoreDups: true }, file, false);
      // Row 600 is gone (its key kept the first row), so it is a delete, and the duplicate is dropped.
      assert.deepEqual(kept.diff.counts, {
        inserted: 10,
        updated: 0,
        deleted: 11,
        unchanged: rows.length - 11,
        duplicates: 1,
      });
    }
  }
});
