import { whileHoldingFileLock } from '../workspace/file-lock';

/** The CAPTUREs of this process under way or waiting, per state file: the last one's end. */
const queues = new Map<string, Promise<void>>();

/**
 * Runs `fn` (a CAPTURE: read the CDC state, diff, write the log, commit the state) as the only run
 * capturing into `state`, in this process (a listener's calls at once) and in any other on the
 * workspace (`<state>.lock`). Two runs that overlapped would both diff against the same state and
 * the last to commit would drop the other's changes from it: the next run would not report a
 * record's return to what that state holds, and a target fed the logs would keep the other value.
 * `waiting` is called once when another run holds it; `signal` stops the wait. A CAPTURE without
 * KEYS keeps no state (`state` undefined): its runs have nothing to share.
 */
export async function capturing<T>(
  state: string | undefined,
  options: { signal?: AbortSignal; waiting: () => void },
  fn: () => Promise<T>,
): Promise<T> {
  if (state === undefined) return fn();
  const before = queues.get(state);
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const last = (before ?? Promise.resolve()).then(() => mine);
  queues.set(state, last);
  try {
    if (before) {
      options.waiting();
      await abortable(before, options.signal);
    }
    return await whileHoldingFileLock(
      state,
      { signal: options.signal, waiting: before ? undefined : options.waiting },
      fn,
    );
  } finally {
    done();
    if (queues.get(state) === last) queues.delete(state);
  }
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason as Error);
    signal.addEventListener('abort', stop, { once: true });
    void promise.then(() => (signal.removeEventListener('abort', stop), resolve()));
  });
}
