import { ScriptError } from '../errors';
import { evaluateText, type CompileOptions } from '../functions/evaluate';
import { describeCall, type HttpRequest } from '../http/request';
import { retryAfterNotice, type Retry, type RetryRules } from '../http/retry';
import type { CommandContext } from './command';
import type { Scope } from '../scope';
import type { RetryOptions, Text } from '../script/ast';

/**
 * How a HEADERS text is compiled: it is always JSON, so a field is written as JSON (a string quoted, or
 * escaped inside a string) and a value holding `"` or `\` cannot add or replace a header.
 */
export const HEADERS_TEMPLATE: CompileOptions = { fieldStyle: 'json' };

/** RETRY_ON / RETRY_ONREGEX with RETRY_PATH, RETRY_COUNT (default 1) and RETRY_INTERVAL (default 1 s), as retry.ts takes them. */
export function bodyRetry(o: RetryOptions, scope: Scope): RetryRules['body'] {
  const text = o.retryOn && evaluateText(o.retryOn, scope);
  const regex = o.retryOnRegex && userRegex(o.retryOnRegex);
  if (text === undefined && regex === undefined) return undefined;
  return { text, regex, path: o.retryPath?.value, count: o.retryCount ?? 1, intervalSeconds: o.retryInterval ?? 1 };
}

/** SELECT and APPLY HTTP warn before waiting on a server's Retry-After (the cell is quiet meanwhile). */
export function warnOfRetryAfter(ctx: CommandContext, request: HttpRequest): (retry: Retry) => void {
  return (retry) => {
    const text = retryAfterNotice(describeCall(request.method, request.url), retry);
    if (text !== undefined) ctx.emit({ kind: 'warning', text });
  };
}

/** A regular expression the user wrote (THROW_ON_REGEX, RETRY_ONREGEX); a bad one is an error at its text. */
export function userRegex(text: Text): RegExp {
  try {
    return new RegExp(text.value);
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
