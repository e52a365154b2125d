import { NumberTextBuilder } from './number-text';
import type { Value } from './types';
import { bitAt, DictionaryVector, narrowCodes, type Vector } from './vector';

/** Rows per block of a packed text column: a block's cells are one string. */
const BLOCK_BITS = 10;
const BLOCK = 1 << BLOCK_BITS;

/**
 * Where the cells of a block start: a number when they all have that length (timestamps, codes,
 * ids of one width), else one offset per cell, in 16 bits when the block is shorter than 64K characters.
 */
type Offsets = number | Uint16Array | Uint32Array;

/**
 * Text cells packed into one string per block of 1,024 rows (docs/sources.md, "Cells packed"). A
 * cell costs its characters and 0, 2 or 4 bytes of offset, against about 24 bytes of string header and
 * 8 of array slot held as its own string; reading one cuts it out of its block (V8 makes a slice,
 * not a copy, for 13 characters or more).
 */
export class PackedTextVector implements Vector {
  constructor(
    private readonly blocks: readonly string[],
    private readonly offsets: readonly Offsets[],
    private readonly nulls: Uint8Array | undefined,
    readonly length: number,
  ) {}

  get(r: number): Value {
    if (this.nulls && bitAt(this.nulls, r)) return null;
    const b = r >>> BLOCK_BITS;
    const i = r & (BLOCK - 1);
    const block = this.blocks[b];
    const offsets = this.offsets[b];
    if (typeof offsets === 'number') return block.substring(i * offsets, (i + 1) * offsets);
    return block.substring(offsets[i], i + 1 < offsets.length ? offsets[i + 1] : block.length);
  }

  values(): Value[] {
    const out = new Array<Value>(this.length);
    for (let r = 0; r < out.length; r++) out[r] = this.get(r);
    return out;
  }

  pick(rows: ArrayLike<number>): Vector {
    const builder = new TextColumnBuilder(rows.length, false);
    for (let k = 0; k < rows.length; k++) builder.add(this.get(rows[k]) as string | null);
    return builder.finish();
  }
}

/** The offsets of a block's cells. */
function offsetsOf(cells: readonly string[], length: number): Offsets {
  const width = cells[0].length;
  if (cells.every((c) => c.length === width)) return width;
  const out = length < 65536 ? new Uint16Array(cells.length) : new Uint32Array(cells.length);
  let at = 0;
  for (let i = 0; i < cells.length; i++) {
    out[i] = at;
    at += cells[i].length;
  }
  return out;
}

/**
 * The first `count` elements: a view when the array is nearly full (a copy would double it for a
 * moment), a copy when much of it is unused.
 */
function fitted(array: Uint32Array, count: number): Uint32Array {
  return count >= array.length * 0.9 ? array.subarray(0, count) : array.slice(0, count);
}

/** Distinct values a column may reach before it is judged to repeat or not (as the loader interned before). */
const DICTIONARY_PROBE = 4096;
/** The most distinct values a dictionary column takes. */
const DICTIONARY_LIMIT = 65536;

/**
 * Text cells added in row order (a loader's column): kept as numbers while every cell is the text of
 * a number (number-text.ts), else as a dictionary while the column repeats, packed by blocks once it
 * does not. A column starts as numbers, then as a dictionary; when it has seen
 * DICTIONARY_PROBE distinct values in fewer than twice as many rows, or DICTIONARY_LIMIT in all, it
 * is mostly unique and the rows so far are packed.
 */
export class TextColumnBuilder {
  private count = 0;
  private capacity: number;
  /** Numbers state, dropped at the first cell that is not the text of one. */
  private numbers: NumberTextBuilder | undefined;
  private nulls: Uint8Array | undefined;
  // Dictionary state, dropped when the column turns to packing.
  private index: Map<string, number> | undefined;
  private table: (string | null)[] = [null];
  private codes: Uint32Array | undefined;
  // Packed state.
  private blocks: string[] = [];
  private offsets: Offsets[] = [];
  private block: string[] = [];
  private blockLength = 0;
  /** The expected number of rows, which sizes the arrays once a column is known to repeat. */
  private readonly expected: number;

  /**
   * `expected`: the expected number of rows. A dictionary's codes are sized for the rows of its
   * probe first: most columns turn to packing within it, and their codes would be garbage.
   * `encode`: numbers and dictionary are tried (a loader's column), else the text is packed at once.
   */
  constructor(expected: number, encode = true) {
    this.expected = Math.max(expected, 16);
    this.capacity = encode ? Math.min(this.expected, 2 * DICTIONARY_PROBE) : this.expected;
    if (encode) {
      this.numbers = new NumberTextBuilder(this.expected);
      this.index = new Map();
      this.codes = new Uint32Array(this.capacity);
    }
  }

