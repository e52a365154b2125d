let last = 0;

/**
 * A new execution id: the Unix time in milliseconds, kept strictly increasing within the process so
 * two runs started in the same millisecond (a cell and a webhook call) never share a change log name.
 */
export function nextExecutionId(): string {
  last = Math.max(Date.now(), last + 1);
  return String(last);
}

/**
 * Makes the next ids exceed `id`: a listener restarted right after taking calls faster than one per
 * millisecond finds its logs named by ids ahead of the clock, and must not reuse one.
 */
export function continueAfter(id: bigint): void {
  if (id > BigInt(last)) last = Number(id);
}
