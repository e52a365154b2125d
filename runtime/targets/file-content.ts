import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { writeParquetFile } from '../parquet/writer-thread';
import type { DocFormat } from '../script/ast';
import { documentChunks, documentWriter, type DocumentWriter } from '../writers';
import { textWriter } from '../writers/cells';
import type { DriveOutput } from './drive-options';

/**
 * One file's content from its rows (docs/drives.md, "Formats"). Text formats stream through
 * `documentChunks`, so a file of any size is written holding one piece of about 64K characters.
 * `single`: the file holds one row (FILE_PER_ROW), so JSON writes that row's object, not an array.
 * `signal` (Ctrl-C, the kernel's interrupt) stops a write between pieces or row groups.
 */
export async function writeContent(
  file: string,
  rows: Dataset,
  out: DriveOutput,
  column: number | undefined,
  single: boolean,
  signal: AbortSignal,
): Promise<void> {
  if (out.format === 'PARQUET') return writeParquetFile(rows, file, out.parquet!, signal);
  if (column !== undefined) return stream(file, fieldValues(rows, column, out), signal);
  const writer = textDocument(rows, out, single);
  await stream(file, documentChunks(rows, writer), signal);
}

async function stream(file: string, chunks: Iterable<string | Uint8Array>, signal: AbortSignal): Promise<void> {
  try {
    await pipeline(Readable.from(chunks), createWriteStream(file), { signal });
  } catch (e) {
    if (signal.aborted) throw new ScriptError('cancelled', 'cancelled');
    throw e;
  }
}

/** The framing a statement's options give each text format. */
function textDocument(rows: Dataset, out: DriveOutput, single: boolean): DocumentWriter {
  const all = rows.columns.map((_, i) => i);
  const base = (format: DocFormat) => documentWriter(format, rows.columns, all, out.cells);
  switch (out.format) {
    case 'CSV':
      return base('CSV');
    case 'NDJSON':
      return { ...base('JSON'), framing: { open: '', separator: '', terminator: '\n', close: '' } };
    case 'JSON': {
      const w = base('JSON');
      const [open, close] = single ? ['', ''] : ['[', ']'];
      const key = out.rootNode === undefined ? undefined : JSON.stringify(out.rootNode);
      return {
        ...w,
        framing: { ...w.framing, open: key ? `{${key}:${open}` : open, close: key ? `${close}}` : close },
      };
    }
    case 'XML': {
      const w = documentWriter('XML', rows.columns, all, { ...out.cells, element: out.element });
      const root = out.rootNode ?? 'root';
      return {
        ...w,
        framing: { ...w.framing, open: `<?xml version="1.0" encoding="utf-8"?><${root}>`, close: `</${root}>` },
      };
    }
    case 'RAW':
    case 'PARQUET':
      throw new Error(`no text document for ${out.format}`);
  }
}

/**
 * COLUMN '<field>' (and RAW): each row's value of the field, one after the other, as the file: bytes
 * as they are, text as UTF-8, other types as their text. A ZIP COLUMN document becomes its file.
 */
function* fieldValues(rows: Dataset, column: number, out: DriveOutput): Generator<string | Uint8Array> {
  const values = rows.vector(column);
  const text = textWriter(rows.columns[column].type, out.cells);
  for (let r = 0; r < rows.rowCount; r++) {
    const v: Value = values.get(r);
    if (v === null) continue;
    yield v instanceof Uint8Array ? v : text(v);
  }
}

/** The ordinal of COLUMN, or of the only column of a RAW dataset; undefined for formats written from every column. */
export function contentColumn(rows: Dataset, out: DriveOutput): number | undefined {
  if (out.column) {
    const i = rows.indexOf(out.column.value);
    if (i < 0)
      throw new ScriptError(
        `COLUMN '${out.column.value}': unknown column (columns: ${rows.columns.map((c) => c.name).join(', ') || '(none)'})`,
        'runtime',
        out.column.pos,
      );
    return i;
  }
  if (out.format !== 'RAW') return undefined;
  if (rows.columns.length === 1) return 0;
  throw new ScriptError(
    `FORMAT RAW writes one field's values: add COLUMN '<field>' (the dataset has ${rows.columns.length} columns)`,
    'semantic',
  );
}
