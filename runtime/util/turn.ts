import { ScriptError } from '../errors';

/**
 * A turn of the event loop for what waits on it (Ctrl-C, the kernel's control channel and heartbeat,
 * the REPL's echo) between parts of a long synchronous job.
 */
export function turn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** A turn, then `cancelled` if `signal` was aborted meanwhile. */
export async function turnOrCancel(signal: AbortSignal): Promise<void> {
  await turn();
  if (signal.aborted) throw new ScriptError('cancelled', 'cancelled');
}

/**
 * What a job written as a generator yields between its parts: nothing (a turn may come here), or a
 * wait to await first (another thread's part of the work).
 */
export type Pause = (() => Promise<unknown>) | void;

/** The job's value, its parts run back to back (no turn, no wait: its waits block instead). */
export function atOnce<T>(steps: Generator<Pause, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The job's value, with a turn of the event loop between its parts, and a look at `signal` there
 * (without one, nothing cancels the job: a part of the work that must finish once begun).
 */
export async function inTurns<T>(steps: Generator<Pause, T>, signal?: AbortSignal): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (step.value) await step.value();
    await (signal ? turnOrCancel(signal) : turn());
  }
}
