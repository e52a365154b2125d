import type { IncomingMessage, ServerResponse } from 'node:http';
import { toScriptError } from '../errors';
import { hasWriter } from '../jobs/job';
import type { CurrentJob, JobDefinitions } from '../jobs/store';
import type { Answer } from './idempotency';
import type { CallParameters } from './ingest';
import { afterParsing, whenSilent } from './read-timeout';
import { signatureProblem } from './signature';

export const PUSH_PATH = '/job/push';
export const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Distinct call URLs whose parsed query a listener keeps (all are dropped when more come). */
const QUERIES_KEPT = 256;

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

/** Who may call a listener, and where a caller gets a key (said in the 401). */
export interface AccessCheck {
  accepts(authorization: string | undefined): boolean;
  hint: string;
}

export interface GateOptions {
  /** Undefined: a listener without authentication (loopback only; its starter checks). */
  access?: AccessCheck;
  /**
   * The job a call's guid names, as its files are now; throws a Refused (400, 404) for a guid that
   * names none it serves. Null: the listener takes calls without a job (`%webhook start` alone).
   */
  jobOf(guid: string): CurrentJob | null;
  /** Where the jobs' signing secrets are opened. */
  jobs?: JobDefinitions;
}

/** A call let through routing and authentication, its body not yet read. */
export interface Routed {
  current: CurrentJob | null;
  params: CallParameters;
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

/** The key of an `Authorization: Bearer <key>` header, or undefined for another or none. */
export function bearerKey(authorization: string | undefined): string | undefined {
  return (authorization && /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]) || undefined;
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** How a listener reads bodies: its size limit and the longest pause between two reads (read-timeout.ts). */
export interface BodyLimits {
  maxBody: number;
  readTimeoutMs: number;
}

/**
 * The body, refused with 413 as soon as it passes `maxBody` bytes (Content-Length is checked first),
 * and with 408 when the sender pauses longer than `readTimeoutMs`.
 */
export function readBody(req: IncomingMessage, { maxBody: max, readTimeoutMs }: BodyLimits): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > max)
    return Promise.reject(
      new Refused(413, `payload of ${declared} bytes is over the listener's limit of ${max} bytes`),
    );
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let stop = () => {};
    // Armed only for a body still coming once the bytes read with the headers are parsed: most
    // calls' bodies arrive with their headers, and arming and clearing the socket's timer for each
    // of them was work for nothing on every call.
    afterParsing(() => {
      if (settled || req.complete) return;
      stop = whenSilent(req, readTimeoutMs, () => {
        req.removeAllListeners('data');
        reject(new Refused(408, `the body stalled: nothing arrived for ${readTimeoutMs / 1000} s`));
      });
    });
    const settle = () => {
      settled = true;
      stop();
    };
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        settle();
        req.removeAllListeners('data');
        reject(new Refused(413, `payload is over the listener's limit of ${max} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      settle();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      settle();
      reject(e);
    });
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
 * How much of a refused call's body is still read, and discarded, before the answer: a client that
 * writes its whole body before it reads (Python's urllib, many SDKs) would otherwise find the
 * connection reset under it and never see the 413 or 401, as nginx's lingering close avoids. A longer
 * rest is not worth reading: the answer is sent at once and the connection cut.
 */
export const DISCARD_MAX = 64 * 1024 * 1024;

/**
 * Reads the rest of a body into nothing; whether it ended within `max` bytes (not: cut short, longer,
 * or paused over `readTimeoutMs`).
 */
function discardRest(req: IncomingMessage, max: number, readTimeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let size = 0;
    const finish = (whole: boolean) => {
      stop();
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(whole);
    };
    const stop = whenSilent(req, readTimeoutMs, () => finish(false));
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > max) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    req.on('data', onData).on('end', onEnd).on('close', onClose);
    req.resume();
  });
}

/**
 * Answers a call that failed: a refusal with its status, anything else a 500. What is left of a refused
 * call's body is read first (DISCARD_MAX), unless it is too long or has stalled (408).
 */
export function sendFailure(req: IncomingMessage, res: ServerResponse, e: unknown, readTimeoutMs: number): void {
  if (e instanceof Refused) {
    const answer = { status: e.status, body: { error: e.message } };
    if (req.complete) return send(res, answer, e.headers);
    // The connection closes after the answer: a body not read whole would be parsed as the next request.
    const answerAndClose = (whole: boolean) => {
      send(res, answer, { ...e.headers, connection: 'close' });
      if (!whole) res.on('finish', () => req.destroy());
    };
    if (e.status === 408 || Number(header(req, 'content-length') ?? 0) > DISCARD_MAX) answerAndClose(false);
    else void discardRest(req, DISCARD_MAX, readTimeoutMs).then(answerAndClose);
    return;
  }
  send(res, { status: 500, body: { error: toScriptError(e).message } });
}

/**
 * Routing and authentication of the webhook endpoint (spec §4.1, §5, §7; decision C.6), the same for
 * `sqlcdc serve` and `%webhook start`, with the status of every refusal in this order — 400 an HTTP/1.1
 * request without Host (RFC 9112), 404 another
 * path, 405 another method, 401 no valid access key, 400 no or malformed guid, 404 unknown guid (and
 * 400 a direct job's writer guid: `jobOf`), 403 a job not enabled for webhooks (or a reader alone),
 * 400 a bad flag; once the body is read (413 over the limit), 401 a bad signature. The job's flag and
 * secret are those of its files when the call comes in, so a job switched off or given a secret
 * meanwhile (`job update`) is refused at once by either listener.
 */
export class Gate {
  // A client calls with the same URL again and again: its query is read once, and the guid and flags
  // it holds are checked once (a refusal kept as it would be thrown).
  private readonly targets = new Map<string, Target>();

  constructor(private readonly options: GateOptions) {}

  route(req: IncomingMessage): Routed {
    if (req.httpVersion === '1.1' && req.headers.host === undefined)
      throw new Refused(400, 'an HTTP/1.1 request needs a Host header');
    const target = this.target(req.url ?? '/');
    if (!METHODS.has(req.method ?? ''))
      throw new Refused(405, `method ${req.method} is not allowed on ${PUSH_PATH}`, {
        allow: [...METHODS].join(', '),
      });
    const { access } = this.options;
    if (access && !access.accepts(header(req, 'authorization')))
      throw new Refused(401, `missing or wrong access key (${access.hint})`, { 'www-authenticate': 'Bearer' });
    if (target.guid instanceof Refused) throw target.guid;
    const current = this.options.jobOf(target.guid);
    if (current && (!current.job.webhook || !hasWriter(current.job)))
      throw new Refused(403, `job ${current.job.name} is not enabled for webhooks`);
    const { flags } = target;
    if (flags instanceof Refused) throw flags;
    // Property by property, not `{ ...flags, contentType }`: V8 (Node 20) gave each spread copy a hidden
    // class of its own when the property was added, on its slow path (~1 µs), and every later read of
    // the parameters then missed its inline cache (perf under the bench's load: ~2% of the listener).
    const params: CallParameters = {
      rootPath: flags.rootPath,
      form2json: flags.form2json,
      bypassTriggers: flags.bypassTriggers,
      startWriter: flags.startWriter,
      contentType: header(req, 'content-type'),
    };
    return { current, params };
  }

  /** Refuses (401) a call to a job with a signing secret that is not signed with it. */
  verify(current: CurrentJob | null, body: Buffer, req: IncomingMessage): void {
    const secret = current && this.options.jobs?.signingSecret(current.job);
    if (!secret) return;
    const problem = signatureProblem(secret, body, req.headers);
    if (problem) throw new Refused(401, problem);
  }

  private target(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      target = targetOf(url);
      if (this.targets.size >= QUERIES_KEPT) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }
}

/** What a call's URL says, each part checked: the job's guid and the call's flags, or why not. */
interface Target {
  guid: string | Refused;
  flags: Omit<CallParameters, 'contentType'> | Refused;
}

/** A call's URL read (a 404 for another path is thrown: it comes first of all refusals). */
function targetOf(url: string): Target {
  const query = queryOf(url);
  return { guid: attempt(() => guidOf(query)), flags: attempt(() => flagsOf(query)) };
}

function attempt<T>(read: () => T): T | Refused {
  try {
    return read();
  } catch (e) {
    if (e instanceof Refused) return e;
    throw e;
  }
}

function guidOf(query: URLSearchParams): string {
  const guid = query.get('guid') ?? query.get('jobguid');
  if (!guid) throw new Refused(400, 'the guid query parameter (or jobguid) is required');
  if (!/^\{?[0-9a-fA-F-]{32,36}\}?$/.test(guid.trim()))
    throw new Refused(400, `guid must be 32 hexadecimal digits, not '${guid}'`);
  return guid.trim();
}

function flagsOf(query: URLSearchParams): Omit<CallParameters, 'contentType'> {
  return {
    rootPath: query.get('rootpath') ?? undefined,
    form2json: flag(query, 'form2json', false),
    bypassTriggers: flag(query, 'bypasstriggers', false),
    startWriter: flag(query, 'startwriter', true),
  };
}
