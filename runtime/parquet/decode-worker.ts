import { serveThreadCalls } from '../util/thread-call';
import { decodeParquet } from './decode';
import type { DecodeRequest } from './decoder-thread';
import { transferables } from '../dataset/thread-wire';

// The decoder thread (decoder-thread.ts): one file per message, in turn.
serveThreadCalls(
  ({ full, display }: DecodeRequest) => decodeParquet(full, display),
  (request) => request.display,
  (decoded) => decoded.wire.flatMap(transferables),
);
