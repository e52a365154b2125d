import { serveThreadCalls } from '../../util/thread-call';
import { nameOf, shapedOf, shapedTransferables, type ShapeRequest } from './shape-thread';

// The shaping thread (shape-thread.ts): one document per message, in turn.
serveThreadCalls((request: ShapeRequest) => shapedOf(request), nameOf, shapedTransferables);
