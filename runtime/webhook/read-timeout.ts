import type { IncomingMessage, ServerOptions } from 'node:http';

/**
 * How long a webhook listener waits on a sender (docs/webhook.md, "Slow senders"), as nginx's
 * client_header_timeout and client_body_timeout: the request line and headers must arrive within it,
 * and the body may not pause longer than it between two reads. A large body over a slow link gets
 * through as long as bytes keep coming; a sender that trickles or stalls is answered 408 and cut.
 * Node's own whole-request limit (5 minutes) is off: it would cut the slow large body, and let a
 * staller hold a connection that long.
 */
export const READ_TIMEOUT_MS = 60_000;

/** The longest wait between Node's checks of the header time (its default is 30 s). */
const CHECK_MS = 5_000;

/** Node's server options for a listener reading with `readTimeoutMs`. */
export function readTimeoutOptions(readTimeoutMs: number): ServerOptions {
  return {
    headersTimeout: readTimeoutMs,
    requestTimeout: 0,
    connectionsCheckingInterval: Math.min(CHECK_MS, Math.max(1, Math.floor(readTimeoutMs / 4))),
  };
}

/**
 * Calls `onSilent` once the request's connection has received nothing for `ms`, unless the returned
 * stop comes first (the body ended). The socket's own inactivity timer, which every read re-arms; Node
 * hands its timeout to the request while the request is not whole, and destroys the socket only when
 * nobody listens there, so the answer can still be written.
 */
export function whenSilent(req: IncomingMessage, ms: number, onSilent: () => void): () => void {
  const fire = () => {
    stop();
    onSilent();
  };
  const stop = () => {
    req.socket.setTimeout(0);
    req.off('timeout', fire);
  };
  req.setTimeout(ms);
  req.on('timeout', fire);
  return stop;
}

let afterRead: (() => void)[] = [];

/**
 * Runs `check` once the bytes read with a request's headers are parsed, to tell a body still coming
 * from one that came with its headers (most calls'). Node's parser hands a request over at its
 * headers, and `process.nextTick` runs before it parses on to the body even when the body came in
 * the same read: checked then, every call's body looked unfinished and armed its stall timer (a
 * `Timeout`, a bound function and two changes of the timer list a call, counted in a listener under
 * load). In the next turn of the event loop such a body is complete. The checks of all the requests
 * read in one turn share one immediate.
 */
export function afterParsing(check: () => void): void {
  if (afterRead.push(check) === 1) setImmediate(runChecks);
}

function runChecks(): void {
  const checks = afterRead;
  afterRead = [];
  for (const check of checks) check();
}
