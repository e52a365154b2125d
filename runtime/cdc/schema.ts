import type { Dataset } from '../dataset/dataset';
import { typeName } from '../dataset/type-names';
import type { Column } from '../dataset/types';
import { ScriptError, type Position } from '../errors';
import { familyOf } from './families';
import { stillOnlyNulls } from './conform';
import type { CaptureOptions } from './options';
import type { CdcState, StateColumn } from './state';

/** The input's columns a capture reads: keys, and the observed columns in the order they are hashed. */
export interface CapturePlan {
  keyOrdinals: number[];
  observedOrdinals: number[];
  /** As the next state records them: today's names and types. */
  keys: StateColumn[];
  observed: StateColumn[];
}

/**
 * Resolves KEYS and OBSERVE against the input (conformed to the state's columns first: conform.ts)
 * and checks them against the state's. Comparing rows under other keys, or without an observed
 * column the state hashed, would report every record as changed (or silently key them
 * differently), so that is an error that says what changed and how to start over; a key's type may
 * change within its family (families.ts). New observed columns are hashed after the state's. Keys
 * are encoded and observed columns hashed in the state's order, so reordering KEYS, OBSERVE or the
 * dataset's columns is no change.
 */
export function planCapture(
  input: Dataset,
  options: CaptureOptions,
  previous: CdcState | undefined,
  stateFile: string,
): CapturePlan {
  let keyOrdinals = options.keys.map((name) => ordinal(input, name, 'ON KEYS', options.keysPos));
  const keyNames = new Set(keyOrdinals.map((c) => input.columns[c].name.toLowerCase()));
  let observedOrdinals = options.observe
    ? options.observe.map((name) => ordinal(input, name, 'OBSERVE', options.observePos))
    : input.columns.flatMap((c, i) => (keyNames.has(c.name.toLowerCase()) ? [] : [i]));
  if (previous) {
    const problems = [
      ...keyChanges(
        previous.keys,
        keyOrdinals.map((c) => input.columns[c]),
      ),
      ...observedChanges(
        previous.observed,
        observedOrdinals.map((c) => input.columns[c]),
      ),
    ];
    if (problems.length) {
      throw new ScriptError(
        `the columns changed since the last capture: ${problems.join('; ')}. Comparing would misreport every record, ` +
          `so to start over delete the CDC state '${stateFile}' (the next run captures every record as an insert, ` +
          'or with INIT_ON_FIRST_RUN only records the state)',
        'runtime',
      );
    }
    keyOrdinals = previous.keys.map((c) => input.indexOf(c.name));
    const kept = previous.observed.map((c) => input.indexOf(c.name));
    observedOrdinals = [...kept, ...observedOrdinals.filter((c) => !kept.includes(c))];
  }
  const describe = (c: number): StateColumn => ({ name: input.columns[c].name, type: input.columns[c].type });
  const before = new Map(previous?.observed.map((c) => [c.name.toLowerCase(), c]));
  const observe = (c: number): StateColumn => {
    const { name, type } = input.columns[c];
    return stillOnlyNulls(before.get(name.toLowerCase()), input.vector(c))
      ? { name, type, onlyNulls: true }
      : { name, type };
  };
  return { keyOrdinals, observedOrdinals, keys: keyOrdinals.map(describe), observed: observedOrdinals.map(observe) };
}

function ordinal(input: Dataset, name: string, clause: string, pos: Position | undefined): number {
  const i = input.indexOf(name);
  if (i < 0) {
    const known = input.columns.map((c) => c.name).join(', ') || '(none)';
    throw new ScriptError(`${clause}: unknown column '${name}' (columns: ${known})`, 'runtime', pos);
  }
  return i;
}

function keyChanges(before: readonly StateColumn[], now: readonly Column[]): string[] {
  const names = (cols: readonly { name: string }[]) =>
    cols
      .map((c) => c.name.toLowerCase())
      .sort()
      .join(',');
  if (names(before) !== names(now)) {
    return [`ON KEYS was '${before.map((c) => c.name).join(',')}' and is now '${now.map((c) => c.name).join(',')}'`];
  }
  const byName = new Map(now.map((c) => [c.name.toLowerCase(), c]));
  return typeChanges(
    before,
    before.map((c) => byName.get(c.name.toLowerCase())!),
    'key column',
  );
}

/** Observed columns the state hashed that OBSERVE no longer names (conform.ts adds the others as nulls). */
function observedChanges(before: readonly StateColumn[], now: readonly Column[]): string[] {
  const has = new Set(now.map((c) => c.name.toLowerCase()));
  const removed = before.filter((c) => !has.has(c.name.toLowerCase())).map((c) => `'${c.name}'`);
  if (!removed.length) return [];
  return [`OBSERVE no longer names ${removed.join(', ')}`];
}

function typeChanges(before: readonly StateColumn[], now: readonly Column[], what: string): string[] {
  return before.flatMap((c, i) =>
    familyOf(c.type.base) === familyOf(now[i].type.base)
      ? []
      : [`${what} '${c.name}' was ${typeName(c.type)} and is now ${typeName(now[i].type)}`],
  );
}
