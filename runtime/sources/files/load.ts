import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { Dataset } from '../../dataset/dataset';
import { STRING } from '../../dataset/types';
import { compilePath, DocumentError, selectDataset, sniffKind, type DocKind } from '../../docpath';
import { parseJson } from '../../docpath/json';
import { parseXml } from '../../docpath/xml';
import { ScriptError, type Position } from '../../errors';
import type { DriveFormat } from '../../script/ast';
import { CsvReader, parseCsv } from '../csv/parse';
import type { CsvOptions } from '../csv/options';

export type FileFormat = 'CSV' | 'JSON' | 'NDJSON' | 'XML' | 'RAW';

const BY_EXTENSION: Record<string, DriveFormat> = {
  '.csv': 'CSV',
  '.tsv': 'CSV',
  '.txt': 'RAW',
  '.json': 'JSON',
  '.ndjson': 'NDJSON',
  '.jsonl': 'NDJSON',
  '.xml': 'XML',
  '.parquet': 'PARQUET',
};

/** The format FORMAT names, or the one the file extension implies. */
export function formatOf(file: string, explicit: DriveFormat | undefined): DriveFormat {
  if (explicit) return explicit;
  const format = BY_EXTENSION[extname(file).toLowerCase()];
  if (!format)
    throw new ScriptError(
      `cannot tell the format of '${file}' from its extension; add FORMAT CSV|JSON|NDJSON|XML|RAW|PARQUET`,
      'semantic',
    );
  return format;
}

/** What shapes a file into rows. */
export interface FileShape {
  csv: CsvOptions;
  /** Document path for JSON, NDJSON and XML (APPLY TX); default `$`. */
  path: string;
  /** Where the APPLY TX path is written in the script: an error of the path points there, not at the file. */
  pos?: Position;
  rawCol?: string;
  floatDecimal: boolean;
}

/** A file's text, without the byte order mark an editor may have written (RAW content would keep it). */
export async function readText(full: string, display: string, signal?: AbortSignal): Promise<string> {
  try {
    const text = await readFile(full, { encoding: 'utf8', signal });
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (e) {
    throw readError(e, display, signal);
  }
}

/**
 * A CSV file read in chunks into a CsvReader: its text never sits whole in memory beside its rows
 * (docs/sources.md, "Performance").
 */
export async function readCsvFile(
  full: string,
  display: string,
  options: CsvOptions,
  signal?: AbortSignal,
): Promise<Dataset> {
  let reader: CsvReader;
  try {
    // The file's size in bytes stands for its length in characters: it sizes the column arrays.
    reader = new CsvReader(options, display, (await stat(full)).size);
    for await (const chunk of createReadStream(full, { encoding: 'utf8', highWaterMark: CHUNK, signal }))
      reader.push(chunk as string);
  } catch (e) {
    throw e instanceof ScriptError ? e : readError(e, display, signal);
  }
  return reader.end();
}

const CHUNK = 1 << 16;

function readError(e: unknown, display: string, signal: AbortSignal | undefined): ScriptError {
  if (signal?.aborted) return new ScriptError('cancelled', 'cancelled');
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new ScriptError(`file not found: ${display}`, 'runtime');
  if (code === 'EISDIR') return new ScriptError(`${display} is a folder, not a file`, 'runtime');
  if (code === 'EACCES' || code === 'EPERM')
    return new ScriptError(`cannot read ${display}: permission denied`, 'runtime');
  return new ScriptError(`cannot read ${display}: ${(e as Error).message}`, 'runtime');
}

/** The rows of one file's text. `display` names the file in errors. */
export function shapeText(text: string, format: FileFormat, shape: FileShape, display: string): Dataset {
  switch (format) {
    case 'CSV':
      return parseCsv(text, shape.csv, display);
    case 'RAW':
      return new Dataset(
        [
          { name: 'file', type: STRING },
          { name: 'content', type: STRING },
        ],
        [[display], [text]],
      );
    case 'XML':
      return select(parseXml(text, display), 'xml', shape);
    case 'JSON':
      return select(
        looksLikeLines(text)
          ? parseLines(text, display, shape.floatDecimal)
          : parseJson(text, display, 1, shape.floatDecimal),
        'json',
        shape,
      );
    case 'NDJSON':
      return select(parseLines(text, display, shape.floatDecimal), 'json', shape);
  }
}

/** The rows the shape's path selects; an error of the path (its syntax, an XPath's) is placed at the path. */
function select(root: unknown, kind: DocKind, shape: FileShape): Dataset {
  try {
    return selectDataset(root, kind, compilePath(shape.path, kind), shape);
  } catch (e) {
    throw e instanceof ScriptError && !(e instanceof DocumentError) ? e.locate(shape.pos) : e;
  }
}

/** NDJSON: one JSON value per non-blank line, read as an array of them. */
export function parseLines(text: string, display: string, floatDecimal: boolean): unknown[] {
  const out: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() !== '') out.push(parseJson(line, display, i + 1, floatDecimal));
  }
  return out;
}

/**
 * Newline-delimited JSON under FORMAT JSON or a .json name (exports and logs often come so): the first
 * non-blank line is a whole object or array by itself and more text follows it. A pretty-printed
 * document never has a complete value on its first line, so it is not mistaken for lines.
 */
export function looksLikeLines(text: string): boolean {
  const start = text.search(/\S/);
  if (start < 0 || (text[start] !== '{' && text[start] !== '[')) return false;
  const end = text.indexOf('\n', start);
  if (end < 0 || text.slice(end).trim() === '') return false;
  try {
    JSON.parse(text.slice(start, end));
    return true;
  } catch {
    return false;
  }
}

/** The document kind of a RAW text given a document path: by its first character. */
export function sniffFormat(text: string, display: string): FileFormat {
  const kind = sniffKind(text);
  if (!kind)
    throw new ScriptError(`${display} is neither JSON nor XML; APPLY TX needs a document (or CSV options)`, 'runtime');
  return kind === 'xml' ? 'XML' : 'JSON';
}
