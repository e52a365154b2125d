/**
 * The arrays of a CDC state's keys (key bytes, offsets, key table) in shared memory, so that the
 * worker thread of a diff reads them where they are (diff-thread.ts); zero-filled, as new arrays.
 */

export function sharedBytes(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}

export function sharedUint32s(length: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * length));
}

export function sharedInt32s(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * length));
}
