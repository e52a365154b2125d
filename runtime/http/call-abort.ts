import { EventEmitter } from 'node:events';

/**
 * The abort handle of one HTTP call: it fires when the statement is cancelled or when the call's
 * TIMEOUT has passed. It is an EventEmitter with `aborted` and `reason`, which undici accepts as a
 * request's `signal`, because AbortSignals are what a loopback call costs most beyond undici's own
 * work: ~5 µs to create one, ~30 µs for AbortSignal.timeout + AbortSignal.any with the weak
 * references they leave to the garbage collector, ~1 µs to add and remove a listener on the
 * statement's signal (bench/push.ts, docs/push.md "Performance"). So a statement's signal gets one
 * listener, for all its calls in flight.
 */
export class CallAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  /** The call's time ran out (rather than the statement being cancelled). */
  timedOut = false;
  private readonly timer?: NodeJS.Timeout;
  private readonly calls?: Set<CallAbort>;

  /** `seconds` 0: no time limit. */
  constructor(statement: AbortSignal, seconds: number) {
    super();
    if (statement.aborted) {
      this.abort(statement.reason);
      return;
    }
    this.calls = callsOf(statement);
    this.calls.add(this);
    if (seconds > 0) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.abort(new Error(`timed out after ${seconds} s`));
      }, seconds * 1000);
    }
  }

  /** The call ended, whichever way: stop the timer and stop listening to the statement. */
  done(): void {
    clearTimeout(this.timer);
    this.calls?.delete(this);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** The calls in flight under each statement signal; the entry goes with the signal. */
const inFlight = new WeakMap<AbortSignal, Set<CallAbort>>();

function callsOf(statement: AbortSignal): Set<CallAbort> {
  let calls = inFlight.get(statement);
  if (!calls) {
    const set = new Set<CallAbort>();
    statement.addEventListener(
      'abort',
      () => {
        for (const call of set) call.abort(statement.reason);
      },
      { once: true },
    );
    inFlight.set(statement, set);
    calls = set;
  }
  return calls;
}
