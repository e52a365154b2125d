import { ScriptError, type Position } from '../errors';
import type { HttpVerb } from '../script/ast';
import type { HttpConnection } from '../workspace/connections';
import { authHeader, getHeader, parseHeaders, setHeader } from './headers';
import type { HttpRequest } from './request';

/** Seconds an HTTP call may take when neither TIMEOUT nor the connection says (as .NET HttpClient). */
export const DEFAULT_TIMEOUT_SECONDS = 100;

/** The evaluated texts of an HTTP command and its options. */
export interface CallSpec {
  connection?: HttpConnection;
  method: HttpVerb;
  target: string;
  targetPos?: Position;
  headers?: string;
  headersPos?: Position;
  payload?: string;
  contentType?: string;
  timeout?: number;
}

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The request of a call. A relative path is appended to the connection's base URL
 * (`https://h/api` + `/orders` → `https://h/api/orders`). The connection's default headers and auth
 * go only to its own origin, never to an absolute URL elsewhere. HEADERS override them; CONTENT_TYPE
 * overrides both; with a payload and no content type, JSON-looking text is sent as application/json,
 * XML-looking text as application/xml, anything else as text/plain.
 */
export function buildRequest(spec: CallSpec): HttpRequest {
  const { connection } = spec;
  const target = spec.target.trim();
  let url: URL;
  const absolute = ABSOLUTE.test(target);
  try {
    if (absolute) url = new URL(target);
    else if (connection) url = new URL(joinUrl(connection.baseUrl, target));
    else
      throw new ScriptError(
        `'${target}' is a relative path: name an HTTP connection ([name]) or give a full URL`,
        'runtime',
        spec.targetPos,
      );
  } catch (e) {
    if (e instanceof ScriptError) throw e;
    throw new ScriptError(`invalid URL '${target}'`, 'runtime', spec.targetPos);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ScriptError(`unsupported URL scheme '${url.protocol}' (http or https)`, 'runtime', spec.targetPos);

  const headers: Record<string, string> = {};
  // A relative path is appended to the connection's base URL, so only an absolute URL can leave its origin.
  const own = connection !== undefined && (!absolute || sameOrigin(url, connection.baseUrl));
  if (own) {
    for (const [k, v] of Object.entries(connection.headers ?? {})) setHeader(headers, k, v);
    if (connection.auth) setHeader(headers, ...authHeader(connection.auth));
  }
  for (const [k, v] of Object.entries(parseHeaders(spec.headers ?? '', spec.headersPos))) setHeader(headers, k, v);
  if (spec.contentType) setHeader(headers, 'content-type', spec.contentType);
  else if (spec.payload !== undefined && getHeader(headers, 'content-type') === undefined)
    setHeader(headers, 'content-type', guessContentType(spec.payload));

  const timeout = spec.timeout ?? connection?.timeout ?? DEFAULT_TIMEOUT_SECONDS;
  return {
    method: spec.method,
    url,
    headers,
    body: spec.payload,
    timeoutSeconds: timeout,
    tls: own ? connection.tls : undefined,
  };
}

/**
 * The base URL's query (an API key given in the URL) goes with every call, after the path's own:
 * `https://h/v1?api_key=K` + `/items?mode=a` → `https://h/v1/items?mode=a&api_key=K`. Appended as
 * written, so the path's query keeps its encoding.
 */
function joinUrl(base: string, path: string): string {
  if (path === '') return base;
  const q = base.indexOf('?');
  const query = q < 0 ? '' : base.slice(q + 1);
  const joined = `${(q < 0 ? base : base.slice(0, q)).replace(/\/+$/, '')}${path.startsWith('/') || path.startsWith('?') ? '' : '/'}${path}`;
  if (query === '') return joined;
  return `${joined}${joined.includes('?') ? '&' : '?'}${query}`;
}

function sameOrigin(url: URL, base: string): boolean {
  try {
    return new URL(base).origin === url.origin;
  } catch {
    return false;
  }
}

function guessContentType(payload: string): string {
  const c = /\S/.exec(payload)?.[0];
  return c === '{' || c === '[' ? 'application/json' : c === '<' ? 'application/xml' : 'text/plain; charset=utf-8';
}
