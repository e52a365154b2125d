import { ScriptError } from '../errors';
import { parseDocument, valueAtPath } from '../docpath';
import { documentKind } from '../sources/tx';
import type { RetryPolicy } from '../script/ast';
import { AnswerTooLarge, decodeBody, sendHttp, type CallContext, type HttpRequest, type HttpResponse } from './request';

/**
 * When a call is tried again, as PUSH INTO HTTP (and APPLY/SELECT HTTP) ask:
 * - `policy` (WITH RETRY LINEAR|EXPONENTIAL (n, p)): a call that failed — a network error, a 5xx, a 429 —
 *   is retried up to n times, waiting p seconds (LINEAR) or p·2^i (EXPONENTIAL), with ±20 % jitter so
 *   many clients do not come back at once; a Retry-After header (seconds or a date) is honoured instead.
 * - `body` (RETRY_ON / RETRY_ONREGEX, RETRY_PATH, RETRY_INTERVAL, RETRY_COUNT): a call answered with a
 *   body that says "try again" (the text found, or the regex matching, in the body or its RETRY_PATH
 *   node) is retried up to `count` times every `intervalSeconds`. Without a `policy`, a 429 or 503
 *   answer with Retry-After is such a "try again" too, after the wait it asks (at most
 *   MAX_BODY_RETRY_AFTER_SECONDS).
 */
export interface RetryRules {
  policy?: Pick<RetryPolicy, 'kind' | 'count' | 'seconds'>;
  body?: { text?: string; regex?: RegExp; path?: string; count: number; intervalSeconds: number };
}

/** A repeat about to be made: why, and how long it waits first. */
export interface Retry {
  why: string;
  seconds: number;
  /** What the answer's Retry-After asked, when the wait comes from it (`seconds` may be less: a cap). */
  asked?: number;
  /** A repeat of the RETRY_ON family (a "try again" body, or a throttling answer): which of RETRY_COUNT. */
  bodyRetry?: { n: number; count: number };
}

export interface Attempted {
  response: HttpResponse;
  /** How many times the call was repeated (0: it succeeded or failed the first time). */
  retries: number;
}

/** The most a Retry-After may make us wait; a server asking for more fails the call instead. */
const MAX_RETRY_AFTER_SECONDS = 300;

/**
 * The most a Retry-After makes RETRY_ON / RETRY_ONREGEX wait before the next try: a read or a join
 * waits in the user's cell, so a longer wait is cut short to this and counted as one of RETRY_COUNT.
 */
const MAX_BODY_RETRY_AFTER_SECONDS = 60;

/** Sends `request`, repeating it per `rules`. A failure left after the retries is thrown (transport) or returned (status). */
export async function sendWithRetries(
  request: HttpRequest,
  call: CallContext,
  rules: RetryRules,
  onRetry?: (retry: Retry) => void,
): Promise<Attempted> {
  let policyRetries = 0;
  let bodyRetries = 0;
  for (;;) {
    let response: HttpResponse | undefined;
    // sendHttp fails with ScriptErrors (transport, timeout), a defect with some other Error.
    let failure: Error | undefined;
    try {
      response = await sendHttp(request, call);
    } catch (e) {
      if ((e instanceof ScriptError && e.kind === 'cancelled') || e instanceof AnswerTooLarge) throw e;
      failure = e as Error;
    }
    const retries = policyRetries + bodyRetries;
    const transient = failure !== undefined || response!.status >= 500 || response!.status === 429;
    const body = rules.body;
    if (!rules.policy && body && bodyRetries < body.count && throttled(response)) {
      bodyRetries++;
      const asked = retryAfter(response)!;
      const wait = Math.min(asked, MAX_BODY_RETRY_AFTER_SECONDS);
      onRetry?.({
        why: `HTTP ${response!.status}`,
        seconds: wait,
        asked,
        bodyRetry: { n: bodyRetries, count: body.count },
      });
      await sleep(wait, call.signal);
      continue;
    }
    if (transient) {
      const policy = rules.policy;
      if (!policy || policyRetries >= policy.count) {
        if (failure !== undefined) throw failure;
        return { response: response!, retries };
      }
      const asked = retryAfter(response);
      if (asked !== undefined && asked > MAX_RETRY_AFTER_SECONDS) return { response: response!, retries };
      const wait = asked ?? backoff(policy, policyRetries);
      policyRetries++;
      onRetry?.({ why: failure !== undefined ? failure.message : `HTTP ${response!.status}`, seconds: wait, asked });
      await sleep(wait, call.signal);
      continue;
    }
    if (body && bodyRetries < body.count && asksToRetry(response!, body)) {
      bodyRetries++;
      onRetry?.({
        why: 'the response asked to retry',
        seconds: body.intervalSeconds,
        bodyRetry: { n: bodyRetries, count: body.count },
      });
      await sleep(body.intervalSeconds, call.signal);
      continue;
    }
    return { response: response!, retries };
  }
}

/**
 * What a call says before a wait of the RETRY_ON family, which keeps the cell quiet meanwhile (as
 * `curl --retry` says "Will retry in 1 seconds"): the call, what asked for the wait and how long it is.
 * Undefined for WITH RETRY's backoff, which PUSH INTO HTTP counts in its progress line instead.
 */
export function retryNotice(call: string, { why, seconds, asked, bodyRetry }: Retry): string | undefined {
  if (!bodyRetry) return undefined;
  if (asked !== undefined) {
    const cap = asked > seconds ? ` (${MAX_BODY_RETRY_AFTER_SECONDS} s at most)` : '';
    return `${why} from ${call}: Retry-After ${Math.round(asked)} s; trying again in ${Math.round(seconds)} s${cap}`;
  }
  return `the response of ${call} asked to retry; trying again in ${seconds} s (RETRY_INTERVAL; ${bodyRetry.n} of ${bodyRetry.count})`;
}

/** Seconds before retry `attempt` (0-based) of a WITH RETRY policy; PUSH INTO DRIVE waits the same way. */
export function backoff(policy: NonNullable<RetryRules['policy']>, attempt: number): number {
  const base = policy.kind === 'EXPONENTIAL' ? policy.seconds * 2 ** attempt : policy.seconds;
  return base * (0.8 + Math.random() * 0.4);
}

/** A 429 or 503 saying when to come back: the server's own "try again". */
function throttled(response: HttpResponse | undefined): boolean {
  return (response?.status === 429 || response?.status === 503) && retryAfter(response) !== undefined;
}

/** Seconds a 429/503 asks to wait, from Retry-After (delta seconds or an HTTP date). */
function retryAfter(response: HttpResponse | undefined): number | undefined {
  const value = response?.headers['retry-after'];
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

function asksToRetry(response: HttpResponse, rule: NonNullable<RetryRules['body']>): boolean {
  let text = decodeBody(response);
  if (rule.path) {
    try {
      const kind = documentKind(text, response.mediaType);
      text = valueAtPath(parseDocument(text, kind), kind, rule.path) ?? '';
    } catch {
      return false;
    }
  }
  return rule.regex ? rule.regex.test(text) : rule.text !== undefined && text.includes(rule.text);
}

/** Waits, or rejects with a cancelled ScriptError when the run is cancelled first. */
export function sleep(seconds: number, signal: AbortSignal): Promise<void> {
  if (seconds <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', cancel);
    };
    const cancel = () => {
      done();
      reject(new ScriptError('cancelled', 'cancelled'));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, seconds * 1000);
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
  });
}
