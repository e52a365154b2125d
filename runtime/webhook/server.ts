import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { toScriptError } from '../errors';
import { hasWriter } from '../jobs/job';
import type { JobStore } from '../jobs/store';
import type { AccessKeys } from './auth';
import { IdempotencyStore, type Answer } from './idempotency';
import type { CallParameters, Ingest } from './ingest';
import { signatureProblem } from './signature';

export const PUSH_PATH = '/job/push';
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Distinct call URLs whose parsed query a listener keeps (all are dropped when more come). */
const QUERIES_KEPT = 256;

export interface ListenerOptions {
  host: string;
  port: number;
  /** PEM texts: HTTPS when given. */
  tls?: { cert: string; key: string };
  maxBody: number;
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

/** A refusal: a status and a JSON `{error}` (C.6). */
export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const FLAG_TRUE = new Set(['', '1', 'true', 'yes']);
const FLAG_FALSE = new Set(['0', 'false', 'no']);

/** A 0/1 query flag; present without a value means set. */
export function flag(query: URLSearchParams, name: string, absent: boolean): boolean {
  const v = query.get(name);
  if (v === null) return absent;
  const t = v.trim().toLowerCase();
  if (FLAG_TRUE.has(t)) return true;
  if (FLAG_FALSE.has(t)) return false;
  throw new Refused(400, `${name} must be 0 or 1 (or true/false, yes/no), not '${v}'`);
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The body, refused with 413 as soon as it passes `max` bytes (Content-Length is checked first). */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > max)
    return Promise.reject(
      new Refused(413, `payload of ${declared} bytes is over the listener's limit of ${max} bytes`),
    );
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        req.removeAllListeners('data');
        reject(new Refused(413, `payload is over the listener's limit of ${max} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The query of a call to the endpoint; 404 for another path. The endpoint's own path is recognised
 * as it is sent, without building a URL, which costs a call more than the check it serves.
 */
function queryOf(target: string): URLSearchParams {
  if (target === PUSH_PATH) return new URLSearchParams();
  if (target.startsWith(`${PUSH_PATH}?`)) return new URLSearchParams(target.slice(PUSH_PATH.length + 1));
  const url = new URL(target, 'http://listener');
  if (url.pathname !== PUSH_PATH)
    throw new Refused(404, `no such endpoint: ${url.pathname} (the webhook endpoint is ${PUSH_PATH})`);
  return url.searchParams;
}

export function send(res: ServerResponse, answer: Answer, headers?: Record<string, string>): void {
  const text = JSON.stringify(answer.body);
  const own = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) };
  res.writeHead(answer.status, headers ? { ...own, ...headers } : own);
  res.end(text);
}

/**
 * The webhook endpoint (spec §4.1, §5, §7; decision C.6): routing, authentication and the status of
 * every refusal, in this order — 404 another path, 405 another method, 401 no valid access key,
 * 400 no or malformed guid, 404 unknown guid, 400 a direct job's writer guid, 403 a job not enabled
 * for webhooks (or a reader alone), 401 a bad signature, 413 a payload over the limit, 422 an
 * idempotency key sent again with another payload — then the call (ingest.ts) answers 200, 202, 400 or 500. Neither payloads nor keys are ever logged.
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  // A client calls with the same URL again and again: its query is parsed once (only read afterwards).
  const queries = new Map<string, URLSearchParams>();
  const queryOfCached = (target: string): URLSearchParams => {
    let query = queries.get(target);
    if (!query) {
      query = queryOf(target);
      if (queries.size >= QUERIES_KEPT) queries.clear();
      queries.set(target, query);
    }
    return query;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const query = queryOfCached(req.url ?? '/');
      if (!METHODS.has(req.method ?? ''))
        throw new Refused(405, `method ${req.method} is not allowed on ${PUSH_PATH}`, {
          allow: [...METHODS].join(', '),
        });
      if (options.keys && !options.keys.accepts(header(req, 'authorization'))) {
        throw new Refused(401, 'missing or wrong access key (Authorization: Bearer <key>; sqlcdc webhook key new)', {
          'www-authenticate': 'Bearer',
        });
      }
      const guid = query.get('guid') ?? query.get('jobguid');
      if (!guid) throw new Refused(400, 'the guid query parameter (or jobguid) is required');
      if (!/^\{?[0-9a-fA-F-]{32,36}\}?$/.test(guid.trim()))
        throw new Refused(400, `guid must be 32 hexadecimal digits, not '${guid}'`);
      const found = options.store.byGuid(guid.trim());
      if (!found) throw new Refused(404, `no job has guid ${guid}`);
      const { job } = found;
      if (found.writerGuid)
        throw new Refused(
          400,
          `${guid} is the writer guid of direct job ${job.name}: call it with its reader guid (spec §4.1)`,
        );
      if (!job.webhook || !hasWriter(job)) throw new Refused(403, `job ${job.name} is not enabled for webhooks`);
      const params: CallParameters = {
        rootPath: query.get('rootpath') ?? undefined,
        form2json: flag(query, 'form2json', false),
        bypassTriggers: flag(query, 'bypasstriggers', false),
        startWriter: flag(query, 'startwriter', true),
        contentType: header(req, 'content-type'),
      };
      const body = await readBody(req, options.maxBody);
      const secret = options.store.signingSecret(job);
      if (secret) {
        const problem = signatureProblem(secret, body, req.headers);
        if (problem) throw new Refused(401, problem);
      }
      const signed = header(req, 'webhook-id');
      const idempotencyKey = signed ?? header(req, 'idempotency-key');
      const run = () => options.ingest.call(found, body, params);
      const remembered = idempotencyKey
        ? await options.idempotency.answer(`${job.guid}\u0000${idempotencyKey}`, body, run, leftChangeLog)
        : { answer: await run(), repeated: false };
      if ('conflict' in remembered)
        throw new Refused(
          422,
          `${signed ? 'webhook-id' : 'Idempotency-Key'} '${idempotencyKey}' was used with a different payload in the last 24 hours: send a new key for a new payload`,
        );
      send(res, remembered.answer, remembered.repeated ? { 'idempotent-replayed': 'true' } : undefined);
    } catch (e) {
      if (e instanceof Refused) {
        // An unread body would be parsed as the next request of this connection: close it after answering.
        const closing: Record<string, string> = req.complete ? {} : { connection: 'close' };
        send(res, { status: e.status, body: { error: e.message } }, { ...e.headers, ...closing });
        if (!req.complete) res.on('finish', () => req.destroy());
        return;
      }
      send(res, { status: 500, body: { error: toScriptError(e).message } });
    }
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => void handle(req, res);
  const server = options.tls
    ? createHttps({ cert: options.tls.cert, key: options.tls.key }, onRequest)
    : createHttp(onRequest);
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

/** Whether a call's answer names the change log it left: only such a call must not run twice. */
const leftChangeLog = (answer: Answer) => (answer.body as { changeLog?: unknown }).changeLog != null;

/** Whether a host name or address is this machine only: the one place a listener may run without keys. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
