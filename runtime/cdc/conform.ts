import Decimal from 'decimal.js';
import { converterTo } from '../dataset/convert';
import { Dataset } from '../dataset/dataset';
import type { Column, ColumnType, Value } from '../dataset/types';
import { ValuesVector, vectorOf, type Vector } from '../dataset/vector';
import { ScriptError } from '../errors';
import { familyOf } from './families';
import type { CaptureOptions } from './options';
import type { CdcState, StateColumn } from './state';

/**
 * Today's input as the state's columns saw it. Sources that infer their types (JSON, XML, HTTP)
 * infer them per run, from that run's values: a numeric field is int in a run whose values happen
 * to be whole and double in the next, a field that was null in every record is string, and an API
 * that leaves out null fields drops a column or brings a new one. None of that is a change of the
 * records, so (docs/cdc.md "Column changes"):
 * - an observed column the state has and the input lacks is a column of nulls of the state's type
 *   (when OBSERVE lists columns, it must still name it);
 * - a column whose type left the state's family is converted to the state's type when every value
 *   converts and back to itself (int 3 is double 3.0), and then keeps the state's type in the
 *   change log too, so the log's schema stays put; otherwise it keeps today's type, and the rows
 *   whose value does not convert are updates (their value cannot be the one the state saw);
 * - a column the state only ever saw null in takes today's type, and its non-null values are updates;
 * - a new observed column joins the state; its non-null values are updates.
 * When the state's hashes cannot be compared with the next state's (the last three cases), `compare`
 * is the state's columns as the state hashed them, and `forced` the rows that changed whatever their
 * hash says.
 */
export interface Conformed {
  input: Dataset;
  compare?: { view: Dataset; forced: Uint8Array };
}

export function conformToState(source: Dataset, options: CaptureOptions, previous: CdcState): Conformed {
  const keys = new Set(options.keys.map((k) => k.toLowerCase()));
  const n = source.rowCount;
  const columns = [...source.columns];
  // Read from the source only when a column's values are needed: a run whose columns are as the
  // state saw them (nearly every run) hands the source on as it is.
  const vectors: (Vector | undefined)[] = [];
  const vector = (c: number) => (vectors[c] ??= source.vector(c));
  const ordinal = (name: string) => columns.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
  let changed = false;
  for (const c of previous.observed) {
    if (ordinal(c.name) >= 0 || keys.has(c.name.toLowerCase())) continue;
    vectors[columns.length] = nulls(n);
    columns.push({ name: c.name, type: c.type });
    changed = true;
  }
  let forced: Uint8Array | undefined;
  const force = (): Uint8Array => (forced ??= new Uint8Array(n));
  // The state's columns as it hashed them, where today's differ (by ordinal); the others are today's.
  const asHashed = new Map<number, Vector>();
  for (const s of previous.observed) {
    const c = ordinal(s.name);
    // A key now: planCapture says the keys changed.
    if (c < 0) return { input: source };
    if (familyOf(columns[c].type.base) === familyOf(s.type.base)) continue;
    if (s.onlyNulls) {
      asHashed.set(c, nulls(n));
      markValues(vector(c), force());
    } else {
      const converted = convertBack(vector(c), columns[c].type, s.type, force);
      asHashed.set(c, converted.vector);
      if (converted.exact) {
        columns[c] = { ...columns[c], type: s.type };
        vectors[c] = converted.vector;
        changed = true;
      }
    }
  }
  const stateNames = new Set(previous.observed.map((c) => c.name.toLowerCase()));
  const observedNow = options.observe ?? columns.filter((c) => !keys.has(c.name.toLowerCase())).map((c) => c.name);
  for (const name of observedNow) {
    const c = ordinal(name);
    if (c >= 0 && !stateNames.has(name.toLowerCase())) markValues(vector(c), force());
  }
  // `forced` is made exactly when the state's hashes cannot be compared with today's: a column new
  // to the state, one it saw only null in, or values that do not convert.
  const comparable = forced === undefined;
  if (!changed && comparable) return { input: source };
  const input = new Dataset(
    columns,
    columns.map((_, c) => vector(c)),
    n,
  );
  if (comparable) return { input };
  const stateColumns: Column[] = previous.observed.map((c) => ({ name: c.name, type: c.type }));
  const view = previous.observed.map((s) => {
    const c = ordinal(s.name);
    return asHashed.get(c) ?? vector(c);
  });
  return { input, compare: { view: new Dataset(stateColumns, view, n), forced: forced! } };
}

/**
 * Whether a column's values were all null as far as the state knows: `before` is how the state saw
 * it (undefined: a column new to it, whose earlier values were nulls), `vector` today's values.
 */
export function stillOnlyNulls(before: StateColumn | undefined, vector: Vector): boolean {
  if (before !== undefined && before.onlyNulls !== true) return false;
  for (let r = 0; r < vector.length; r++) if (vector.get(r) !== null) return false;
  return true;
}

function nulls(n: number): Vector {
  return new ValuesVector(new Array<Value>(n).fill(null));
}

function markValues(vector: Vector, forced: Uint8Array): void {
  for (let r = 0; r < vector.length; r++) if (vector.get(r) !== null) forced[r] = 1;
}

/**
 * The values of a column of type `from` in type `to`, each one that converts to `to` and back to
 * itself; the others are null in the result and marked in `forced`. `exact` when none was.
 */
function convertBack(
  vector: Vector,
  from: ColumnType,
  to: ColumnType,
  force: () => Uint8Array,
): { vector: Vector; exact: boolean } {
  const there = converterTo(to, from);
  const back = converterTo(from, to);
  const values = new Array<Value>(vector.length);
  let exact = true;
  for (let r = 0; r < vector.length; r++) {
    const v = vector.get(r);
    let converted: Value = null;
    if (v !== null) {
      try {
        converted = there(v);
        if (!sameValue(back(converted), v)) converted = null;
      } catch (e) {
        if (!(e instanceof ScriptError)) throw e;
      }
      if (converted === null) {
        force()[r] = 1;
        exact = false;
      }
    }
    values[r] = converted;
  }
  return { vector: vectorOf(to, values), exact };
}

function sameValue(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  if (Decimal.isDecimal(a) && Decimal.isDecimal(b)) return a.eq(b);
  return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
}
