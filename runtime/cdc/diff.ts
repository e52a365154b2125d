import { Dataset } from '../dataset/dataset';
import type { Column, ColumnType, Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { handOver } from './diff-thread';
import { conformToState, type Conformed } from './conform';
import { combineLanes, hashRowsFormat1, objectLanesInSlices, rowHashes, typedLanes, typedOrdinals } from './hash';
import { decodeKeys, describeKey, type KeyStore } from './keys';
import { classify, DROPPED, INSERTED, UPDATED } from './match';
import { nextState, seenInRun } from './next-state';
import type { CaptureOptions } from './options';
import { planCapture } from './schema';
import { readState, writeState, type CdcState } from './state';
import { atOnce, inTurns, type Pause } from '../util/turn';

/**
 * The synthetic change capture of CAPTURE (spec 2.2, 4.2; docs/changelog.md), in two phases so that the
 * state never runs ahead of the change log: `captureDiff` compares the input with the state and
 * returns the change streams and the next state without writing anything; `commitState` replaces
 * the state once the change log is durable. A crash in between leaves the old state, so the next
 * run reports the same changes again: changes are delivered at least once, never lost.
 */
export interface CaptureDiff {
  /**
   * 'all': no KEYS, the whole dataset is the upsert stream (rule 2); 'initialized':
   * INIT_ON_FIRST_RUN's first run, the state is built and no change is reported (reference.md C.1);
   * 'changes': the records inserted, updated, deleted since the last run (all inserted on a first run).
   */
  mode: 'all' | 'initialized' | 'changes';
  /** The inserted and updated rows as requested, in input order: whole rows, plus the CDCMARKER field. */
  upserts: Dataset;
  /** Deleted records (DELETES only): the input's columns, keys filled in and the others null. */
  deletes: Dataset;
  /**
   * What was detected, reported or not; `deleted` only with DELETES (without it an absent record
   * is no delete), `duplicates` the rows IGNORE_DUPS dropped.
   */
  counts: { inserted: number; updated: number; deleted: number; unchanged: number; duplicates: number };
  /**
   * Builds the state to commit after the change log (in parts, util/turn.ts); undefined without
   * KEYS. Built only when it is committed: a run that fails before its log is durable never pays for
   * it, and the diff itself is only the comparison.
   */
  next?: () => Generator<Pause, CdcState>;
  /** With the state `next` builds: which of its entries this run has seen so far (EarlierPages.seen). */
  seen?: () => Uint8Array;
}

/**
 * What the earlier pages of a paged read did to the same state in this run (a read's inline APPLY
 * PIPELINE runs CAPTURE once per page): `initializing`, INIT_ON_FIRST_RUN initialized it, so this
 * page's records join it unreported too; `seen`, which of its entries they had (CaptureDiff.seen).
 */
export interface EarlierPages {
  initializing: boolean;
  seen?: Uint8Array;
}

const MARKER_TYPE: ColumnType = { base: 'char', size: 1 };

/**
 * The state of `stateFile` (or none yet), then the diff of `input` against it, with turns of the
 * event loop between its parts (a million rows take seconds): Ctrl-C (`signal`), the kernel's
 * heartbeat and the REPL are served meanwhile, and the worker thread's part is awaited, not waited on.
 */
export async function captureChanges(
  input: Dataset,
  options: CaptureOptions,
  stateFile: string,
  signal: AbortSignal,
  earlier?: EarlierPages,
): Promise<CaptureDiff> {
  const previous = options.keys.length ? await readState(stateFile) : undefined;
  return inTurns(diffSteps(input, options, previous, stateFile, earlier), signal);
}

/**
 * Writes the next state; call it only once the change log built from the same diff is durable. The
 * state is built with turns of the event loop (a second for a million keys), but nothing cancels it
 * then: the change log is written, and a state left behind it would report its changes again.
 */
export async function commitState(stateFile: string, diff: CaptureDiff): Promise<void> {
  if (!diff.next) return;
  await writeState(stateFile, await inTurns(diff.next()));
}

/** Compares `input` with `previous` (see CaptureDiff) at once; `stateFile` is only named in messages. */
export function captureDiff(
  source: Dataset,
  options: CaptureOptions,
  previous: CdcState | undefined,
  stateFile: string,
  earlier?: EarlierPages,
): CaptureDiff {
  return atOnce(diffSteps(source, options, previous, stateFile, earlier));
}

/** The diff (captureDiff) in parts, yielding between them. */
function* diffSteps(
  source: Dataset,
  options: CaptureOptions,
  previous: CdcState | undefined,
  stateFile: string,
  earlier?: EarlierPages,
): Generator<Pause, CaptureDiff> {
  const { input, compare } = previous
    ? conformToState(withStateColumns(source, previous), options, previous)
    : { input: source, compare: undefined };
  if (options.marker !== undefined && input.has(options.marker)) {
    throw new ScriptError(`CDCMARKER '${options.marker}' names an existing column`, 'runtime');
  }
  const noDeletes = emptyLike(input);
  if (options.keys.length === 0) {
    return {
      mode: 'all',
      upserts: upserts(input, 'all', undefined, options.marker),
      deletes: noDeletes,
      counts: counts(input.rowCount, 0, 0, 0, 0),
    };
  }

  if (!input.columns.length && !input.rowCount) {
    return { mode: 'changes', upserts: noDeletes, deletes: noDeletes, counts: counts(0, 0, 0, 0, 0) };
  }
  const plan = planCapture(input, options, previous, stateFile);
  // The worker thread matches the keys and hashes the typed columns while this one hashes the text.
  const worker = yield* handOver(input, typedOrdinals(input, plan.observedOrdinals), plan.keyOrdinals, previous);
  const matchedHere = worker?.matching ? undefined : classify(input, plan.keyOrdinals, previous);
  yield;
  const objects = yield* objectLanesInSlices(input, plan.observedOrdinals);
  if (worker) yield () => worker.settled();
  const done = worker?.result() ?? {};
  const rows = done.matched ?? matchedHere ?? classify(input, plan.keyOrdinals, previous);
  const hashes = combineLanes(objects, done.lanes ?? typedLanes(input, plan.observedOrdinals));
  if (rows.duplicates.length && !options.ignoreDups) throw duplicateError(input, plan.keyOrdinals, rows.duplicates);
  const repeated = earlier?.seen ? dropRepeated(rows, earlier.seen, options, input, plan.keyOrdinals) : 0;
  const updated = previous
    ? markUpdates(
        rows.kinds,
        rows.seenBy,
        comparedHashes(previous, input, plan.observedOrdinals, hashes, compare),
        previous.hashes,
      ) + (compare ? markForced(rows.kinds, rows.seenBy, compare.forced) : 0)
    : 0;

  const stateCount = rows.seenBy.length;
  const inserted = rows.added.count;
  const dropped = rows.duplicates.length / 2 + repeated;
  const matched = input.rowCount - inserted - dropped;
  const deleted = stateCount - matched;
  const matches = {
    seenBy: rows.seenBy,
    dropUnseen: options.deletes,
    added: rows.added,
    addedRows: rows.addedRows,
    hashes,
  };
  const next = () => nextState(previous, matches, { keys: plan.keys, observed: plan.observed });
  const seen = () => seenInRun(matches, earlier?.seen);
  yield;
  const tally = counts(inserted, updated, options.deletes ? deleted : 0, matched - updated, dropped);
  if ((!previous || earlier?.initializing) && options.initOnFirstRun) {
    return {
      mode: 'initialized',
      upserts: upserts(input, new Int32Array(0), rows.kinds, options.marker),
      deletes: noDeletes,
      counts: tally,
      next,
      seen,
    };
  }
  return {
    mode: 'changes',
    upserts: upserts(input, wantedRows(rows.kinds, options), rows.kinds, options.marker),
    deletes:
      options.deletes && deleted
        ? deletes(input, plan.keyOrdinals, previous!.entries, rows.seenBy, deleted)
        : noDeletes,
    counts: tally,
    next,
    seen,
  };
}

/**
 * A row whose key an earlier page of this run already had (an API whose items shift between pages
 * while they are read) is a duplicate key, as two rows of one dataset are: an error, or with
 * IGNORE_DUPS dropped, so the record seen first stays in the state and a run reports at most one
 * change per key. Returns how many rows were dropped; they no longer match their entry.
 */
function dropRepeated(
  rows: { kinds: Uint8Array; seenBy: Int32Array },
  seen: Uint8Array,
  options: CaptureOptions,
  input: Dataset,
  keyOrdinals: number[],
): number {
  let dropped = 0;
  for (let e = 0; e < rows.seenBy.length; e++) {
    const r = rows.seenBy[e] - 1;
    if (r < 0 || !seen[e]) continue;
    if (!options.ignoreDups) {
      const key = describeKey(
        keyOrdinals.map((c) => input.columns[c].name),
        keyOrdinals.map((c) => input.cell(r, c)),
        keyOrdinals.map((c) => input.columns[c].type),
      );
      throw new ScriptError(
        `duplicate key ${key} in row ${r + 1} of this page was on an earlier page of this read. Add WITH ` +
          'IGNORE_DUPS to keep the first one seen of each key',
        'runtime',
      );
    }
    rows.kinds[r] = DROPPED;
    rows.seenBy[e] = 0;
    dropped++;
  }
  return dropped;
}

/**
 * Marks UPDATED the rows whose hash differs from that of the state entry they matched, and returns
 * how many there are. Entries are taken in order, so a source returning its records in the state's
 * order reads the rows' hashes in order too.
 */
function markUpdates(kinds: Uint8Array, seenBy: Int32Array, hashes: Int32Array, stateHashes: Int32Array): number {
  let updated = 0;
  for (let e = 0; e < seenBy.length; e++) {
    const r = seenBy[e] - 1;
    if (r < 0) continue;
    if (hashes[2 * r] !== stateHashes[2 * e] || hashes[2 * r + 1] !== stateHashes[2 * e + 1]) {
      kinds[r] = UPDATED;
      updated++;
    }
  }
  return updated;
}

/**
 * The hashes to compare with the state's: the next state's, unless the state hashed other columns
 * or types (conform.ts) or the format 1 hash (the next state holds the new ones either way).
 */
function comparedHashes(
  previous: CdcState,
  input: Dataset,
  observed: readonly number[],
  hashes: Int32Array,
  compare: Conformed['compare'],
): Int32Array {
  const [ds, ordinals] = compare ? [compare.view, compare.view.columns.map((_, c) => c)] : [input, observed];
  if (previous.format === 1) return hashRowsFormat1(ds, ordinals);
  return compare ? rowHashes(ds, ordinals) : hashes;
}

/** Marks UPDATED the matched rows in `forced` that are not yet, and returns how many there are. */
function markForced(kinds: Uint8Array, seenBy: Int32Array, forced: Uint8Array): number {
  let updated = 0;
  for (let e = 0; e < seenBy.length; e++) {
    const r = seenBy[e] - 1;
    if (r >= 0 && forced[r] && kinds[r] !== UPDATED) {
      kinds[r] = UPDATED;
      updated++;
    }
  }
  return updated;
}

/** The rows to report, in input order. */
function wantedRows(kinds: Uint8Array, options: CaptureOptions): Int32Array {
  const wanted = new Uint8Array(DROPPED + 1);
  wanted[INSERTED] = options.inserts ? 1 : 0;
  wanted[UPDATED] = options.updates ? 1 : 0;
  let m = 0;
  for (let r = 0; r < kinds.length; r++) m += wanted[kinds[r]];
  const rows = new Int32Array(m);
  m = 0;
  for (let r = 0; r < kinds.length; r++) if (wanted[kinds[r]]) rows[m++] = r;
  return rows;
}

function counts(
  inserted: number,
  updated: number,
  deleted: number,
  unchanged: number,
  duplicates: number,
): CaptureDiff['counts'] {
  return { inserted, updated, deleted, unchanged, duplicates };
}

/**
 * The rows `rows` of the input, plus the marker field. Every row (`'all'`, or a first run's rows,
 * all inserted) shares the input's columns: a selection of all of them would copy each column the
 * first time the change log reads it.
 */
function upserts(
  input: Dataset,
  rows: Int32Array | 'all',
  kinds: Uint8Array | undefined,
  marker: string | undefined,
): Dataset {
  // `rows` are in input order, so as many as the input has are all of them.
  const picked = rows === 'all' || rows.length === input.rowCount ? input : input.pick(rows);
  if (marker === undefined) return picked;
  const markers = new Array<Value>(picked.rowCount);
  for (let k = 0; k < markers.length; k++)
    markers[k] = kinds && rows !== 'all' && kinds[rows[k]] === UPDATED ? 'U' : 'I';
  const column: Column = { name: marker, type: MARKER_TYPE };
  return new Dataset(
    [...picked.columns.map((c) => ({ ...c })), column],
    [...picked.columns.map((_, c) => picked.vector(c)), markers],
    markers.length,
  );
}

/** The state's records the input no longer has: their keys, every other column null. */
function deletes(
  input: Dataset,
  keyOrdinals: number[],
  stateKeys: KeyStore,
  seenBy: Int32Array,
  deleted: number,
): Dataset {
  const gone = new Int32Array(deleted);
  let k = 0;
  for (let e = 0; e < seenBy.length; e++) if (seenBy[e] === 0) gone[k++] = e;
  const values = decodeKeys(
    stateKeys,
    gone,
    keyOrdinals.map((c) => input.columns[c].type),
  );
  const data = input.columns.map(() => new Array<Value>(deleted).fill(null));
  keyOrdinals.forEach((c, i) => (data[c] = values[i]));
  return new Dataset(
    input.columns.map((c) => ({ ...c })),
    data,
    deleted,
  );
}

/**
 * A source that returned nothing at all (an HTTP or JSON source's empty array) has no columns to
 * name either. It holds no record, so it is compared as an empty dataset of the columns the state
 * remembers (with DELETES every record is deleted, without it nothing changed), not failed as a key
 * column gone. On a first run there is nothing to compare and nothing to remember (captureDiff).
 */
function withStateColumns(input: Dataset, previous: CdcState): Dataset {
  return input.columns.length || input.rowCount
    ? input
    : Dataset.fromRows([...previous.keys, ...previous.observed], []);
}

function emptyLike(input: Dataset): Dataset {
  return input.pick(new Int32Array(0));
}

/** Names the first duplicated key with all its rows (1-based), and how many other keys repeat. */
function duplicateError(input: Dataset, keyOrdinals: number[], pairs: number[]): ScriptError {
  const first = pairs[0];
  const rows = [first];
  const others = new Set<number>();
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i] === first) rows.push(pairs[i + 1]);
    else others.add(pairs[i]);
  }
  const key = describeKey(
    keyOrdinals.map((c) => input.columns[c].name),
    keyOrdinals.map((c) => input.cell(first, c)),
    keyOrdinals.map((c) => input.columns[c].type),
  );
  const shown = rows.slice(0, 10).map((r) => r + 1);
  const list = `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}${rows.length > 10 ? ` (${rows.length} rows in all)` : ''}`;
  const more = others.size ? `; ${others.size} other key${others.size > 1 ? 's are' : ' is'} duplicated too` : '';
  return new ScriptError(
    `duplicate key ${key} in rows ${list}${more}. Add WITH IGNORE_DUPS to keep the first row of each key`,
    'runtime',
  );
}
