import type Database from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { cancelled } from '../errors';
import type { BulkRows } from './engine';
import { sqliteEncoder, type SqliteValue } from './values';

/**
 * Rows written to SQLite a chunk to a statement. A statement's own work (stepping, resetting, its
 * statement journal) is about 40 % of a single-row insert of eight values, so `INSERT … VALUES (…),
 * (…), …` of 64 rows wrote a million rows 1.3–1.7× as fast as one prepared single-row INSERT per row
 * (docs/databases.md). Chunks are written with INSERT OR ABORT: a chunk either writes every row or
 * nothing, and a chunk that fails is written again row by row, where the statements of before decide
 * (a conflict an upsert turns into an update, a row a table's ON CONFLICT IGNORE skips, the error of
 * the failing row).
 */

const CHUNK_ROWS = 64;

/**
 * Values bound to a chunk statement: the wider the rows, the more binding costs beside a statement's
 * own work, and the less a chunk saves (1.2× at 40 columns, nothing at 128), so wide rows get fewer
 * rows a chunk, and none past about 100 columns. Far under SQLite's bound-parameter limit (32766).
 */
const CHUNK_VALUES = 1024;

/** Fewer rows than this to a chunk would not be faster than row by row. */
const MIN_CHUNK_ROWS = 10;

/** After a chunk fails, at most this many chunks are written row by row before trying one again. */
const MAX_SKIPPED_CHUNKS = 64;

/** Rows a chunk statement of `width` columns writes; 0: the rows are too wide for chunks. */
export function chunkRows(width: number): number {
  const rows = Math.min(CHUNK_ROWS, Math.floor(CHUNK_VALUES / width));
  return rows < MIN_CHUNK_ROWS ? 0 : rows;
}

/** The VALUES list of `rows` rows of `width` parameters: `(?, ?), (?, ?)`. */
export function valuesRows(width: number, rows: number): string {
  const row = `(${new Array<string>(width).fill('?').join(', ')})`;
  return new Array<string>(rows).fill(row).join(', ');
}

/** How rows go into one table: one row by a statement, and `rows` rows by one INSERT OR ABORT. */
export interface RowWriter {
  /** Writes one row, its values in `args`. */
  row(args: SqliteValue[]): void;
  /** The chunk's rows; undefined: every row is written by `row`. */
  chunk?: {
    rows: number;
    /** Writes `rows` rows, their values one after the other in `args`, and returns the rows inserted; throws, having written none, when one fails. */
    write(args: SqliteValue[]): number;
  };
}

/**
 * Writes the rows, whole chunks through `writer.chunk` and the rest through `writer.row`, with a turn
 * of the event loop (where `signal` is checked) about every `turnRows` rows. A failed chunk is
 * written again row by row, and so are the chunks after it, twice as many on each failure in a row:
 * a stream of updates fails nearly every chunk an upsert tries.
 */
export async function writeRows(
  db: Database.Database,
  { data, ordinals }: BulkRows,
  writer: RowWriter,
  turnRows: number,
  signal: AbortSignal,
): Promise<void> {
  // Cells read from each column's storage row by row: a typed column is not turned into objects whole.
  const values = ordinals.map((o) => data.vector(o));
  const encoders = ordinals.map((o) => sqliteEncoder(data.columns[o].type));
  const width = values.length;
  const encode = (r: number, args: SqliteValue[], at: number): void => {
    for (let c = 0; c < width; c++) {
      const v = values[c].get(r);
      const encoder = encoders[c];
      args[at + c] = v === null ? null : encoder ? encoder(v) : (v as SqliteValue);
    }
  };
  const chunk = writer.chunk;
  const size = chunk?.rows ?? 1;
  const one = new Array<SqliteValue>(width);
  const many = new Array<SqliteValue>(width * size);
  // A turn between whole chunks.
  const perTurn = Math.max(1, Math.round(turnRows / size)) * size;
  const inTransaction = db.inTransaction;
  let skip = 0;
  let penalty = 1;
  for (let start = 0; start < data.rowCount; start += perTurn) {
    const end = Math.min(start + perTurn, data.rowCount);
    for (let r = start; r < end;) {
      const stop = Math.min(r + size, end);
      if (chunk && stop - r === size && skip === 0) {
        for (let i = 0; i < size; i++) encode(r + i, many, i * width);
        try {
          chunk.write(many);
          penalty = 1;
          r = stop;
          continue;
        } catch (e) {
          // A RAISE(ROLLBACK) or an ON CONFLICT ROLLBACK ended the transaction, rows before the chunk's
          // with it: row by row, the failing row would have done the same, with this error.
          if (inTransaction && !db.inTransaction) throw e;
          skip = penalty;
          penalty = Math.min(penalty * 2, MAX_SKIPPED_CHUNKS);
        }
      } else if (skip > 0) skip--;
      for (; r < stop; r++) {
        encode(r, one, 0);
        writer.row(one);
      }
    }
    if (end < data.rowCount) {
      await nextTurn();
      if (signal.aborted) throw cancelled();
    }
  }
}
