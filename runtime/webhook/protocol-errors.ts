import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { METHODS, PUSH_PATH, send } from './gate';

/**
 * An answer written on a connection that has no response object, which then closes. What the client
 * still sends is read and dropped meanwhile (for LINGER_MS at most): closing with unread bytes would
 * reset the connection, and the client would lose the answer with it (docs/webhook.md, 413).
 */
function answerOnSocket(socket: Duplex, status: number, reason: string, error: string, headers = ''): void {
  const text = JSON.stringify({ error });
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\n${headers}` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

const LINGER_MS = 5_000;

/** What Node's parser reports for a request it cannot read, and the status that says so. */
const STATUS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'the request line and headers are over 16 KB'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'the chunk extensions are over 16 KB'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'the request did not arrive whole in time'],
};

/**
 * A listener's answers to what is not an HTTP request it can route — a malformed request line,
 * header or chunk, headers over Node's 16 KB limit, a request that never arrives whole, an `Expect`
 * other than 100-continue, a CONNECT — are JSON `{error}` bodies like every other refusal (C.6), where Node
 * would send a bare status line. The connection then closes, as Node's own answers close it.
 */
export function answerProtocolErrors(server: Server): void {
  server.on('clientError', (e: NodeJS.ErrnoException, socket: Duplex) => {
    // Node's own rule: nothing is written under a response already on its way (a pipelined call's).
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (e.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, reason, error] = STATUS[e.code ?? ''] ?? [
      400,
      'Bad Request',
      `malformed HTTP request (${(e as { reason?: string }).reason ?? e.code ?? e.message})`,
    ];
    answerOnSocket(socket, status, reason, error);
  });
  // CONNECT is a method like OPTIONS, which Node hands to this event rather than to the request handler.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const allow = `allow: ${[...METHODS].join(', ')}\r\n`;
    answerOnSocket(socket, 405, 'Method Not Allowed', `method CONNECT is not allowed on ${PUSH_PATH}`, allow);
  });
  server.on('checkExpectation', (req, res: ServerResponse) => {
    send(
      res,
      { status: 417, body: { error: `Expect: ${req.headers.expect} is not supported (only 100-continue)` } },
      { connection: 'close' },
    );
  });
}
