import { ScriptError } from '../errors';
import { formatDate } from '../functions/dotnet-format/date';
import { evaluateText } from '../functions/evaluate';
import { parquetOptions, type ParquetOptions } from '../parquet/write';
import type { DriveFormat, DriveWriteOptions, Text } from '../script/ast';
import type { Scope } from '../scope';
import { writerOptions, type WriterOptions } from '../writers';

/** The options of a SINK/PUSH INTO DRIVE, checked and evaluated once before any file is written. */
export interface DriveOutput {
  format: DriveFormat;
  cells: WriterOptions;
  parquet?: ParquetOptions;
  /** JSON: the documents sit under this key; XML: the root element (default `root`). */
  rootNode?: string;
  /** XML: the element of each row (default `row`). */
  element: string;
  /** The field whose value is the whole file content (JSON/XML/RAW). */
  column?: Text;
  filePerRow: boolean;
  /** The datetime column whose day files are grouped by. */
  dateField?: Text;
  /** The folder (under the drive's root) the files go in. */
  container?: string;
  file?: Text;
}

const XML_NAME = /^[\p{L}_][\p{L}\p{N}_.-]*$/u;

/** Which options a format takes, so an option the format ignores is an error rather than a surprise. */
const CSV_ONLY: (keyof DriveWriteOptions)[] = ['addHeader', 'delimiter', 'forceQuoted', 'fixedLength', 'commentTokens'];
const PARQUET_ONLY: (keyof DriveWriteOptions)[] = ['compression', 'rowsPerGroup'];
const NAMES: Partial<Record<keyof DriveWriteOptions, string>> = {
  addHeader: 'ADD_HEADER',
  delimiter: 'DELIMITER',
  forceQuoted: 'FORCE_QUOTED',
  fixedLength: 'FIXED_LENGTH',
  commentTokens: 'COMMENT_TOKENS',
  compression: 'COMPRESSION',
  rowsPerGroup: 'ROWS_PER_GROUP',
};

export function driveOutput(format: DriveFormat, o: DriveWriteOptions, scope: Scope, pos: Text['pos']): DriveOutput {
  const given = (k: keyof DriveWriteOptions) => o[k] !== undefined && o[k] !== false;
  for (const k of format === 'CSV' ? [] : CSV_ONLY) if (given(k)) throw new ScriptError(`${NAMES[k]} is a CSV option; this file is ${format}`, 'semantic', pos);
  for (const k of format === 'PARQUET' ? [] : PARQUET_ONLY) if (given(k)) throw new ScriptError(`${NAMES[k]} is a Parquet option; this file is ${format}`, 'semantic', pos);
  if (format === 'PARQUET' && o.column)
    throw new ScriptError("COLUMN writes a field's value as the file; a Parquet file is written from the columns (use FORMAT RAW)", 'semantic', o.column.pos);
  const cells = writerOptions({
    header: o.addHeader,
    quoting: o.forceQuoted ? 'always' : 'needed',
    trim: o.trim,
    flatten: o.flatten,
  });
  if (o.delimiter) cells.delimiter = delimiter(o.delimiter);
  if (o.fixedLength) cells.widths = widths(o.fixedLength);
  if (o.commentTokens)
    cells.comments = o.commentTokens.value
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
  if (o.dateFormat) cells.date = dateFormat(o.dateFormat);
  const rootNode = o.rootNode && evaluateText(o.rootNode, scope);
  if (rootNode !== undefined && format === 'XML' && !XML_NAME.test(rootNode))
    throw new ScriptError(`ROOT_NODE '${rootNode}' is not an XML element name`, 'semantic', o.rootNode!.pos);
  const element = o.element ? evaluateText(o.element, scope) : 'row';
  if (o.element && format !== 'XML') throw new ScriptError(`ELEMENT names the XML element of a row; this file is ${format}`, 'semantic', o.element.pos);
  if (!XML_NAME.test(element)) throw new ScriptError(`ELEMENT '${element}' is not an XML element name`, 'semantic', o.element!.pos);
  return {
    format,
    cells,
    parquet: format === 'PARQUET' ? parquetOptions(o.compression, o.rowsPerGroup, pos) : undefined,
    rootNode,
    element,
    column: o.column,
    filePerRow: o.filePerRow,
    dateField: o.dateField,
    container: o.container && evaluateText(o.container, scope),
    file: o.file,
  };
}

/** DELIMITER ';' — `\t` is a tab. */
function delimiter(text: Text): string {
  const d = text.value.replace(/\\t/g, '\t');
  if (d === '') throw new ScriptError('DELIMITER must not be empty', 'semantic', text.pos);
  return d;
}

/** FIXED_LENGTH '10,5,8': one width per field, in field order. */
function widths(text: Text): number[] {
  return text.value.split(',').map((w) => {
    const n = Number(w.trim());
    if (!Number.isInteger(n) || n < 1) throw new ScriptError(`FIXED_LENGTH '${text.value}': '${w.trim()}' is not a width of at least 1`, 'semantic', text.pos);
    return n;
  });
}

function dateFormat(text: Text): string {
  try {
    formatDate(new Date(0), text.value, 'unspecified');
  } catch (e) {
    throw new ScriptError(`DATE_FORMAT '${text.value}': ${(e as Error).message}`, 'semantic', text.pos);
  }
  return text.value;
}
