import type { Position } from '../errors';

/**
 * What a writer is compiled with, besides the schema. One set of options for every format, so a
 * statement (FORMAT, SINK, PUSH) parses its OPTIONS once and any writer takes the keys that apply
 * to it; defaults are the invariant forms of docs/types.md and RFC 4180 CSV.
 */
export type BytesEncoding = 'ascii' | 'utf8' | 'utf32' | 'unicode' | 'base64' | 'hex';

/** CSV quoting: `needed` = RFC 4180 (fields holding the delimiter, the quote or a line break). */
export type Quoting = 'needed' | 'always' | 'never';

/** How a non-null cell becomes text, in every format. */
export interface CellOptions {
  /** String values are trimmed. */
  trim: boolean;
  /** Line breaks inside string values become a blank. */
  flatten: boolean;
  /** .NET date format for datetime cells; undefined = `s` with milliseconds when present. */
  date?: string;
  /** How byte[] cells are written (default hex, as {{field}} does, spec 2.1). */
  bytes: BytesEncoding;
}

export interface CsvOptions extends CellOptions {
  /** A header line of the field names. */
  header: boolean;
  /** Field delimiter, one or more characters. */
  delimiter: string;
  /** The quote character. */
  quote: string;
  quoting: Quoting;
  /** Fixed widths: each field padded or cut to its width, no delimiter, no quoting. */
  widths?: number[];
  /** Where the widths were written, named as the script names them, for an error about their count. */
  widthsFrom?: { name: string; pos?: Position };
  /** A record that would start with one of these gets its first field quoted, so readers do not skip it. */
  comments: string[];
}

export interface XmlOptions extends CellOptions {
  /** Each record is wrapped in this element. */
  element?: string;
}

export interface WriterOptions extends CsvOptions, XmlOptions {}

export function writerOptions(overrides: Partial<WriterOptions> = {}): WriterOptions {
  return {
    trim: false,
    flatten: false,
    bytes: 'hex',
    header: false,
    delimiter: ',',
    quote: '"',
    quoting: 'needed',
    comments: [],
    ...overrides,
  };
}
