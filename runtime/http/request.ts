import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import { ScriptError } from '../errors';
import type { HttpVerb } from '../script/ast';
import type { HttpConnection } from '../workspace/connections';
import type { Resources } from '../resources';
import { maskValues, redactUrl, redactUrlsIn } from '../workspace/redact';
import { formatSize } from '../util/size';
import { CallAbort } from './call-abort';
import { poolFor } from './pools';

export interface HttpRequest {
  method: HttpVerb;
  url: URL;
  /**
   * The path sent, where it is not `url`'s: one with a percent-encoded dot segment (`/items/%2E%2E`,
   * a field's value `..`), which URL parsing resolves as `..` (build.ts).
   */
  path?: string;
  headers: Record<string, string>;
  /**
   * The values among `headers` that are secrets (the connection's headers and auth, a password written in
   * the URL, HEADERS' values of secret-named headers), and the credentials inside them: what messages and
   * TRACE rows mask wherever the server echoes them (build.ts).
   */
  secrets: readonly string[];
  body?: string;
  timeoutSeconds: number;
  tls?: HttpConnection['tls'];
  /** The largest answer body taken, and the connection that sets it (to say where to raise it). */
  maxAnswer: { bytes: number; connection?: string };
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The Content-Type without parameters, lowercase ('' when absent). */
  mediaType: string;
  /** The charset parameter of Content-Type, default utf-8. */
  charset: string;
  elapsedMs: number;
}

/** What a call needs from the session: its resources (the pools), the workspace (CA files) and cancellation. */
export interface CallContext {
  resources: Resources;
  workspace: string;
  signal: AbortSignal;
}

/**
 * Sends one request through the session's pool for its origin, following redirects (up to
 * MAX_REDIRECTS). The statement's signal (Ctrl-C, kernel interrupt) and the timeout both abort it at
 * once, body included, over every hop. Transport failures become ScriptErrors naming the call; HTTP
 * error statuses are returned (see `checkStatus`).
 */
export async function sendHttp(request: HttpRequest, call: CallContext): Promise<HttpResponse> {
  // TIMEOUT 0: no time limit (the statement can still be cancelled).
  const abort = new CallAbort(call.signal, request.timeoutSeconds);
  const started = performance.now();
  try {
    let hop = request;
    for (let redirects = 0; ; redirects++) {
      const response = await sendOnce(hop, call, abort, started);
      const next = redirected(hop, response);
      if (!next) return response;
      if (redirects === MAX_REDIRECTS)
        throw new ScriptError(`more than ${MAX_REDIRECTS} redirects from ${describeCall(request)}`, 'runtime');
      hop = next;
    }
  } finally {
    abort.done();
  }
}

/** As many as browsers and curl's --max-redirs default follow before calling it a loop. */
const MAX_REDIRECTS = 5;

/** Headers that may follow a redirect to another origin: none of them carries a credential. */
const CROSS_ORIGIN_SAFE = /^(user-agent|accept|accept-language|accept-encoding|content-type|idempotency-key)$/i;

/**
 * The request a redirect asks for: 307/308 repeat the call at the new place, 303 asks for a GET of it
 * (an API's "here is the result"); 301/302 are followed for a GET only, since clients turn a POST into
 * a GET there and a push would count the data it never sent as delivered. To another origin, only
 * headers without credentials go along, and the connection's TLS options stay behind.
 */
