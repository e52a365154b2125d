import { positionIn, ScriptError, type Position } from '../errors';
import type { Text } from '../script/ast';
import { MASK, redactUrlsIn } from '../workspace/redact';

/** The SQL sent: where each of its characters was written in the script's SQL (renderSql). */
export interface SentSql {
  sourceAt(index: number): number;
}

/** The script's SQL a driver error was raised running, and the SQL sent for it (atSql). */
const runningSql = new WeakMap<Error, { text: Text; sent?: SentSql }>();

/**
 * Runs `work`, which runs the SQL a statement wrote (`text`; `sent`: the SQL sent for it, when one
 * statement or script is sent): a driver error it raises is placed in that SQL when engineError turns
 * it into a ScriptError, rather than at the statement's first word. An inner call, which knows the
 * statement sent, decides. Errors of what surrounds it (connecting, a temporary table) keep the
 * statement's place.
 */
export async function atSql<T>(text: Text, work: () => Promise<T>, sent?: SentSql): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof Error && !(e instanceof ScriptError) && !runningSql.has(e)) runningSql.set(e, { text, sent });
    throw e;
  }
}

/**
 * Where in the script's SQL the engine says it failed: PostgreSQL gives the character of the SQL sent
 * (mapped back past the placeholders `$1`… standing for fields and calls), SQLite the word a syntax
 * error is near (when it is there once); else the SQL's first word.
 */
function placeInSql(e: Error, { text, sent }: { text: Text; sent?: SentSql }): Position | undefined {
  const value = text.value;
  let index = value.length - value.trimStart().length;
  const pgPosition = Number((e as { position?: string }).position);
  const near = /^near "([^"]+)": syntax error/.exec(e.message)?.[1];
  if (pgPosition > 0 && sent !== undefined) index = sent.sourceAt(pgPosition - 1);
  else if (near !== undefined && value.indexOf(near) >= 0 && value.indexOf(near) === value.lastIndexOf(near))
    index = value.indexOf(near);
  return positionIn(text.pos, value, index);
}

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
  const sql = runningSql.get(e);
  return new ScriptError(redactUrlsIn(message), 'runtime', sql && placeInSql(e, sql));
}
