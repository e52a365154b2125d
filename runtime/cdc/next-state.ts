import { ScriptError } from '../errors';
import { COPY_BYTES, copyInSlices } from '../util/sliced-copy';
import { carryTable, type NewKeys } from './key-table';
import { sharedBytes, sharedInt32s, sharedUint32s } from './shared-memory';
import type { CdcState, StateColumn } from './state';

/** What a run found (diff.ts), as the next state is built from it. */
export interface RunMatches {
  /** For each entry of the previous state, 1 + the input row holding its key, or 0. */
  seenBy: Int32Array;
  /**
   * Whether entries the input did not have are dropped (DELETES) or kept. Without DELETES an absent
   * record may just not have been fetched this time (an incremental source): it stays, so that when
   * it comes back unchanged it is no insert.
   */
  dropUnseen: boolean;
  /** The keys the state did not have, in input order, and their rows. */
  added: NewKeys;
  addedRows: Int32Array;
  /** The row hashes of the input (hash.ts `rowHashes`: state format 2). */
  hashes: Int32Array;
}

/**
 * The state after a run: the previous entries that stay, with this run's row hash when the input
 * had them, then the new keys. Entries keep the order they were first seen in, so the key bytes of
 * a source that returns its records in a stable order are copied in a few long runs. Yields every
 * ENTRY_SLICE entries and between slices of long copies: a million entries take a second to build
 * on a loaded machine, much of it page faults of the new state's fresh memory.
 */
export function* nextState(
  previous: CdcState | undefined,
  run: RunMatches,
  columns: { keys: StateColumn[]; observed: StateColumn[] },
): Generator<void, CdcState> {
  const { seenBy, dropUnseen, addedRows } = run;
  const added = run.added.keys;
  const renumber = new Int32Array(seenBy.length);
  const before = previous?.entries ?? { bytes: new Uint8Array(0), offsets: new Uint32Array(1) };
  let kept = 0;
  let keptBytes = 0;
  for (let e = 0; e < seenBy.length; e++) {
    if (dropUnseen && seenBy[e] === 0) continue;
    kept++;
    keptBytes += before.offsets[e + 1] - before.offsets[e];
  }
  const count = kept + addedRows.length;
  const hashes = new Int32Array(2 * count);
  const offsets = sharedUint32s(count + 1);
  if (keptBytes + added.bytes.length > 0xffffffff)
    throw new ScriptError('the CDC state would hold more than 4 GB of keys', 'runtime');
  const bytes = sharedBytes(keptBytes + added.bytes.length);

  let k = 0;
  let pos = 0;
  let runStart = 0;
  let runEnd = 0;
  for (let e = 0; e < seenBy.length; e++) {
    const r = seenBy[e] - 1;
    if (dropUnseen && r < 0) {
      renumber[e] = -1;
      continue;
    }
    if ((e & (ENTRY_SLICE - 1)) === ENTRY_SLICE - 1) yield;
    renumber[e] = k;
    const from = r >= 0 ? run.hashes : previous!.hashes;
    const at = r >= 0 ? 2 * r : 2 * e;
    hashes[2 * k] = from[at];
    hashes[2 * k + 1] = from[at + 1];
    offsets[k++] = pos + (runEnd - runStart);
    const start = before.offsets[e];
    if (start !== runEnd) {
      if (runEnd - runStart < COPY_BYTES) bytes.set(before.bytes.subarray(runStart, runEnd), pos);
      else yield* copyInSlices(bytes, before.bytes.subarray(runStart, runEnd), pos);
      pos += runEnd - runStart;
      runStart = start;
    }
    runEnd = before.offsets[e + 1];
  }
  yield* copyInSlices(bytes, before.bytes.subarray(runStart, runEnd), pos);
  pos += runEnd - runStart;

  yield* copyInSlices(bytes, added.bytes, pos);
  for (let a = 0; a < addedRows.length; a++) {
    if ((a & (ENTRY_SLICE - 1)) === ENTRY_SLICE - 1) yield;
    hashes[2 * k] = run.hashes[2 * addedRows[a]];
    hashes[2 * k + 1] = run.hashes[2 * addedRows[a] + 1];
    offsets[k++] = pos + added.offsets[a];
  }
  offsets[k] = pos + added.bytes.length;
  // Without a previous state the added keys' table is the whole state's: its numbers are the same.
  const table = previous
    ? yield* carryTable(previous.table, renumber, kept, run.added)
    : yield* sharedCopy(run.added.slots);
  return { ...columns, entries: { bytes, offsets }, hashes, table, format: 2 };
}

/**
 * Which entries of the state `nextState` builds from `run` a run has seen so far: those `run` matched
 * or added, and those `before` (the same, for the state `run` was compared with) marks, from the
 * earlier pages of a paged read. A later page's record whose entry is marked repeats one of theirs.
 */
export function seenInRun(run: RunMatches, before: Uint8Array | undefined): Uint8Array {
  const { seenBy, dropUnseen } = run;
  const seen = new Uint8Array(seenBy.length + run.addedRows.length);
  let k = 0;
  for (let e = 0; e < seenBy.length; e++) {
    if (dropUnseen && seenBy[e] === 0) continue;
    if (seenBy[e] !== 0 || before?.[e]) seen[k] = 1;
    k++;
  }
  seen.fill(1, k, k + run.addedRows.length);
  return seen.subarray(0, k + run.addedRows.length);
}

function* sharedCopy(a: Int32Array): Generator<void, Int32Array> {
  const copy = sharedInt32s(a.length);
  yield* copyInSlices(copy, a);
  return copy;
}

/** Entries built between two yields of `nextState`. */
const ENTRY_SLICE = 1 << 16;
