import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AddedKeys, buildTable, carryTable } from '../../runtime/cdc/key-table';
import { KeyStoreBuilder } from '../../runtime/cdc/keys';
import { atOnce } from '../../runtime/util/turn';

/** Every entry of `hashes` is found by probing from its home slot before an empty one, and nothing else is there. */
function assertTable(slots: Int32Array, hashes: number[]): void {
  const mask = slots.length / 2 - 1;
  hashes.forEach((h, e) => {
    let s = h & mask;
    while (slots[2 * s + 1] !== e + 1) {
      assert.notEqual(slots[2 * s + 1], 0, `entry ${e} unreachable from its home slot`);
      s = (s + 1) & mask;
    }
    assert.equal(slots[2 * s], h);
  });
  let used = 0;
  for (let s = 1; s < slots.length; s += 2) if (slots[s] !== 0) used++;
  assert.equal(used, hashes.length);
}

test('carrying a key table over drops and renumbers entries, also in clusters that wrap around the end', () => {
  let seed = 7;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 0) / 4294967296;
  const none = new AddedKeys(new KeyStoreBuilder(0), 0).finish();
  for (let round = 0; round < 200; round++) {
    // Homes crowd the last and first slots of 1024, so clusters run over the end.
    const hashes = Array.from({ length: 300 + Math.floor(random() * 300) }, () => {
      const home = random() < 0.5 ? 1024 - 1 - Math.floor(random() * 40) : Math.floor(random() * 40);
      return (Math.floor(random() * 0x1fffff) << 10) | home;
    });
    const slots = buildTable(hashes);
    assert.equal(slots.length, 2 * 1024);
    assertTable(slots, hashes);
    const renumber = new Int32Array(hashes.length);
    const kept: number[] = [];
    hashes.forEach((h, e) => (renumber[e] = random() < 0.3 ? -1 : kept.push(h) - 1));
    assertTable(atOnce(carryTable(slots, renumber, kept.length, none)), kept);
    assertTable(slots, hashes); // the previous table is not modified
  }
});

test('a key table is built anew at its size when the state shrinks to an eighth of it, else carried over', () => {
  const hashes = Array.from({ length: 5000 }, (_, e) => Math.imul(e + 1, 0x9e3779b1));
  const slots = buildTable(hashes);
  assert.equal(slots.length / 2, 16384);
  const renumber = Int32Array.from(hashes, (_, e) => (e % 50 === 0 ? e / 50 : -1));
  const small = atOnce(carryTable(slots, renumber, 100, new AddedKeys(new KeyStoreBuilder(0), 0).finish()));
  assert.equal(small.length / 2, 1024);
  assertTable(
    small,
    hashes.filter((_, e) => e % 50 === 0),
  );
  const all = atOnce(
    carryTable(
      slots,
      Int32Array.from(hashes, (_, e) => e),
      5000,
      new AddedKeys(new KeyStoreBuilder(0), 0).finish(),
    ),
  );
  assert.equal(all.length / 2, 16384);
  assertTable(all, hashes);
});
