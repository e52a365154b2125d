let last = 0;

/**
 * A new execution id: the Unix time in milliseconds, kept strictly increasing within the process so
 * two runs started in the same millisecond (a cell and a webhook call) never share a change log name.
 */
export function nextExecutionId(): string {
  last = Math.max(Date.now(), last + 1);
  return String(last);
}
