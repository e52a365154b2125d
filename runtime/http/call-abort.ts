import { EventEmitter } from 'node:events';

/**
 * The abort handle of one HTTP call: it fires when the statement is cancelled or when the call's
 * TIMEOUT has passed. It is an EventEmitter with `aborted` and `reason`, which undici accepts as a
 * request's `signal`, because an AbortSignal per call is what a loopback call costs most beyond
 * undici's own work: ~5 µs to create one, ~30 µs for AbortSignal.timeout + AbortSignal.any with the
 * weak references they leave to the garbage collector (bench/push.ts, docs/push.md "Performance").
 */
export class CallAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  /** The call's time ran out (rather than the statement being cancelled). */
  timedOut = false;
  private readonly timer?: NodeJS.Timeout;
  private readonly cancel: () => void;

  /** `seconds` 0: no time limit. */
  constructor(
    private readonly statement: AbortSignal,
    seconds: number,
  ) {
    super();
    this.cancel = () => this.abort(statement.reason);
    if (statement.aborted) {
      this.abort(statement.reason);
      return;
    }
    statement.addEventListener('abort', this.cancel);
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
    this.statement.removeEventListener('abort', this.cancel);
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}
