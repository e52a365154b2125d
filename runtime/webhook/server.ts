import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { JobStore } from '../jobs/store';
import type { AccessKeys } from './auth';
import { Gate, PUSH_PATH, readBody, Refused, send, sendFailure } from './gate';
import type { IdempotencyStore } from './idempotency';
import type { Ingest } from './ingest';
import { answerProtocolErrors } from './protocol-errors';
import { readTimeoutOptions } from './read-timeout';
import { answerOnce } from './repeats';

export interface ListenerOptions {
  host: string;
  port: number;
  /** PEM texts: HTTPS when given. */
  tls?: { cert: string; key: string };
  maxBody: number;
  /** The longest a sender may take for its headers, or pause within its body (read-timeout.ts). */
  readTimeoutMs: number;
  /** Access keys, or undefined for a listener without authentication (loopback only; the caller checks). */
  keys?: AccessKeys;
  store: JobStore;
  ingest: Ingest;
  idempotency: IdempotencyStore;
}

export interface Listener {
  server: Server;
  /** http(s)://HOST:PORT/job/push */
  url: string;
  close(): Promise<void>;
}

/**
 * `sqlcdc serve`'s endpoint: every job of the workspace by its guid, routed and authenticated by the
 * Gate, then 422 an idempotency key sent again with another payload (repeats.ts), then the call (ingest.ts)
 * answers 200, 202, 400 or 500. Neither payloads nor keys are ever logged.
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const { store } = options;
  const gate = new Gate({
    access: options.keys && {
      accepts: (authorization) => options.keys!.accepts(authorization),
      hint: 'Authorization: Bearer <key>; sqlcdc webhook key new',
    },
    jobs: store,
    jobOf: (guid) => {
      const found = store.byGuid(guid);
      if (!found) throw new Refused(404, `no job has guid ${guid}`);
      if (found.writerGuid)
        throw new Refused(
          400,
          `${guid} is the writer guid of direct job ${found.job.name}: call it with its reader guid (spec §4.1)`,
        );
      return found;
    },
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const { current, params } = gate.route(req);
      const body = await readBody(req, options);
      gate.verify(current, body, req);
      const run = () => options.ingest.call(current!, body, params);
      const repeat = answerOnce(options.idempotency, req, current!.job, body, run);
      const once = repeat ? await repeat : { answer: await run() };
      send(res, once.answer, once.headers);
    } catch (e) {
      sendFailure(req, res, e, options.readTimeoutMs);
    }
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => void handle(req, res);
  // The Gate refuses a request without Host itself, with a JSON reason.
  const serverOptions = { requireHostHeader: false, ...readTimeoutOptions(options.readTimeoutMs) };
  const server = options.tls
    ? createHttps({ cert: options.tls.cert, key: options.tls.key, ...serverOptions }, onRequest)
    : createHttp(serverOptions, onRequest);
  answerProtocolErrors(server);
  // Keep-alive connections of many clients must outlive short pauses between their calls.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `${options.tls ? 'https' : 'http'}://${host}:${address.port}${PUSH_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/** Whether a host name or address is this machine only: the one place a listener may run without keys. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