  add(v: string | null): void {
    if (this.numbers) {
      if (this.numbers.add(this.count, v)) {
        this.count++;
        return;
      }
      this.fromNumbers();
    }
    const r = this.count;
    if (r === this.capacity) this.grow();
    this.count++;
    if (v === null) {
      // Code 0 in a dictionary (the arrays start zeroed); a null bit and no text when packed.
      if (this.index) return;
      this.setNull(r);
      v = '';
    }
    if (this.index) {
      let code = this.index.get(v);
      if (code === undefined) {
        code = this.table.length;
        if (this.repeatsTooLittle(code)) {
          this.toPacked(r);
          this.pack(v);
          return;
        }
        // Map keys must not be slices of the text they were cut from, which they would keep alive.
        const owned = v.length >= 13 ? [v[0], v.slice(1)].join('') : v;
        this.table.push(owned);
        this.index.set(owned, code);
      }
      this.codes![r] = code;
      return;
    }
    this.pack(v);
  }

  /**
   * `rows` cells given joined in `text`, each `lengths[k]` characters long, null where `nulls` (a
   * bitmap from the first of them) is set: a change log frame's text, packed with no string per cell
   * when it covers whole blocks. Only for a builder that packs (`encode` false); the lengths must
   * add up to the text's length.
   */
  addJoined(text: string, lengths: Uint32Array, rows: number, nulls: Uint8Array | undefined): void {
    while (this.count + rows > this.capacity) this.grow();
    if (nulls) for (let k = 0; k < rows; k++) if (bitAt(nulls, k)) this.setNull(this.count + k);
    let pos = 0;
    let k = 0;
    while (k < rows) {
      if (this.block.length === 0 && rows - k >= BLOCK) {
        const length = this.joinedBlock(text, pos, lengths, k);
        pos += length;
        k += BLOCK;
        this.count += BLOCK;
      } else {
        const end = pos + lengths[k++];
        this.count++;
        this.pack(text.slice(pos, end));
        pos = end;
      }
    }
  }

  /** A whole block of cells from `text` at `pos`, cut by `lengths` from `k` (one slice, no string a cell); its length. */
  private joinedBlock(text: string, pos: number, lengths: Uint32Array, k: number): number {
    const width = lengths[k];
    let length = 0;
    let same = true;
    for (let i = k; i < k + BLOCK; i++) {
      length += lengths[i];
      same &&= lengths[i] === width;
    }
    let offsets: Offsets = width;
    if (!same) {
      const starts = length < 65536 ? new Uint16Array(BLOCK) : new Uint32Array(BLOCK);
      for (let i = 0, at = 0; i < BLOCK; i++) {
        starts[i] = at;
        at += lengths[k + i];
      }
      offsets = starts;
    }
    this.offsets.push(offsets);
    this.blocks.push(text.substring(pos, pos + length));
    return length;
  }

  finish(): Vector {
    if (this.numbers?.typed) return this.numbers.finish(this.count);
    if (this.numbers) this.fromNumbers();
    if (this.index)
      return new DictionaryVector(narrowCodes(fitted(this.codes!, this.count), this.table.length), this.table);
    if (this.block.length > 0) this.closeBlock();
    const nulls = this.nulls?.subarray(0, (this.count + 7) >>> 3);
    return new PackedTextVector(this.blocks, this.offsets, nulls, this.count);
  }

  /** Adds the cells held as numbers again, as text. */
  private fromNumbers(): void {
    const count = this.count;
    const numbers = this.numbers!;
    const added = numbers.typed ? numbers.finish(count) : undefined;
    this.numbers = undefined;
    this.count = 0;
    for (let r = 0; r < count; r++) this.add(added ? (added.get(r) as string | null) : numbers.untypedAt(r));
  }

  private repeatsTooLittle(distinct: number): boolean {
    return distinct > DICTIONARY_LIMIT || (distinct === DICTIONARY_PROBE && this.count < 2 * DICTIONARY_PROBE);
  }

  private setNull(r: number): void {
    if (!this.nulls) this.nulls = new Uint8Array((this.capacity + 7) >>> 3);
    this.nulls[r >>> 3] |= 1 << (r & 7);
  }

  private pack(v: string): void {
    this.block.push(v);
    this.blockLength += v.length;
    if (this.block.length === BLOCK) this.closeBlock();
  }

  private closeBlock(): void {
    this.offsets.push(offsetsOf(this.block, this.blockLength));
    this.blocks.push(this.block.join(''));
    this.block = [];
    this.blockLength = 0;
  }

  /** Packs the rows before `r`, read from the dictionary. */
  private toPacked(r: number): void {
    const { codes, table } = this;
    this.index = undefined;
    this.codes = undefined;
    for (let k = 0; k < r; k++) {
      const v = table[codes![k]];
      if (v === null) this.setNull(k);
      this.pack(v ?? '');
    }
    this.table = [null];
  }

  private grow(): void {
    // A dictionary past its probe repeats: sized for the expected rows from then on.
    this.capacity = Math.max(Math.ceil(this.capacity * 1.5), this.codes ? this.expected : 0);
    const grown = <T extends Uint32Array | Uint8Array>(a: T, length: number): T => {
      const out = new (a.constructor as new (n: number) => T)(length);
      out.set(a);
      return out;
    };
    if (this.codes) this.codes = grown(this.codes, this.capacity);
    if (this.nulls) this.nulls = grown(this.nulls, (this.capacity + 7) >>> 3);
  }
}
