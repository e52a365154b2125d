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
 * another payload is refused with 422. A call with neither header just runs. `sqlcdc serve` and
 * `%webhook start --job` share this, and the workspace's store, so a sender retrying against either
 * never has a change log written twice.
 */
export async function answerOnce(
  store: IdempotencyStore,
  req: IncomingMessage,
  job: JobDefinition,
  body: Buffer,
  run: () => Promise<Answer>,
): Promise<Once> {
  const signed = header(req, 'webhook-id');
  const key = signed ?? header(req, 'idempotency-key');
  if (!key) return { answer: await run() };
  const remembered = await store.answer(`${job.guid}\u0000${key}`, body, run, leftChangeLog);
  if ('conflict' in remembered)
    throw new Refused(
      422,
      `${signed ? 'webhook-id' : 'Idempotency-Key'} '${key}' was used with a different payload in the last 24 hours: send a new key for a new payload`,
    );
  return remembered.repeated
    ? { answer: remembered.answer, headers: { 'idempotent-replayed': 'true' } }
    : { answer: remembered.answer };
}

/** Whether a call's answer names the change log it left: only such a call must not run twice. */
const leftChangeLog = (answer: Answer) => (answer.body as { changeLog?: unknown }).changeLog != null;
