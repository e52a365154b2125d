/** Problems of a process speaking the protocol (a dropped message, a failed send) go to its stderr. */
export function logError(text: string): void {
  process.stderr.write(`[sqlcdc] ${text}\n`);
}
