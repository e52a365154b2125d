import { join } from 'node:path';
import { Dataset } from '../../dataset/dataset';
import type { Column } from '../../dataset/types';
import { postable, received, transferables, type ThreadColumn } from '../../dataset/thread-wire';
import { ThreadCall } from '../../util/thread-call';
import { parseAnswer } from '../http/answer';
import { transformParsed, transformText, type TxOptions, type TxPlan } from '../tx';
import { shapeText, type FileFormat, type FileShape } from './load';

/**
 * Documents this long (characters) or longer are shaped in a worker thread: a smaller one is shaped in
 * less time than a thread takes to start (about 85 ms), and a larger one would hold the event loop.
 */
const OFF_THREAD_CHARS = 1 << 20;

/** A document to shape: a file's text (SELECT FROM DRIVE), an HTTP answer and its APPLY TX path, or a cell's text (APPLY TX). */
export type ShapeRequest =
  | { of: 'file'; text: string; format: FileFormat; shape: FileShape; display: string }
  | { of: 'answer'; text: string; mediaType: string; call: string; plan: DocumentPlan; options: TxOptions }
  | { of: 'text'; text: string; plan: TxPlan; options: TxOptions };

type DocumentPlan = Extract<TxPlan, { kind: 'path' }>;

/** The rows of a document, wherever it is shaped. */
export function shapeHere(request: ShapeRequest): Dataset {
  if (request.of === 'file') return shapeText(request.text, request.format, request.shape, request.display);
  if (request.of === 'text') return transformText(request.text, request.plan, request.options);
  const { text, mediaType, call, plan, options } = request;
  const { root, kind } = parseAnswer(text, mediaType, call, options.floatDecimal);
  return transformParsed(root, kind, plan, { ...options, source: call, mediaType });
}

/** A shaped document as the thread posts it (dataset/thread-wire.ts); decimal cells as their text, with their scale. */
export interface Shaped {
  columns: Column[];
  wire: ThreadColumn[];
  rows: number;
}

const shaper = new ThreadCall<ShapeRequest, Shaped>(join(__dirname, 'shape-worker.js'));

/**
 * The rows of a document (shapeHere). Parsing one is synchronous (JSON.parse, xmldom, the CSV parser)
 * and takes seconds for tens of megabytes, so a large one is shaped in a worker thread that `signal`
 * (Ctrl-C, the kernel's interrupt) ends.
 */
export async function shapeDocument(request: ShapeRequest, signal: AbortSignal): Promise<Dataset> {
  if (request.text.length < OFF_THREAD_CHARS) return shapeHere(request);
  const { columns, wire, rows } = await shaper.call(request, nameOf(request), signal);
  return new Dataset(
    columns,
    wire.map((w, c) => received(columns[c].type, w)),
    rows,
  );
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

/** In the thread: a shaped dataset in its posted form. */
export function shapedOf(ds: Dataset): Shaped {
  const wire = ds.columns.map((column, c) => postable(column.type, ds.column(c)));
  return { columns: ds.columns, wire, rows: ds.rowCount };
}

export function shapedTransferables(shaped: Shaped): ArrayBuffer[] {
  return shaped.wire.flatMap(transferables);
}
