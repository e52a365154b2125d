import type { Dataset } from '../dataset/dataset';
import { textView, type Vector } from '../dataset/vector';
import type { DocFormat } from '../script/ast';
import { documentWriter, type DocumentWriter } from './documents';
import type { WriterOptions } from './options';

/**
 * A dataset written as one document, whole or in pieces. The pieces are what a large SINK streams:
 * `Readable.from(documentChunks(…))` piped to a file or a request holds one piece at a time, so
 * memory stays bounded whatever the row count; joined, they are exactly the one-shot text.
 */

/** About 64K characters a piece: few writes, little held. */
const CHUNK_CHARS = 1 << 16;

export function* documentChunks(
  ds: Dataset,
  writer: DocumentWriter,
  chunkChars = CHUNK_CHARS,
): Generator<string, void, undefined> {
  const { open, separator, terminator, close } = writer.framing;
  const between = terminator + separator;
  // Typed datetimes and decimals are read as their text: no Date or Decimal made per cell.
  const views = new Map<number, Vector>();
  writer.ordinals.forEach((o, k) => {
    const view = writer.textual[k] ? textView(ds.vector(o), ds.columns[o].type) : undefined;
    if (view) views.set(o, view);
  });
  const record = views.size > 0 ? writer.withTexts(writer.ordinals.map((o) => views.has(o))) : writer.record;
  const read = ds.reader(writer.ordinals, views);
  // Text owed before the next records: the opening, then the separator after a piece of records.
  let head = open;
  let started = false;
  let records: string[] = [];
  let size = 0;
  for (let r = 0; r < ds.rowCount; r++) {
    const text = record(read(r));
    records.push(text);
    size += text.length;
    if (size >= chunkChars) {
      yield head + records.join(between) + terminator;
      head = separator;
      started = true;
      records = [];
      size = 0;
    }
  }
  const body = records.length > 0 ? head + records.join(between) + terminator : started ? '' : open;
  if (body + close !== '') yield body + close;
}

/** The whole document as one string (the CLI's --output, payloads of a few rows). */
export function documentText(ds: Dataset, writer: DocumentWriter): string {
  return [...documentChunks(ds, writer, Infinity)].join('');
}

/** Every column of every row as one document of `format`. */
export function datasetText(ds: Dataset, format: DocFormat, options: WriterOptions): string {
  return documentText(
    ds,
    documentWriter(
      format,
      ds.columns,
      ds.columns.map((_, i) => i),
      options,
    ),
  );
}
