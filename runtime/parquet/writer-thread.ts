import { join } from 'node:path';
import { Dataset } from '../dataset/dataset';
import {
  columnArrays,
  copyColumn,
  isText,
  postable,
  received,
  textInSlices,
  typedColumn,
  type ThreadColumn,
  type TypedColumn,
} from '../dataset/thread-wire';
import type { Column, ColumnType } from '../dataset/types';
import { VectorBuilder, type Vector } from '../dataset/vector';
import { ThreadCall } from '../util/thread-call';
import { arenaBytes, SharedArena } from '../util/shared-arena';
import { inTurns, turnOrCancel } from '../util/turn';
import { writeParquet, type ParquetOptions } from './write';

/** A Parquet file to write in the thread: the dataset in its posted form (dataset/thread-wire.ts). */
export interface WriteRequest {
  file: string;
  columns: Column[];
  wire: ThreadColumn[];
  rows: number;
  options: ParquetOptions;
}

/**
 * Datasets of fewer cells are written where the statement runs: encoding them takes less time than a
 * thread takes to start (about 85 ms).
 */
const OFF_THREAD_CELLS = 100_000;

/** What a failure of the thread calls the file (`file` is a staged copy, whose name means nothing to the user). */
export const DISPLAY = 'the Parquet file';

const writer = new ThreadCall<WriteRequest, void>(join(__dirname, 'write-worker.js'), 'write');

/**
 * Where typed columns go to the thread: a post would copy them into memory never used before, half a
 * second of page faults in one go for a million rows × 6.
 */
const arena = new SharedArena();

/**
 * Writes `ds` as a Parquet file at `file` (write.ts). hyparquet-writer encodes a row group
 * synchronously (0.6-2.4 s for 100,000 rows), which would leave Ctrl-C, the kernel's interrupt and
 * heartbeat no turn, so a large dataset is written in a worker thread that `signal` ends; the caller
 * removes the file it left. Getting the columns there takes turns too: typed columns are copied into
 * shared memory in slices, text is joined in slices.
 */
export async function writeParquetFile(
  ds: Dataset,
  file: string,
  options: ParquetOptions,
  signal: AbortSignal,
): Promise<void> {
  if (ds.rowCount * ds.columns.length < OFF_THREAD_CELLS) return writeParquet(ds, file, options, signal);
  const columns: ThreadColumn[] = [];
  for (let c = 0; c < ds.columns.length; c++) {
    const { type } = ds.columns[c];
    const vector = await stored(type, ds.vector(c), signal);
    columns.push(typedColumn(vector) ?? (await untyped(type, vector, signal)));
  }
  const typed = columns.filter(isTyped);
  const memory = arena.writer(arenaBytes(typed.flatMap(columnArrays)));
  try {
    const wire = columns.map((c) => (isTyped(c) ? copyColumn(c, memory.place) : c));
    await inTurns(memory.fill(), signal);
    await writer.call({ file, columns: ds.columns, wire, rows: ds.rowCount, options }, DISPLAY, signal);
  } finally {
    // The thread has answered or stopped (ThreadCall): nothing reads the memory any more.
    memory.giveBack();
  }
}

/** A column without typed storage as it posts: text joined in slices with turns, other cells as `postable` makes them. */
async function untyped(type: ColumnType, vector: Vector, signal: AbortSignal): Promise<ThreadColumn> {
  if (!isText(type)) return postable(type, vector.values());
  return (await inTurns(textInSlices(vector), signal)) ?? { kind: 'values', values: vector.values() };
}

function isTyped(c: ThreadColumn): c is TypedColumn {
  return c.kind !== 'text' && c.kind !== 'values';
}

/** Rows converted between two turns of the event loop. */
const SLICE = 1 << 16;

/**
 * `vector` in the typed storage of `type` where its cells fit one (what posts as arrays, not cells:
 * a plain array of a million decimals would go as a million texts), built a slice at a time with
 * turns between.
 */
async function stored(type: ColumnType, vector: Vector, signal: AbortSignal): Promise<Vector> {
  await turnOrCancel(signal);
  if (typedColumn(vector)) return vector;
  const builder = new VectorBuilder(type, vector.length);
  for (let r = 0; r < vector.length; r++) {
    if (r % SLICE === SLICE - 1) await turnOrCancel(signal);
    builder.set(r, vector.get(r));
  }
  return builder.finish();
}

/** In the thread: the dataset of a request. */
export function requestedDataset(request: WriteRequest): Dataset {
  const { columns, wire, rows } = request;
  return new Dataset(
    columns,
    wire.map((w, c) => received(columns[c].type, w)),
    rows,
  );
}
