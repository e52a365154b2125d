/**
 * Shared pieces of the fuzz tests: a seeded generator (every run tries the same inputs, so a failure
 * reproduces) and what a message looks like when JavaScript failed rather than the user's input.
 */

/** A deterministic generator of numbers in [0, 1). */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

/** Words of a JavaScript or Node failure that a user's error never needs. */
export const JS_FAILURE =
  /Cannot read prop|is not a function|is not iterable|is not defined|undefined|\[object|Maximum call stack|Invalid array length|Invalid string length|Invalid time value|RangeError|TypeError|ERR_[A-Z_]+|internal error/;
