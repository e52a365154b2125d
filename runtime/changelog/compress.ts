import { promisify } from 'node:util';
import { brotliCompressSync, brotliDecompress, constants } from 'node:zlib';

/**
 * Frame compression: Brotli at quality 1. On typed frames (docs/changelog.md, "Performance") it
 * makes files a quarter smaller than deflate at level 1 and compresses faster; deflate
 * decompresses faster, but the reader decompresses in the thread pool while it decodes. The
 * frame's CRC-32 (layout.ts) guards the bytes, as Brotli has no checksum of its own.
 */
export const COMPRESSION = 'brotli-1';
/** Frames stored as encoded: a webhook call's log of a few hundred bytes, where Brotli's set-up costs more than it saves. */
export const STORED = 'none';
export type Compression = typeof COMPRESSION | typeof STORED;
export const COMPRESSIONS: readonly string[] = [COMPRESSION, STORED];

const OPTIONS = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_GENERIC },
};

/**
 * Brotli's window, in bits: as large as the frame, so a small frame (a webhook call's) does not set
 * up the default 4 MB window; never above that default, so large frames compress as they always did.
 */
function windowBits(length: number): number {
  const fits = Math.ceil(Math.log2(length + 1));
  return Math.min(Math.max(fits, constants.BROTLI_MIN_WINDOW_BITS), constants.BROTLI_DEFAULT_WINDOW);
}

export function compress(compression: Compression, raw: Uint8Array): Uint8Array {
  if (compression === STORED) return raw;
  return brotliCompressSync(raw, {
    ...OPTIONS,
    params: {
      ...OPTIONS.params,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      [constants.BROTLI_PARAM_LGWIN]: windowBits(raw.length),
    },
  });
}

const brotliDecompressAsync = promisify(brotliDecompress);

/**
 * Decompresses a frame of `rawLength` bytes in the thread pool (the reader decodes the previous
 * frame meanwhile) into one buffer of that size: zlib's default 16 KB output chunks would mean
 * hundreds of buffers to allocate and join per frame.
 */
export function decompress(compression: Compression, stored: Uint8Array, rawLength: number): Promise<Buffer> {
  if (compression === STORED) return Promise.resolve(Buffer.from(stored));
  const size = Math.max(rawLength, 64);
  return brotliDecompressAsync(stored, { maxOutputLength: size, chunkSize: size });
}
