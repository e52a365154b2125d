import type { IncomingHttpHeaders } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/**
 * Checks a Standard Webhooks signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`: an
 * HMAC-SHA256 of `id.timestamp.body` under the job's `whsec_` secret). The package compares in
 * constant time and refuses timestamps more than 5 minutes from now, which bounds replays; within
 * that window a replayed `webhook-id` is answered from the idempotency store. Returns why a call
 * fails, or undefined when it is signed correctly.
 */
export function signatureProblem(secret: string, body: Buffer, headers: IncomingHttpHeaders): string | undefined {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = one('webhook-id');
  const timestamp = one('webhook-timestamp');
  const signature = one('webhook-signature');
  if (!id || !timestamp || !signature)
    return 'this job requires a Standard Webhooks signature (webhook-id, webhook-timestamp and webhook-signature headers)';
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    });
    return undefined;
  } catch (e) {
    if (e instanceof WebhookVerificationError) return `signature refused: ${e.message}`;
    throw e;
  }
}

/** A new signing secret in the Standard Webhooks form. */
export function newSigningSecret(random: Buffer): string {
  return `whsec_${random.toString('base64')}`;
}

/**
 * Whether `text` is a Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 random bytes, as
 * the specification asks of senders (Svix and others give their endpoints' secrets so).
 */
export function isSigningSecret(text: string): boolean {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(text);
  if (!m || m[1].length % 4 !== 0) return false;
  const bytes = Buffer.from(m[1], 'base64').length;
  return bytes >= 24 && bytes <= 64;
}
