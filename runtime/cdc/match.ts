import type { Dataset } from '../dataset/dataset';
import { AddedKeys, findKey, type NewKeys } from './key-table';
import { KeyEncoder, KeyStoreBuilder, type KeyStore } from './keys';

/** What a row is (0: unchanged). */
export const INSERTED = 1;
export const UPDATED = 2;
export const DROPPED = 3;

/** The keys of a state, as matching reads them. */
export interface StateKeys {
  entries: KeyStore;
  /** The hash table of the entries' keys (key-table.ts). */
  table: Int32Array;
}

export interface Classified {
  /** For each input row: 0 matched (unchanged or, once compared, UPDATED), INSERTED, or DROPPED (a duplicate). */
  kinds: Uint8Array;
  /** For each state entry, 1 + the row that matched it, or 0. */
  seenBy: Int32Array;
  /** The keys the state did not have, and their rows. */
  added: NewKeys;
  addedRows: Int32Array;
  /** Pairs (first row of a key, a later row with the same key). */
  duplicates: number[];
}

/**
 * Finds each row's key in the state, or among the keys new in this run. Sources mostly return
 * their records in the same order every time, and the state keeps that order: a row's key is
 * first compared with the entry after the last one matched, then with the one after that (the
 * record between was deleted), and only looked up in the state's table, then in the new keys'
 * table, when it is neither.
 */
export function classify(input: Dataset, keyOrdinals: readonly number[], previous: StateKeys | undefined): Classified {
  const stateKeys: KeyStore = previous?.entries ?? { bytes: new Uint8Array(0), offsets: new Uint32Array(1) };
  const stateCount = stateKeys.offsets.length - 1;
  const key = new KeyEncoder(input, keyOrdinals);
  const n = input.rowCount;
  const kinds = new Uint8Array(n);
  const seenBy = new Int32Array(stateCount);
  const expected = stateCount ? 1024 : n;
  const added = new AddedKeys(new KeyStoreBuilder(expected), expected);
  let addedRows: Int32Array = new Int32Array(expected);
  const duplicates: number[] = [];
  let cursor = 0;
  for (let r = 0; r < n; r++) {
    let e: number;
    if (cursor < stateCount && key.matches(r, stateKeys, cursor)) e = cursor;
    else if (cursor + 1 < stateCount && key.matches(r, stateKeys, cursor + 1)) e = cursor + 1;
    else {
      key.encode(r);
      const h = key.hash();
      e = stateCount ? findKey(previous!.table, stateKeys, key, h) : -1;
      if (e < 0) {
        const a = added.findOrAdd(key, h);
        e = a < 0 ? -1 : stateCount + a;
      }
    }
    if (e < 0) {
      kinds[r] = INSERTED;
      if (added.keys.count > addedRows.length) addedRows = grow(addedRows);
      addedRows[added.keys.count - 1] = r;
    } else if (e < stateCount && seenBy[e] === 0) {
      seenBy[e] = r + 1;
      cursor = e + 1;
    } else {
      kinds[r] = DROPPED;
      duplicates.push(e < stateCount ? seenBy[e] - 1 : addedRows[e - stateCount], r);
    }
  }
  return { kinds, seenBy, added: added.finish(), addedRows: addedRows.subarray(0, added.keys.count), duplicates };
}

function grow(a: Int32Array): Int32Array {
  const grown = new Int32Array(a.length * 2);
  grown.set(a);
  return grown;
}
