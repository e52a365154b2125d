/**
 * The cells of one frame, column after column (docs/changelog.md, "Frame body"): a column's values
 * lie together, so they compress well and decode in one tight loop per column, straight into the
 * dataset's column arrays. Every value comes back as it went in: decimals with their scale, longs
 * as 64-bit integers, dates to the millisecond, bytes raw, strings with any UTF-16 content (lone
 * surrogates included), null apart from empty.
 */

/** How a column's values are stored in a frame; the writer picks one per column per frame. */
export const ENCODING = {
  I32: 1,
  F32: 2,
  F64: 3,
  I64: 4,
  BOOL: 5,
  /** Strings as UTF-8, lengths in UTF-16 units. */
  UTF8: 6,
  /** Strings that are not well-formed UTF-16 (lone surrogates): UTF-16LE keeps them exactly. */
  UTF16: 7,
  BYTES: 8,
  /** Milliseconds since 1970 as a float64 (NaN for an invalid date). */
  DATE: 9,
  /** decimal.js's own parts (sign, exponent, base-1e7 words) and the scale a value carries. */
  DECIMAL: 10,
} as const;

/** Typed arrays over one buffer, as wide as a frame: values are packed here, then copied out. */
export class Scratch {
  readonly raw: ArrayBuffer;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly i64: BigInt64Array;

  constructor(rows: number) {
    this.raw = new ArrayBuffer(Math.max(rows, 1) * 8);
    this.i32 = new Int32Array(this.raw);
    this.u32 = new Uint32Array(this.raw);
    this.f32 = new Float32Array(this.raw);
    this.f64 = new Float64Array(this.raw);
    this.i64 = new BigInt64Array(this.raw);
  }

  bytes(n: number): Uint8Array {
    return new Uint8Array(this.raw, 0, n);
  }
}