function redirected(request: HttpRequest, response: HttpResponse): HttpRequest | undefined {
  const location = response.headers['location'];
  const { status } = response;
  const follows =
    status === 303 ||
    status === 307 ||
    status === 308 ||
    ((status === 301 || status === 302) && request.method === 'GET');
  if (!follows || !location) return undefined;
  let url: URL;
  try {
    url = new URL(location, request.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const toGet = status === 303;
  const moved = requestAt(request, url);
  if (!toGet) return moved;
  const headers = { ...moved.headers };
  for (const k of Object.keys(headers)) if (/^content-type$/i.test(k)) delete headers[k];
  return { ...moved, method: 'GET', headers, body: undefined };
}

/**
 * The request sent to `url` instead (a redirect, a next page): to another origin, only headers without
 * credentials go along and the connection's TLS options stay behind (they are the connection's, for
 * its own origin: docs/sources.md "Connections").
 */
export function requestAt(request: HttpRequest, url: URL): HttpRequest {
  if (url.origin === request.url.origin) {
    // The next page of `/items/%2E%2E?page=1` keeps its path as written; another path is the URL's.
    return { ...request, url, path: url.pathname === request.url.pathname ? request.path : undefined };
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers)) if (CROSS_ORIGIN_SAFE.test(k)) headers[k] = v;
  return { ...request, url, path: undefined, headers, tls: undefined };
}

async function sendOnce(
  request: HttpRequest,
  call: CallContext,
  abort: CallAbort,
  started: number,
): Promise<HttpResponse> {
  const { url, method } = request;
  const pool = poolFor(call.resources, url.origin, request.tls, call.workspace);
  try {
    const res = await pool.request({
      path: (request.path ?? url.pathname) + url.search,
      method,
      headers: request.headers,
      body: request.body,
      signal: abort,
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const body = await readAnswer(res.body, headers['content-length'], request);
    const contentType = headers['content-type'] ?? '';
    const [mediaType, ...params] = contentType.split(';');
    const charset = params.map((p) => /^\s*charset\s*=\s*"?([^";]+)"?/i.exec(p)?.[1]).find(Boolean) ?? 'utf-8';
    return {
      status: res.statusCode,
      headers,
      body,
      mediaType: mediaType.trim().toLowerCase(),
      charset,
      elapsedMs: performance.now() - started,
    };
  } catch (e) {
    if (call.signal.aborted) throw new ScriptError('cancelled', 'cancelled');
    if (e instanceof ScriptError) throw e;
    if (abort.timedOut)
      throw new ScriptError(`timed out after ${request.timeoutSeconds} s: ${describeCall(request)}`, 'runtime');
    throw transportError(e, request);
  }
}

/**
 * The body of an answer, up to the request's limit: an announced Content-Length over it fails before a
 * byte is read, and a body without one (chunked) fails as soon as it grows past it. Either way the
 * body is destroyed, which closes the connection rather than draining the rest into the pool.
 */
async function readAnswer(body: Dispatcher.ResponseData['body'], length: string | undefined, request: HttpRequest) {
  const limit = request.maxAnswer.bytes;
  // With a Content-Length, undici delivers exactly that many bytes: the whole body is read at once.
  if (length !== undefined && /^\d+$/.test(length)) {
    const announced = Number(length);
    if (announced <= limit) return Buffer.from(await body.arrayBuffer());
    discard(body);
    throw answerTooLarge(request, `announces ${announced} bytes (Content-Length)`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      discard(body);
      throw answerTooLarge(request, `passed ${size} bytes before the end`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/** Closes the connection of an answer not read to its end; the abort error that follows has no reader. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** An answer over the request's limit: the same call would get the same answer, so it is not retried. */
export class AnswerTooLarge extends ScriptError {}

function answerTooLarge(request: HttpRequest, what: string): ScriptError {
  const { bytes, connection } = request.maxAnswer;
  const raise = connection
    ? `raise it with %connection add ${connection} … --max-answer SIZE`
    : 'give the call a connection with a larger limit (%connection add NAME URL --max-answer SIZE)';
  return new AnswerTooLarge(
    `the answer of ${describeCall(request)} ${what}, over the limit of ${formatSize(bytes)} (${bytes} bytes); ${raise}`,
    'runtime',
  );
}

function transportError(e: unknown, request: SentCall): ScriptError {
  const { url } = request;
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err.code ?? err.cause?.code;
  const call = describeCall(request);
  switch (code) {
    case 'ECONNREFUSED':
      return new ScriptError(`connection refused by ${url.host}: ${call}`, 'runtime');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ScriptError(`host not found: ${url.hostname} (${call})`, 'runtime');
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return new ScriptError(`connection closed by ${url.host} before the response: ${call}`, 'runtime');
  }
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|TLS/.test(code)) {
    return new ScriptError(
      `TLS: ${err.message} (${call}); give the connection its CA (tls.ca) or tls.rejectUnauthorized false`,
      'runtime',
    );
  }
  return new ScriptError(`${err.message ?? String(e)}: ${call}`, 'runtime');
}

/** The status text of an HTTP status. */
function statusText(status: number): string {
  return STATUS_CODES[status] ?? '';
}

/** Status 400 and above is a ScriptError with the start of the body. */
export function checkStatus(response: HttpResponse, request: SentCall): void {
  if (response.status >= 400) throw statusError(response, request);
}

/** "HTTP 503 Service Unavailable from POST http://h/x: <start of the body>". */
export function statusError(response: HttpResponse, request: SentCall): ScriptError {
  return new ScriptError(
    `HTTP ${response.status} ${statusText(response.status)} from ${describeCall(request)}${bodyStart(response, request)}`,
    'runtime',
  );
}

/**
 * ": " and the first 200 characters of the body on one line, or nothing for an empty body. The
 * request's secrets and values named like secrets in it are masked: a server may echo the request's
 * headers in an error. They are masked before the cut, over a start long enough to hold the values it
 * shows.
 */
export function bodyStart(response: HttpResponse, request: Pick<HttpRequest, 'secrets'>): string {
  const start = decodeBody(response).slice(0, 4096);
  const text = redactUrlsIn(maskValues(start, request.secrets).replace(/\s+/g, ' ').trim());
  if (!text) return '';
  return `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

export function decodeBody(response: HttpResponse): string {
  const charset = response.charset.toLowerCase();
  if (charset === 'utf-8' || charset === 'utf8') return response.body.toString('utf8');
  try {
    return new TextDecoder(charset).decode(response.body);
  } catch {
    return response.body.toString('utf8');
  }
}

/** What messages say of a call: its method, URL, and path as sent. */
export type SentCall = Pick<HttpRequest, 'method' | 'url' | 'path' | 'secrets'>;

/**
 * "GET http://host/path?q=1" for messages: the path as sent, no user info, and query values whose
 * names suggest a secret (api_key, token, signature…) are masked, as errors are shown and logged.
 */
export function describeCall({ method, url, path }: SentCall): string {
  return `${method} ${redactUrl(`${url.origin}${path ?? url.pathname}${url.search}${url.hash}`)}`;
}
