/**
 * The two 32-bit halves of an integer cell, whether a number (tinyint … int, or a long that
 * arrived as one) or a bigint (long): INT64[0] the low half, INT64[1] the high half, as an int64
 * holds them. Out-parameters in a typed array, so the hot loops allocate nothing.
 */
export const INT64 = new Int32Array(2);

const TWO_32 = 4294967296;

export function splitInt64(v: number | bigint): void {
  if (typeof v === 'number' && (v | 0) === v) {
    INT64[0] = v;
    INT64[1] = v >> 31;
    return;
  }
  const n = Number(v);
  if (Number.isSafeInteger(n)) {
    INT64[0] = n | 0;
    INT64[1] = Math.floor(n / TWO_32);
    return;
  }
  const big = BigInt(v);
  INT64[0] = Number(BigInt.asIntN(32, big));
  INT64[1] = Number(BigInt.asIntN(32, big >> 32n));
}

/** Whether this machine stores an int64 low half first, as INT64 and the key bytes hold it. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * The halves of a long column's cells, two to a cell (low first) as `splitInt64` gives them: a view
 * of the same memory, or undefined on a big-endian machine, where the cells are split one by one.
 */
export function int64Words(data: BigInt64Array): Int32Array | undefined {
  return LITTLE_ENDIAN ? new Int32Array(data.buffer, data.byteOffset, 2 * data.length) : undefined;
}
