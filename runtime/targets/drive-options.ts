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

/** Which formats each option applies to: an option the format would ignore is an error, not a surprise. */
const TEXT: DriveFormat[] = ['CSV', 'JSON', 'NDJSON', 'XML', 'RAW'];
const APPLIES: Partial<Record<keyof DriveWriteOptions, { name: string; formats: DriveFormat[] }>> = {
  addHeader: { name: 'ADD_HEADER', formats: ['CSV'] },
  delimiter: { name: 'DELIMITER', formats: ['CSV'] },
  forceQuoted: { name: 'FORCE_QUOTED', formats: ['CSV'] },
  fixedLength: { name: 'FIXED_LENGTH', formats: ['CSV'] },
  commentTokens: { name: 'COMMENT_TOKENS', formats: ['CSV'] },
  dateFormat: { name: 'DATE_FORMAT', formats: TEXT },
  trim: { name: 'TRIM', formats: TEXT },
  flatten: { name: 'FLATTEN', formats: TEXT },
  rootNode: { name: 'ROOT_NODE', formats: ['JSON', 'XML'] },
  element: { name: 'ELEMENT', formats: ['XML'] },
  column: { name: 'COLUMN', formats: ['JSON', 'XML', 'RAW'] },
  compression: { name: 'COMPRESSION', formats: ['PARQUET'] },
  rowsPerGroup: { name: 'ROWS_PER_GROUP', formats: ['PARQUET'] },
};

function checkApplies(format: DriveFormat, o: DriveWriteOptions, pos: Text['pos']): void {
  for (const [key, rule] of Object.entries(APPLIES) as [
    keyof DriveWriteOptions,
    { name: string; formats: DriveFormat[] },
  ][]) {
    const v = o[key];
    if (v === undefined || v === false || rule.formats.includes(format)) continue;
    const at = typeof v === 'object' ? v.pos : pos;
    throw new ScriptError(
      `${rule.name} applies to ${rule.formats.join(', ')} files; this file is ${format}`,
      'semantic',
      at,
    );
  }
}

export function driveOutput(format: DriveFormat, o: DriveWriteOptions, scope: Scope, pos: Text['pos']): DriveOutput {
  checkApplies(format, o, pos);
  const cells = writerOptions({
    header: o.addHeader,
    quoting: o.forceQuoted ? 'always' : 'needed',
    trim: o.trim,
    flatten: o.flatten,
  });
  if (o.delimiter) cells.delimiter = delimiter(o.delimiter);
  if (o.fixedLength) {
    cells.widths = widths(o.fixedLength);
    cells.widthsFrom = { name: `FIXED_LENGTH '${o.fixedLength.value}'`, pos: o.fixedLength.pos };
  }
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
  if (!XML_NAME.test(element))
    throw new ScriptError(`ELEMENT '${element}' is not an XML element name`, 'semantic', o.element!.pos);
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
    if (!Number.isInteger(n) || n < 1)
      throw new ScriptError(
        `FIXED_LENGTH '${text.value}': '${w.trim()}' is not a width of at least 1`,
        'semantic',
        text.pos,
      );
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
