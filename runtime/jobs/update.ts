import { randomBytes } from 'node:crypto';
import { isSigningSecret, newSigningSecret } from '../webhook/signature';
import type { JobSettings } from './store';

/** The options of `sqlcdc job update` and `%job update`, as given. */
export interface UpdateOptions {
  webhook: boolean;
  noWebhook: boolean;
  saveSample: boolean;
  noSaveSample: boolean;
  /** A `whsec_…` secret, `-` (read by `readSecret`), or `new` (one made here, to be shown once). */
  signingSecret?: string;
  noSigningSecret: boolean;
}

/** The options of `job update`; `-` (a secret read from stdin) only where there is a stdin to read. */
export function updateOptions(stdin: boolean): string {
  return `{--webhook | --no-webhook} {--save-sample | --no-save-sample} {--signing-secret whsec_…|${stdin ? '-|' : ''}new | --no-signing-secret}`;
}

/** `sqlcdc job update`'s options. */
export const UPDATE_OPTIONS = updateOptions(true);

/**
 * The settings the options ask for, and the secret made for `--signing-secret new`, which only its
 * caller shows (once); or the problem with them, in words that never hold the secret given.
 */
export function settingsOf(
  o: UpdateOptions,
  readSecret: () => string,
): { settings: JobSettings; made?: string } | { problem: string } {
  for (const [on, off, name] of [
    [o.webhook, o.noWebhook, 'webhook'],
    [o.saveSample, o.noSaveSample, 'save-sample'],
    [o.signingSecret !== undefined, o.noSigningSecret, 'signing-secret'],
  ] as const)
    if (on && off) return { problem: `--${name} and --no-${name} cannot go together` };
  const settings: JobSettings = {};
  if (o.webhook || o.noWebhook) settings.webhook = o.webhook;
  if (o.saveSample || o.noSaveSample) settings.saveSample = o.saveSample;
  if (o.noSigningSecret) settings.signingSecret = null;
  let made: string | undefined;
  if (o.signingSecret === 'new') settings.signingSecret = made = newSigningSecret(randomBytes(24));
  else if (o.signingSecret !== undefined) {
    const secret = o.signingSecret === '-' ? readSecret().trim() : o.signingSecret;
    if (!isSigningSecret(secret))
      return {
        problem: `--signing-secret must be a Standard Webhooks secret (whsec_ and base64 of 24 to 64 bytes), '-' to read one from stdin, or 'new'`,
      };
    settings.signingSecret = secret;
  }
  if (Object.keys(settings).length === 0)
    return {
      problem: `job update needs at least one of --webhook, --no-webhook, --save-sample, --no-save-sample, --signing-secret, --no-signing-secret`,
    };
  return { settings, ...(made ? { made } : {}) };
}
