import type { Dataset } from '../dataset/dataset';
import { typeName } from '../dataset/type-names';
import type { Column } from '../dataset/types';
import { ScriptError, type Position } from '../errors';
import { familyOf } from './families';
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
 * Resolves KEYS and OBSERVE against the input and checks them against the state's. Comparing rows
 * under other columns than the state was built with would report every record as changed (or
 * silently key them differently), so any difference is an error that says what changed and how to
 * start over; a type may change within its family (families.ts). Keys are encoded and observed
 * columns hashed in the state's order, so reordering KEYS, OBSERVE or the dataset's columns is no change.
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
          'or with INIT_ON_FIRST_RUN only records the state)' +
          (options.observe ? '' : ', or keep comparing the same columns by listing them in OBSERVE'),
        'runtime',
      );
    }
    keyOrdinals = previous.keys.map((c) => input.indexOf(c.name));
    observedOrdinals = previous.observed.map((c) => input.indexOf(c.name));
  }
  const describe = (c: number): StateColumn => ({ name: input.columns[c].name, type: input.columns[c].type });
  return { keyOrdinals, observedOrdinals, keys: keyOrdinals.map(describe), observed: observedOrdinals.map(describe) };
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

function observedChanges(before: readonly StateColumn[], now: readonly Column[]): string[] {
  const lower = (cols: readonly { name: string }[]) => new Set(cols.map((c) => c.name.toLowerCase()));
  const had = lower(before);
  const has = lower(now);
  const added = now.filter((c) => !had.has(c.name.toLowerCase())).map((c) => `'${c.name}'`);
  const removed = before.filter((c) => !has.has(c.name.toLowerCase())).map((c) => `'${c.name}'`);
  const problems: string[] = [];
  if (added.length)
    problems.push(
      `observed column${added.length > 1 ? 's' : ''} ${added.join(', ')} ${added.length > 1 ? 'are' : 'is'} new`,
    );
  if (removed.length)
    problems.push(
      `observed column${removed.length > 1 ? 's' : ''} ${removed.join(', ')} ${removed.length > 1 ? 'are' : 'is'} gone`,
    );
  const byName = new Map(now.map((c) => [c.name.toLowerCase(), c]));
  const kept = before.filter((c) => byName.has(c.name.toLowerCase()));
  return [
    ...problems,
    ...typeChanges(
      kept,
      kept.map((c) => byName.get(c.name.toLowerCase())!),
      'column',
    ),
  ];
}

function typeChanges(before: readonly StateColumn[], now: readonly Column[], what: string): string[] {
  return before.flatMap((c, i) =>
    familyOf(c.type.base) === familyOf(now[i].type.base)
      ? []
      : [`${what} '${c.name}' was ${typeName(c.type)} and is now ${typeName(now[i].type)}`],
  );
}
