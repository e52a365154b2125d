import { OF_PARTS, unscaledOfParts } from '../dataset/decimal-scale';
import { TextColumnBuilder } from '../dataset/text-vector';
import type { Column, ColumnType, Value } from '../dataset/types';
import { BigIntVector, DateVector, DecimalStore, MAX_STORED_SCALE, ValuesVector, type Vector } from '../dataset/vector';
import { ENCODING } from './frame-format';

/**
 * Where readChangeLog decodes a whole column of a stream: the typed storage a dataset keeps
 * (vector.ts), sized from the header, so a million rows make no Date, bigint, Decimal or string per
 * cell (docs/changelog.md, "Reading").
 */

/** A datetime or long column: frames copy their epoch milliseconds or int64s into it. */
export class TypedColumn {
  readonly data: Float64Array | BigInt64Array;
  private nulls: Uint8Array | undefined;

  constructor(
    readonly encoding: typeof ENCODING.DATE | typeof ENCODING.I64,
    private readonly length: number,
  ) {
    this.data = encoding === ENCODING.DATE ? new Float64Array(length) : new BigInt64Array(length);
  }

  setNull(r: number): void {
    (this.nulls ??= new Uint8Array((this.length + 7) >> 3))[r >> 3] |= 1 << (r & 7);
  }

  vector(): Vector {
    return this.data instanceof Float64Array
      ? new DateVector(this.data, this.nulls)
      : new BigIntVector(this.data, this.nulls);
  }
}

/**
 * A decimal column as unscaled doubles with their scale (DecimalVector) while its values fit that
 * (unscaledOfParts); from the first that does not, an array of Decimals, the cells before it read
 * back from the storage (each the same value with the same scale).
 */
export class DecimalColumn {
  private readonly store: DecimalStore;
  /** The cells as values, once one did not fit the storage. */
  values: Value[] | undefined;

  constructor(
    type: ColumnType,
    private readonly length: number,
  ) {
    this.store = new DecimalStore(length, type);
  }

  /** Stores row `r` from its decimal.js parts (see unscaledOfParts); false, storing nothing, when it does not fit. */
  put(
    r: number,
    negative: boolean,
    e: number,
    words: Uint32Array,
    from: number,
    count: number,
    carried: number,
  ): boolean {
    if (!unscaledOfParts(negative, e, words, from, count, carried, MAX_STORED_SCALE)) return false;
    this.store.putUnscaled(r, OF_PARTS.unscaled, OF_PARTS.scale);
    return true;
  }

  setNull(r: number): void {
    if (this.values) this.values[r] = null;
    else this.store.put(r, null);
  }

  /** Turns the column into an array of values, the rows before `r` read from the storage; the array. */
  spill(r: number): Value[] {
    const stored = this.store.vector(this.length);
    const values = new Array<Value>(this.length);
    for (let k = 0; k < r; k++) values[k] = stored.get(k);
    this.values = values;
    return values;
  }

  vector(): Vector {
    return this.values ? new ValuesVector(this.values) : this.store.vector(this.length);
  }
}

/** Where a column's cells are decoded to: an array of values, or typed storage (text packed in blocks). */
export type ColumnTarget = Value[] | TypedColumn | DecimalColumn | TextColumnBuilder;

/** The target of a column of `length` cells when a whole stream is read. */
export function targetFor(column: Column, length: number): ColumnTarget {
  switch (column.type.base) {
    case 'datetime':
      return new TypedColumn(ENCODING.DATE, length);
    case 'long':
      return new TypedColumn(ENCODING.I64, length);
    case 'decimal':
      return new DecimalColumn(column.type, length);
    case 'string':
    case 'char':
    case 'guid':
      return new TextColumnBuilder(length, false);
    default:
      return new Array<Value>(length);
  }
}

/** The dataset column a target holds once every frame is decoded into it. */
export function storedColumn(target: ColumnTarget): Value[] | Vector {
  if (Array.isArray(target)) return target;
  return target instanceof TextColumnBuilder ? target.finish() : target.vector();
}
