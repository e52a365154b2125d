/**
 * One writer per format (CSV, JSON, XML), compiled once per schema and options and run per row:
 * ADD COLUMN … FORMAT keeps each row's record, ZIP COLUMN frames fragments into documents, and
 * rendering (`--output csv|json`), SINK/PUSH DRIVE and HTTP payloads write a dataset's rows as one
 * document, whole or streamed in pieces.
 */
export { encodeBytes } from './cells';
export { datasetText, documentChunks, documentText } from './dataset-text';
export { buildDocument, documentWriter, fragmentProblem, type DocumentWriter } from './documents';
export { selectFields } from './fields';
export { parseFormatOptions, type FormatOptions } from './format-options';
export { rowWriter } from './fragments';
export { textualFields } from './records';
export { writerOptions, type BytesEncoding, type WriterOptions } from './options';
export { type RowWriter } from './row-writer';
export { xmlEscape } from './xml';
