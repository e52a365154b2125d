import { join } from 'node:path';
import { ThreadCall } from '../util/thread-call';
import type { Decoded } from './decode';

export interface DecodeRequest {
  full: string;
  display: string;
}

const decoder = new ThreadCall<DecodeRequest, Decoded>(join(__dirname, 'decode-worker.js'));

/**
 * Decodes a Parquet file in a worker thread (docs/drives.md, "Reading Parquet"). hyparquet decodes
 * synchronously, so on the main thread a huge or corrupt file (one of its endless loops) would leave
 * Ctrl-C, the kernel's interrupt and heartbeat no turn; here `signal` ends the thread itself.
 */
export function decodeOffThread(request: DecodeRequest, signal: AbortSignal): Promise<Decoded> {
  return decoder.call(request, request.display, signal);
}
