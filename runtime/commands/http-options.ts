import { ScriptError } from '../errors';
import { evaluateText, type CompileOptions } from '../functions/evaluate';
import { describeCall, statusError, type CallContext, type HttpRequest, type HttpResponse } from '../http/request';
import { retryNotice, sendWithRetries, type Retry, type RetryRules } from '../http/retry';
import { Tracer } from '../targets/trace';
import type { CommandContext } from './command';
import type { Scope } from '../scope';
import type { HttpOptions, RetryOptions, Text } from '../script/ast';
import { userRegExp } from '../util/user-regex';

/**
 * How a HEADERS text is compiled: it is always JSON, so a field is written as JSON (a string quoted, or
 * escaped inside a string) and a value holding `"` or `\` cannot add or replace a header.
 */
export const HEADERS_TEMPLATE: CompileOptions = { fieldStyle: 'json' };

/**
 * How the URL of an HTTP command is compiled: a `{{field}}` or `{{@variable}}` after the URL's head is
 * percent-encoded as one component, so its value cannot add a path segment, a query parameter or a
 * fragment; one in the head (a whole URL, a base URL, a host) is taken as written; function results
 * are never encoded, so `#urlencode(…)` is not encoded twice (field-style.ts, docs/sources.md).
 */
export const URL_TEMPLATE: CompileOptions = { fieldStyle: 'url', stringsOnly: true };

/**
 * How a PAYLOAD text is compiled. In a JSON payload (JSON-looking text, `{` or `[` first, sent without
 * CONTENT_TYPE or with a JSON one), a field inside a string literal (`"name": "{{name}}"`) is written
 * escaped, so a value holding `"`, `\` or a line break keeps the document valid and cannot add members;
 * a field outside strings is written as it is (a number, or a column holding JSON text).
 */
export function payloadTemplate(payload: Text, contentType: string | undefined): CompileOptions {
  const json = /^\s*[[{]/.test(payload.value) && (contentType === undefined || /json/i.test(contentType));
  return json ? { fieldStyle: 'json', stringsOnly: true } : {};
}

/** RETRY_ON / RETRY_ONREGEX with RETRY_PATH, RETRY_COUNT (default 1) and RETRY_INTERVAL (default 1 s), as retry.ts takes them. */
export function bodyRetry(o: RetryOptions, scope: Scope): RetryRules['body'] {
  const text = o.retryOn && evaluateText(o.retryOn, scope);
  const regex = o.retryOnRegex && userRegex(o.retryOnRegex);
  if (text === undefined && regex === undefined) return undefined;
  return { text, regex, path: o.retryPath?.value, count: o.retryCount ?? 1, intervalSeconds: o.retryInterval ?? 1 };
}

/** SELECT, APPLY and PUSH HTTP warn before a wait RETRY_ON or a server's Retry-After asks (the cell is quiet meanwhile). */
export function warnOfRetry(ctx: CommandContext, request: HttpRequest, retry: Retry): void {
  const text = retryNotice(describeCall(request), retry);
  if (text !== undefined) ctx.emit({ kind: 'warning', text });
}

/** A regular expression the user wrote (THROW_ON_REGEX, RETRY_ONREGEX); a bad one is an error at its text. */
export function userRegex(text: Text): RegExp {
  try {
    return userRegExp(text.value);
  } catch (e) {
    throw new ScriptError(`not a regular expression: ${(e as Error).message}`, 'semantic', text.pos);
  }
}

/** A list of HTTP status codes (CONTINUE_ON_HTTP '409,422', CONTINUE_ON_HTTPERROR). */
export function statusCodes(text: Text | undefined): Set<number> {
  const codes = new Set<number>();
  if (!text) return codes;
  for (const part of text.value.split(',')) {
    const code = Number(part.trim());
    if (!Number.isInteger(code) || code < 100 || code > 599)
      throw new ScriptError(`'${part.trim()}' is not an HTTP status code (e.g. '409,422')`, 'semantic', text.pos);
    codes.add(code);
  }
  return codes;
}

/**
 * The calls of a SELECT or APPLY HTTP, with the options reference.md gives both: RETRY_ON /
 * RETRY_ONREGEX (RETRY_PATH, RETRY_INTERVAL, RETRY_COUNT) repeat a call whose answer says to try
 * again, a server's Retry-After is waited with a warning, TRACE INTO records every call, and a status
 * CONTINUE_ON_HTTPERROR lists is let through: `send` answers why, where any other failing status is
 * an error.
 */
export class ReadCalls {
  private readonly retry: RetryRules;
  private readonly continueOn: Set<number>;
  private readonly transport: CallContext;
  readonly tracer?: Tracer;

  constructor(
    o: HttpOptions,
    private readonly ctx: CommandContext,
  ) {
    this.retry = { body: bodyRetry(o, ctx) };
    this.continueOn = statusCodes(o.continueOnHttpError);
    this.tracer = o.trace && new Tracer(o.trace, ctx, ctx.signal);
    this.transport = { resources: ctx.session.resources, workspace: ctx.session.workspace, signal: ctx.signal };
  }

  async send(request: HttpRequest): Promise<HttpResponse | { letThrough: string }> {
    const started = new Date();
    const { response } = await sendWithRetries(request, this.transport, this.retry, (retry) =>
      warnOfRetry(this.ctx, request, retry),
    );
    await this.tracer?.record(request, response, started);
    if (response.status < 400) return response;
    if (!this.continueOn.has(response.status)) throw statusError(response, request);
    return { letThrough: `HTTP ${response.status} from ${describeCall(request)}` };
  }
}
