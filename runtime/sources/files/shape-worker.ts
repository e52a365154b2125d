import { serveThreadCalls } from '../../util/thread-call';
import { shapeText } from './load';
import { shapedOf, shapedTransferables, type ShapeRequest } from './shape-thread';

// The shaping thread (shape-thread.ts): one document per message, in turn.
serveThreadCalls(
  ({ text, format, shape, display }: ShapeRequest) => shapedOf(shapeText(text, format, shape, display)),
  (request) => request.display,
  shapedTransferables,
);
