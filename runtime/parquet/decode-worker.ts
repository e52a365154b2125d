import { parentPort } from 'node:worker_threads';
import { ScriptError } from '../errors';
import { decodeParquet } from './decode';
import type { DecodeReply, DecodeRequest } from './decoder-thread';
import { transferables } from '../dataset/thread-wire';

// The decoder thread (decoder-thread.ts): one file per message, in turn; the answer or the error as a message.
parentPort!.on('message', ({ full, display }: DecodeRequest) => {
  decodeParquet(full, display).then(
    (decoded) => parentPort!.postMessage({ decoded } satisfies DecodeReply, decoded.wire.flatMap(transferables)),
    (e: unknown) => {
      const error = e instanceof ScriptError ? e : new ScriptError(`cannot read ${display}: ${String(e)}`, 'runtime');
      parentPort!.postMessage({ error: { message: error.message, kind: error.kind } } satisfies DecodeReply);
    },
  );
});
