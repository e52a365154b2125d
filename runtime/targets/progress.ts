/** The part of a push's tally its progress line reads. */
export interface ProgressTally {
  rows: number;
  total: number;
  /** performance.now() when the push started, and when progress was last shown. */
  started: number;
  shown: number;
}

/** How often a long push redraws its progress. */
const PROGRESS_EVERY_MS = 250;

/**
 * The progress line of a push (`PUSH INTO HTTP: 10 / 100 rows, <details>, 40 rows/s`), or undefined
 * while the last one is younger than PROGRESS_EVERY_MS; the final one (`done`) is always made.
 * `details` is a module-level function of the tally, so a throttled call builds no text.
 */
export function progressLine<T extends ProgressTally>(
  statement: string,
  t: T,
  details: (t: T) => string,
  done: boolean,
): string | undefined {
  const now = performance.now();
  if (!done && now - t.shown < PROGRESS_EVERY_MS) return undefined;
  t.shown = now;
  const seconds = (now - t.started) / 1000;
  const rate = seconds > 0 ? Math.round(t.rows / seconds) : 0;
  return `${statement}: ${t.rows.toLocaleString('en-US')} / ${t.total.toLocaleString('en-US')} rows, ${details(t)}, ${rate.toLocaleString('en-US')} rows/s`;
}
