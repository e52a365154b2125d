import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the test server received it. */
export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers a request; may leave `res` unanswered to simulate a server that never responds. */
export type Handler = (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  /** Resolves when the server has received its nth request (1-based). */
  received(n: number): Promise<ReceivedRequest>;
  /** How many client connections are open now. */
  connections(): Promise<number>;
  /** Closes the server and every open connection (also the unanswered ones). */
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Requests past this many are answered 429, so a runaway loop in a test ends (default 1000). */
  maxRequests?: number;
}

/** A real node:http server on 127.0.0.1 and an ephemeral port. */
export async function startHttpServer(handler: Handler, options: ServerOptions = {}): Promise<TestServer> {
  const max = options.maxRequests ?? 1000;
  const requests: ReceivedRequest[] = [];
  const waiters: { n: number; resolve: (r: ReceivedRequest) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      for (const w of waiters.filter((w) => w.n === requests.length)) w.resolve(received);
      if (requests.length > max) {
        res.writeHead(429).end('test server: too many requests');
        return;
      }
      Promise.resolve(handler(received, res)).catch((e) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    received: (n) =>
      requests.length >= n ? Promise.resolve(requests[n - 1]) : new Promise((resolve) => waiters.push({ n, resolve })),
    connections: () => new Promise((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n)))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends a JSON body. */
export function sendJson(
  res: ServerResponse,
  value: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}
