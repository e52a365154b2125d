let lastMs = NaN;
let lastText = '';

/**
 * `new Date(ms).toISOString()`, remembered for the last millisecond asked: a listener stamps each
 * call's run record and change log header, and calls arriving in the same millisecond (ten or more
 * under load) share one formatting, which V8 does through its printf.
 */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}
