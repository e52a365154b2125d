import type { KeyEncoder, KeyStore, KeyStoreBuilder } from './keys';
import { copyInSlices } from '../util/sliced-copy';
import { sharedInt32s } from './shared-memory';

/**
 * Hash tables of keys: open addressing with linear probing, a power-of-two number of slots, each
 * slot two int32s: a key's hash (keys.ts) and its entry number + 1 (0: empty). At most 60% full.
 *
 * The state's table is saved with the state, so a run looks keys up without building anything,
 * and the next state's table is the previous one carried over (its deleted entries removed, the
 * others renumbered, new keys added): a sequential pass instead of a million scattered writes.
 * Typed arrays rather than a Map of strings: no key becomes a JS string or object.
 */
const MAX_LOAD = 0.6;

export function tableCapacity(count: number): number {
  let capacity = 1024;
  while (capacity * MAX_LOAD < count) capacity *= 2;
  return capacity;
}

/** Places entry `entry` with hash `h`; the table must have room. */
function place(slots: Int32Array, h: number, entry: number): void {
  const mask = slots.length / 2 - 1;
  let s = h & mask;
  while (slots[2 * s + 1] !== 0) s = (s + 1) & mask;
  slots[2 * s] = h;
  slots[2 * s + 1] = entry + 1;
}

/** The entry of `store` that holds `key` (hash `h`), or -1. */
export function findKey(slots: Int32Array, store: KeyStore, key: KeyEncoder, h: number): number {
  const mask = slots.length / 2 - 1;
  for (let s = h & mask; ; s = (s + 1) & mask) {
    const stored = slots[2 * s + 1];
    if (stored === 0) return -1;
    if (slots[2 * s] === h && key.equals(store, stored - 1)) return stored - 1;
  }
}

/** A table of entries 0 … count - 1 (distinct keys), with room for `room` entries. */
export function buildTable(hashes: ArrayLike<number>, count = hashes.length, room = count): Int32Array {
  const slots = new Int32Array(2 * tableCapacity(room));
  for (let e = 0; e < count; e++) place(slots, hashes[e], e);
  return slots;
}

/** The keys a run added, as the next state takes them (what AddedKeys ends with). */
export interface NewKeys {
  keys: KeyStore;
  count: number;
  /** Each key's hash (keys.ts), and the table of the keys by it. */
  hashes: Int32Array;
  slots: Int32Array;
}

/** The keys a run finds that the state does not have, in a table of their own that grows. */
export class AddedKeys {
  slots: Int32Array;
  hashes: Int32Array;

  constructor(
    readonly keys: KeyStoreBuilder,
    expected: number,
  ) {
    this.slots = new Int32Array(2 * tableCapacity(expected));
    this.hashes = new Int32Array(Math.max(expected, 16));
  }

  /** The number of the added key equal to `key`, or -1 after adding it. */
  findOrAdd(key: KeyEncoder, h: number): number {
    const found = findKey(this.slots, this.keys, key, h);
    if (found >= 0) return found;
    const a = this.keys.count;
    if (a + 1 > this.slots.length * (MAX_LOAD / 2)) this.slots = buildTable(this.hashes, a, 2 * (a + 1));
    if (a === this.hashes.length) {
      const grown = new Int32Array(2 * a);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[a] = h;
    place(this.slots, h, a);
    this.keys.append(key);
    return -1;
  }

  finish(): NewKeys {
    return { keys: this.keys.store(), count: this.keys.count, hashes: this.hashes, slots: this.slots };
  }
}

/**
 * The table of the next state from the previous state's: `renumber[e]` is entry e's number in the
 * next state, or -1 when it is dropped (kept entries keep their order, so with none dropped the
 * numbers do not change); the added keys become entries `kept` onwards. When the next state
 * outgrows the table, or would fill an eighth of it, it is built anew at its size. Yields every
 * SLOT_SLICE slots or keys (a job run in turns, util/turn.ts).
 */
export function* carryTable(
  previous: Int32Array,
  renumber: Int32Array,
  kept: number,
  added: NewKeys,
): Generator<void, Int32Array> {
  const count = kept + added.count;
  const capacity = previous.length / 2;
  if (count > capacity * MAX_LOAD || tableCapacity(count) * 8 <= capacity) {
    const slots = sharedInt32s(2 * tableCapacity(count));
    for (let s = 0; s < previous.length; s += 2) {
      if ((s & (2 * SLOT_SLICE - 1)) === 2 * SLOT_SLICE - 2) yield;
      const stored = previous[s + 1];
      if (stored !== 0 && renumber[stored - 1] >= 0) place(slots, previous[s], renumber[stored - 1]);
    }
    yield* placeAdded(slots, added, kept);
    return slots;
  }
  const slots = sharedInt32s(previous.length);
  yield* copyInSlices(slots, previous);
  if (kept < renumber.length) yield* dropAndRenumber(slots, renumber);
  yield* placeAdded(slots, added, kept);
  return slots;
}

/** Slots or keys between two yields of `carryTable`. */
const SLOT_SLICE = 1 << 16;

function* placeAdded(slots: Int32Array, added: NewKeys, kept: number): Generator<void> {
  for (let a = 0; a < added.count; a++) {
    if ((a & (SLOT_SLICE - 1)) === SLOT_SLICE - 1) yield;
    place(slots, added.hashes[a], kept + a);
  }
}

/**
 * One pass over the slots that removes the entries `renumber` drops and renumbers the others. It
 * starts after an empty slot, so every cluster is met from its start: a removal only pulls entries
 * back from further on in the pass, never one already renumbered.
 */
function* dropAndRenumber(slots: Int32Array, renumber: Int32Array): Generator<void> {
  const mask = slots.length / 2 - 1;
  let start = 0;
  while (slots[2 * start + 1] !== 0) start++;
  for (let k = 1; k <= mask + 1; k++) {
    if ((k & (SLOT_SLICE - 1)) === 0) yield;
    const s = (start + k) & mask;
    while (slots[2 * s + 1] !== 0) {
      const next = renumber[slots[2 * s + 1] - 1];
      if (next >= 0) {
        slots[2 * s + 1] = next + 1;
        break;
      }
      remove(slots, mask, s);
    }
  }
}

/**
 * Empties slot i without tombstones (backward-shift deletion): each following entry of the cluster
 * whose home slot is not between i (excluded) and its own slot moves back into the hole.
 */
function remove(slots: Int32Array, mask: number, i: number): void {
  for (let j = (i + 1) & mask; slots[2 * j + 1] !== 0; j = (j + 1) & mask) {
    const home = slots[2 * j] & mask;
    const stays = i <= j ? home > i && home <= j : home > i || home <= j;
    if (stays) continue;
    slots[2 * i] = slots[2 * j];
    slots[2 * i + 1] = slots[2 * j + 1];
    i = j;
  }
  slots[2 * i] = 0;
  slots[2 * i + 1] = 0;
}
