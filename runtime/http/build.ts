import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptError, type Position } from '../errors';
import type { HttpVerb } from '../script/ast';
import type { HttpAuth, HttpConnection } from '../workspace/connections';
import { redactUrl, SECRET_HEADER } from '../workspace/redact';
import { authHeader, getHeader, parseHeaders, setHeader } from './headers';
import type { HttpRequest } from './request';

/** Seconds an HTTP call may take when neither TIMEOUT nor the connection says (as .NET HttpClient). */
export const DEFAULT_TIMEOUT_SECONDS = 100;

/**
 * The largest answer a call may receive when its connection does not say (`--max-answer`): a read holds
 * the whole body, then its text and parsed document, several times its size, so a larger answer would
 * take the kernel down with it (docs/sources.md "Answer size").
 */
export const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 ** 2;

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
  const written = absolute || !connection ? target : joinUrl(connection.baseUrl, target);
  try {
    if (absolute || connection) url = new URL(written);
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
  const path = pathAsWritten(written, url);
  if (!absolute && connection)
    underBase(path ?? url.pathname, url, connection.baseUrl, `${spec.method} ${target}`, spec.targetPos);

  // Many APIs (GitHub's among them) refuse a call that does not say what client makes it.
  const headers: Record<string, string> = { 'user-agent': userAgent() };
  // A relative path is appended to the connection's base URL, so only an absolute URL can leave its origin.
  const own = connection !== undefined && (!absolute || sameOrigin(url, connection.baseUrl));
  // Names of the headers that carry a secret whatever their names, and passwords sent only encoded.
  const secretNames = new Set<string>();
  const passwords: string[] = [];
  const signIn = (auth: HttpAuth) => {
    const [name, value] = authHeader(auth);
    setHeader(headers, name, value);
    secretNames.add(name.toLowerCase());
    if (auth.type === 'basic') passwords.push(auth.password);
  };
  if (own) {
    for (const [k, v] of Object.entries(connection.headers ?? {})) {
      setHeader(headers, k, v);
      secretNames.add(k.toLowerCase());
    }
    if (connection.auth) signIn(connection.auth);
  }
  // `https://user:pw@host/…` written in the call: Basic auth, as curl sends it (fetch would refuse the URL).
  if (url.username || url.password) {
    signIn({ type: 'basic', user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) });
    url.username = '';
    url.password = '';
  }
  for (const [k, v] of Object.entries(parseHeaders(spec.headers ?? '', spec.headersPos))) setHeader(headers, k, v);
  if (spec.contentType) setHeader(headers, 'content-type', spec.contentType);
  else if (spec.payload !== undefined && getHeader(headers, 'content-type') === undefined)
    setHeader(headers, 'content-type', guessContentType(spec.payload));

  const timeout = spec.timeout ?? connection?.timeout ?? DEFAULT_TIMEOUT_SECONDS;
  return {
    method: spec.method,
    url,
    path,
    headers,
    secrets: secretValues(headers, secretNames, passwords),
    body: spec.payload,
    timeoutSeconds: timeout,
    tls: own ? connection.tls : undefined,
    maxAnswer: { bytes: connection?.maxAnswer ?? DEFAULT_MAX_ANSWER_BYTES, connection: connection?.name },
  };
}

/** An auth header's value: its scheme (`Bearer`, `Basic`) and the credential. */
const SCHEME_AND_CREDENTIAL = /^[A-Za-z][\w-]*\s+(\S+)$/;

/**
 * The values of `headers` that are secrets — those named in `names` (lower case) or named like a secret
 * — each whole and, after an auth scheme (`Bearer …`, `Basic …`), the credential alone, and `passwords`:
 * a server echoing a request may show any of them.
 */
function secretValues(headers: Record<string, string>, names: ReadonlySet<string>, passwords: string[]): string[] {
  const values = [...passwords];
  for (const [k, v] of Object.entries(headers)) {
    if (!names.has(k.toLowerCase()) && !SECRET_HEADER.test(k)) continue;
    values.push(v);
    const credential = SCHEME_AND_CREDENTIAL.exec(v.trim());
    if (credential) values.push(credential[1]);
  }
  return values;
}

/**
 * The base URL's query (an API key given with the connection, `…/api?code=…`) stays a query: the path
 * goes after the base's path, and the path's own query parameters after the base's.
 */
function joinUrl(base: string, path: string): string {
  if (path === '') return base;
  const [root, baseQuery = ''] = base.replace(/#.*/s, '').split(/\?(.*)/s);
  const at = path.search(/[?#]/);
  const pathOnly = at < 0 ? path : path.slice(0, at);
  const rest = at < 0 ? '' : path.slice(at);
  const [pathQuery, hash = ''] = rest.replace(/^\?/, '').split(/(#.*)/s);
  const query = [baseQuery, rest.startsWith('?') ? pathQuery : ''].filter((q) => q !== '').join('&');
  const sep = pathOnly === '' || pathOnly.startsWith('/') ? '' : '/';
  return `${root.replace(/\/+$/, '')}${sep}${pathOnly}${query ? `?${query}` : ''}${hash}`;
}

/**
 * A relative path stays under the connection's base path: a `..` (written, or in a field's value such as
 * `DELETE /items/{{id}}` with id `../../admin`) must not steer a call, with the connection's
 * credentials, to another endpoint of the API. A full URL is the way to call elsewhere. A field's value
 * arrives encoded (`..%2F..%2Fadmin`, field-style.ts), and servers and proxies that decode `%2F` and
 * `%2E` before resolving dot segments (nginx does) would still climb: the path is checked as they see it too.
 */
function underBase(sent: string, url: URL, baseUrl: string, call: string, pos: Position | undefined): void {
  const base = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const decoded = new URL(sent.replace(/%2f/gi, '/').replace(/%2e/gi, '.'), url.origin).pathname;
  if ([sent, decoded].every((path) => path === base || path.startsWith(`${base}/`))) return;
  throw new ScriptError(
    `${call} leaves the connection's base URL ${redactUrl(baseUrl)} (a '..' in the path or in a field's value); give a full URL to call elsewhere`,
    'runtime',
    pos,
  );
}

/** A path segment of one or two dots, one of them at least percent-encoded (`%2E%2E`, `.%2e`). */
const ENCODED_DOTS = /(?<=\/)(?=\.?%2e|%2e)(?:\.|%2e){1,2}(?=\/|$)/gi;

/**
 * The path to send when the written URL's has an encoded dot segment (a field's value `..` is
 * `%2E%2E`, field-style.ts), else undefined. URL parsing (WHATWG, as undici and fetch do) resolves
 * those as it does `..` and `.`, so a value would change the call's path; curl and Python's requests
 * send them as written, and so does this. The rest of the path is as the URL parser writes it: each
 * such segment is parsed as a placeholder, then put back.
 */
function pathAsWritten(written: string, url: URL): string | undefined {
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(written)?.[1] ?? '';
  const found: string[] = [];
  const token = `sqlcdc-dots-${randomUUID()}-`;
  const marked = path.replace(ENCODED_DOTS, (dots) => `${token}${found.push(dots) - 1}`);
  if (found.length === 0) return undefined;
  return new URL(marked, url.origin).pathname.replace(new RegExp(`${token}(\\d+)`, 'g'), (_, i: string) => found[+i]);
}

let agent: string | undefined;

/** `sqlcdc/<version>`, read once from the package beside the compiled code. */
function userAgent(): string {
  agent ??= `sqlcdc/${(JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version}`;
  return agent;
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
