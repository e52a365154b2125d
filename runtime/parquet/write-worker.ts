import { serveThreadCalls } from '../util/thread-call';
import { writeParquet } from './write';
import { DISPLAY, requestedDataset, type WriteRequest } from './writer-thread';

// The writer thread (writer-thread.ts): one file per message, in turn. Nothing here cancels a write:
// the calling thread ends this thread.
const never = new AbortController().signal;

serveThreadCalls(
  (request: WriteRequest) => writeParquet(requestedDataset(request), request.file, request.options, never),
  () => DISPLAY,
  () => [],
  'write',
);
