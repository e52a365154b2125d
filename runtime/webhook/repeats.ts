import type { IncomingMessage } from 'node:http';
import type { JobDefinition } from '../jobs/job';
import { header, Refused } from './gate';
import type { Answer, IdempotencyStore } from './idempotency';

/** A call's answer and the headers that say it is a repeat's. */
export interface Once {
  answer: Answer;
  headers?: Record<string, string>;
}

/**
 * Runs a call to `job` once per `webhook-id` (Standard Webhooks) or `Idempotency-Key`: a repeat within
 * the store's window gets the first answer with `Idempotent-Replayed: true`, and a key sent again with
 * another payload is refused with 422. Undefined for a call with neither header, which the caller just
 * runs (without a promise more on a listener's hot path). `sqlcdc serve` and `%webhook start --job`
 * share this, and the workspace's store, so a sender retrying against either never has a change log
 * written twice.
 */
export function answerOnce(
  store: IdempotencyStore,
  req: IncomingMessage,
  job: JobDefinition,
  body: Buffer,
  run: () => Promise<Answer>,
): Promise<Once> | undefined {
  const signed = header(req, 'webhook-id');
  const key = signed ?? header(req, 'idempotency-key');
  return key ? remembered(store, job, key, signed ? 'webhook-id' : 'Idempotency-Key', body, run) : undefined;
}

async function remembered(
  store: IdempotencyStore,
  job: JobDefinition,
  key: string,
  sentAs: string,
  body: Buffer,
  run: () => Promise<Answer>,
): Promise<Once> {
  const known = await store.answer(`${job.guid}\u0000${key}`, body, run, leftChangeLog);
  if ('conflict' in known)
    throw new Refused(
      422,
      `${sentAs} '${key}' was used with a different payload in the last 24 hours: send a new key for a new payload`,
    );
  return known.repeated
    ? { answer: known.answer, headers: { 'idempotent-replayed': 'true' } }
    : { answer: known.answer };
}

/** Whether a call's answer names the change log it left: only such a call must not run twice. */
const leftChangeLog = (answer: Answer) => (answer.body as { changeLog?: unknown }).changeLog != null;
