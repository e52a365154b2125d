/**
 * Document formatting for FORMAT (per-row fragments) and ZIP (complete documents): the pieces
 * ADD COLUMN and ZIP COLUMN assemble, usable by any writer that needs the same shapes.
 */
export { buildDocument, XML_ROOT } from './documents';
export { selectFields, splitNames } from './fields';
export { rowWriter, xmlEscape, xmlName, type RowWriter } from './fragments';
export { defaultOptions, parseFormatOptions, type BytesEncoding, type FormatOptions } from './options';
export { encodeBytes } from './values';
