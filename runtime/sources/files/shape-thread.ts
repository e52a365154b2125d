import { join } from 'node:path';
import { Dataset } from '../../dataset/dataset';
import type { Column } from '../../dataset/types';
import { postable, received, transferables, type ThreadColumn } from '../../dataset/thread-wire';
import { ThreadCall } from '../../util/thread-call';
import { valueAtPath } from '../../docpath';
import { ScriptError, type ErrorKind, type Position } from '../../errors';
import { parseAnswer } from '../http/answer';
import { transformParsed, transformText, type TxOptions, type TxPlan } from '../tx';
import { shapeText, type FileFormat, type FileShape } from './load';

/**
 * Documents this long (characters) or longer are shaped in a worker thread: a smaller one is shaped in
 * less time than a thread takes to start (about 85 ms), and a larger one would hold the event loop.
 */
const OFF_THREAD_CHARS = 1 << 20;

/**
 * A document to shape: a file's text (SELECT FROM DRIVE), an HTTP answer and its APPLY TX path (and
 * the PAGING_PATH the pager reads in it), or a cell's text (APPLY TX).
 */
export type ShapeRequest =
  | { of: 'file'; text: string; format: FileFormat; shape: FileShape; display: string }
  | {
      of: 'answer';
      text: string;
      mediaType: string;
      call: string;
      plan: DocumentPlan;
      options: TxOptions;
      paging?: { path: string; pos?: Position };
    }
  | { of: 'text'; text: string; plan: TxPlan; options: TxOptions };

/** The value at an answer's PAGING_PATH as the thread read it, or the error reading it met (thrown where the pager asks). */
export type PagingValue =
  { value: string | null } | { error: { message: string; kind: ErrorKind; position?: Position } };

type DocumentPlan = Extract<TxPlan, { kind: 'path' }>;

/** The rows of a document, wherever it is shaped. */
export function shapeHere(request: ShapeRequest): Dataset {
  return shapeWithPaging(request).rows;
}

/** The rows of a document, and the value at an answer's PAGING_PATH (read from the same parsed document). */
function shapeWithPaging(request: ShapeRequest): { rows: Dataset; paged?: PagingValue } {
  if (request.of === 'file') return { rows: shapeText(request.text, request.format, request.shape, request.display) };
  if (request.of === 'text') return { rows: transformText(request.text, request.plan, request.options) };
  const { text, mediaType, call, plan, options, paging } = request;
  const { root, kind } = parseAnswer(text, mediaType, call, options.floatDecimal);
  const rows = transformParsed(root, kind, plan, { ...options, source: call, mediaType });
  if (!paging) return { rows };
  try {
    return { rows, paged: { value: valueAtPath(root, kind, paging.path, paging.pos) } };
  } catch (e) {
    if (!(e instanceof ScriptError)) throw e;
    return { rows, paged: { error: { message: e.message, kind: e.kind, position: e.position } } };
  }
}

/** A shaped document as the thread posts it (dataset/thread-wire.ts); decimal cells as their text, with their scale. */
export interface Shaped {
  columns: Column[];
  wire: ThreadColumn[];
  rows: number;
  paged?: PagingValue;
}

const shaper = new ThreadCall<ShapeRequest, Shaped>(join(__dirname, 'shape-worker.js'));

/**
 * The rows of a document (shapeHere). Parsing one is synchronous (JSON.parse, the XML reader, the CSV parser)
 * and takes seconds for tens of megabytes, so a large one is shaped in a worker thread that `signal`
 * (Ctrl-C, the kernel's interrupt) ends.
 */
export async function shapeDocument(request: ShapeRequest, signal: AbortSignal): Promise<Dataset> {
  return (await shapePaged(request, signal)).rows;
}

/**
 * shapeDocument, and for an answer with `paging` the value at its PAGING_PATH: undefined when the
 * answer was shaped here (the caller's own parse of it is as cheap), so it is asked only of a large one.
 */
export async function shapePaged(
  request: ShapeRequest,
  signal: AbortSignal,
): Promise<{ rows: Dataset; paged?: PagingValue }> {
  if (request.text.length < OFF_THREAD_CHARS) return { rows: shapeHere(request) };
  const { columns, wire, rows, paged } = await shaper.call(request, nameOf(request), signal);
  return {
    rows: new Dataset(
      columns,
      wire.map((w, c) => received(columns[c].type, w)),
      rows,
    ),
    paged,
  };
}

/** transformColumn's shaping of each cell's document with `plan`: a large one in the thread. */
export function cellShaper(plan: TxPlan, signal: AbortSignal): (text: string, options: TxOptions) => Promise<Dataset> {
  return (text, options) => shapeDocument({ of: 'text', text, plan, options }, signal);
}

/** What names the document in a message. */
export function nameOf(request: ShapeRequest): string {
  if (request.of === 'text') return request.options.source ?? 'the document';
  return request.of === 'file' ? request.display : request.call;
}

/** In the thread: a shaped document in its posted form. */
export function shapedOf(request: ShapeRequest): Shaped {
  const { rows: ds, paged } = shapeWithPaging(request);
  const wire = ds.columns.map((column, c) => postable(column.type, ds.column(c)));
  return { columns: ds.columns, wire, rows: ds.rowCount, paged };
}

export function shapedTransferables(shaped: Shaped): ArrayBuffer[] {
  return shaped.wire.flatMap(transferables);
}
