import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';

/**
 * hyparquet and hyparquet-writer are ES modules; Node 20.19+ loads them with require (require(esm)),
 * so the synchronous command code needs no dynamic import. Loaded on first use: most sessions never
 * touch Parquet.
 */
// The package's node entry (what require resolves to) declares fileWriter; its main types do not.
export type ParquetWriterLib = typeof import('hyparquet-writer/types/node');
export type ParquetReaderLib = typeof import('hyparquet/types/node');
/** hyparquet's column module: its page header parser, which the main entry does not export. */
export type ParquetColumnLib = typeof import('hyparquet/types/column');

let writerLib: ParquetWriterLib | undefined;
let readerLib: ParquetReaderLib | undefined;
let columnLib: ParquetColumnLib | undefined;

export function parquetWriterLib(): ParquetWriterLib {
  return (writerLib ??= require('hyparquet-writer') as ParquetWriterLib);
}

export function parquetReaderLib(): ParquetReaderLib {
  return (readerLib ??= require('hyparquet') as ParquetReaderLib);
}

export function parquetColumnLib(): ParquetColumnLib {
  return (columnLib ??= require('hyparquet/src/column.js') as ParquetColumnLib);
}

/** Codecs beyond the libraries' built-in Snappy, from node:zlib: written and read alike. */
export const COMPRESSORS = {
  GZIP: (input: Uint8Array) => new Uint8Array(gzipSync(input)),
  BROTLI: (input: Uint8Array) => new Uint8Array(brotliCompressSync(input)),
};

export const DECOMPRESSORS = {
  GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)),
  BROTLI: (input: Uint8Array) => new Uint8Array(brotliDecompressSync(input)),
};
