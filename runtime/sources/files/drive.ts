import { resolve } from 'node:path';
import type { Dataset } from '../../dataset/dataset';
import { ScriptError, type Position } from '../../errors';
import type { DriveFormat } from '../../script/ast';
import { isCsvOptions, parseCsvOptions, DEFAULT_CSV, type CsvOptions } from '../csv/options';
import { readParquetFile } from '../../parquet/read';
import type { Drive } from '../../drives/drive';
import { displayPath, expandGlob, globSource, isGlob, PATH_GLOB } from './glob';
import { formatOf, readCsvFile, readText, shapeText, sniffFormat, type FileFormat, type FileShape } from './load';
import { shapeDocument } from './shape-thread';
import { redactUrlsIn } from '../../workspace/redact';

/** A SELECT FROM DRIVE with its texts evaluated. */
export interface DriveRead {
  /** Folder relative paths resolve against: the working directory or the connection's root. */
  base: string;
  /** File path or glob as written (evaluated). */
  pattern: string;
  format?: DriveFormat;
  /** OPTIONS text (CSV). */
  options?: string;
  /** APPLY TX text: a document path, or CSV options. */
  tx?: string;
  /** Where the APPLY TX text is written in the script, for the errors of its path. */
  txPos?: Position;
  rawCol?: string;
  floatDecimal: boolean;
}

/** One file found by a read. */
export interface DriveFile {
  full: string;
  /** The path shown in messages (relative to the base folder). */
  display: string;
}

/** The files a read names: the one file (which must exist) or every match of a glob (maybe none). */
export async function driveFiles(read: DriveRead): Promise<DriveFile[]> {
  // Shown as written, but for a URL's password (`ftp://user:password@host/a.csv`, meant for a drive).
  if (!isGlob(read.pattern)) return [{ full: resolve(read.base, read.pattern), display: redactUrlsIn(read.pattern) }];
  const files = await expandGlob(read.base, read.pattern);
  return files.map((full) => ({ full, display: displayPath(read.base, full) }));
}

/**
 * The files a read names on a remote drive (an FTP site, an S3 bucket), relative to its folder: the one file, or a
 * glob's matches in name order. A listing is of one folder, so wildcards stand in the file name only.
 */
export async function remoteFiles(drive: Drive, pattern: string): Promise<string[]> {
  if (!isGlob(pattern)) return [pattern];
  const at = pattern.lastIndexOf('/');
  const folder = pattern.slice(0, Math.max(at, 0));
  if (isGlob(folder))
    throw new ScriptError(`on ${drive.label}, wildcards go in the file name only, not in '${folder}'`, 'semantic');
  const name = new RegExp(`^${globSource(pattern.slice(at + 1), PATH_GLOB)}$`);
  const entries = await drive.list(folder || '.');
  return entries
    .filter((e) => name.test(e.name))
    .map((e) => (folder ? `${folder}/${e.name}` : e.name))
    .sort();
}

/** Reads one file of a remote drive through a local copy, removed once read. */
export async function readRemoteFile(
  drive: Drive,
  path: string,
  read: DriveRead,
  signal: AbortSignal,
): Promise<Dataset> {
  formatOf(path, read.format);
  let copy: { file: string; done(): void };
  try {
    copy = await drive.fetch(path, signal);
  } catch (e) {
    if (signal?.aborted) throw e;
    // FTP answers 550 both for a missing file and for one it will not send, S3 403 without list rights: ask which it is.
    const missing = await drive.exists(path).then(
      (found) => !found,
      () => false,
    );
    if (missing) throw new ScriptError(`file not found: ${path} on ${drive.label}`, 'runtime');
    throw e;
  }
  try {
    return await readDriveFile({ full: copy.file, display: path }, read, signal);
  } finally {
    copy.done();
  }
}

/** Reads one file into a dataset, shaped by the read's FORMAT, OPTIONS and APPLY TX. */
export async function readDriveFile(file: DriveFile, read: DriveRead, signal: AbortSignal): Promise<Dataset> {
  const format = formatOf(file.display, read.format);
  if (format === 'PARQUET') {
    if (read.tx !== undefined || read.options !== undefined)
      throw new ScriptError(
        `${file.display} is read as PARQUET: its columns come from the file, without OPTIONS or APPLY TX`,
        'semantic',
      );
    return readParquetFile(file.full, file.display, signal);
  }
  return readTextFile(file, read, format, signal);
}

async function readTextFile(
  file: DriveFile,
  read: DriveRead,
  fileFormat: FileFormat,
  signal: AbortSignal,
): Promise<Dataset> {
  let format = fileFormat;
  const docPath = read.tx !== undefined && !isCsvOptions(read.tx) ? read.tx : undefined;
  if (docPath !== undefined && format === 'CSV')
    throw new ScriptError(
      `APPLY TX '${docPath}' is a document path; CSV files take CSV options ('headers:1 delimiter:;')`,
      'semantic',
    );
  if (read.tx !== undefined && docPath === undefined) format = 'CSV';
  if (format === 'CSV') return readCsvFile(file.full, file.display, csvOptionsOf(read, file.full), signal);
  const text = await readText(file.full, file.display, signal);
  if (docPath !== undefined && format === 'RAW') format = sniffFormat(text, file.display);
  if (read.options !== undefined)
    throw new ScriptError(`OPTIONS are CSV reading options; ${file.display} is read as ${format}`, 'semantic');
  const shape: FileShape = {
    csv: DEFAULT_CSV,
    path: docPath ?? '$',
    pos: read.txPos,
    rawCol: read.rawCol,
    floatDecimal: read.floatDecimal,
  };
  if (format === 'RAW') return shapeText(text, format, shape, file.display);
  return shapeDocument({ of: 'file', text, format, shape, display: file.display }, signal);
}

function csvOptionsOf(read: DriveRead, full: string): CsvOptions {
  const text = read.tx !== undefined && isCsvOptions(read.tx) ? read.tx : read.options;
  const options = text !== undefined ? parseCsvOptions(text) : { ...DEFAULT_CSV };
  // A .tsv file is tab-separated unless the options say otherwise.
  if (full.toLowerCase().endsWith('.tsv') && !/\bdelimiter:/i.test(text ?? '')) options.delimiter = '\t';
  return options;
}
