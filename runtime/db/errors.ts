import { ScriptError } from '../errors';
import { MASK, redactUrlsIn } from '../workspace/redact';

/**
 * A driver's error as a ScriptError with the engine's own message (PostgreSQL's detail, context and
 * hint added: the context says which COPY line and column, or which function line, failed), `secrets`
 * masked. ScriptErrors (a nested statement's, already positioned), cancellations and what is not an
 * Error (EXIT's signal) pass through unchanged.
 */
export function engineError(e: unknown, secrets: readonly string[] = []): unknown {
  if (!(e instanceof Error) || e instanceof ScriptError || e.name === 'AbortError') return e;
  const pg = e as Error & { detail?: string; hint?: string; where?: string };
  let message = e.message;
  if (pg.detail) message += ` (${pg.detail})`;
  if (pg.where) message += ` (${pg.where})`;
  if (pg.hint) message += ` Hint: ${pg.hint}`;
  for (const secret of secrets) if (secret) message = message.split(secret).join(MASK);
  return new ScriptError(redactUrlsIn(message), 'runtime');
}
