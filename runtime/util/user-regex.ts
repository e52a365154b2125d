import { setFlagsFromString } from 'node:v8';

let linearFallback = false;

/**
 * A regular expression a script wrote (APPLY FILTER REGEX, THROW_ON_REGEX, RETRY_ON). V8 backtracks:
 * `^(a|a)+$` over forty characters would run for days inside one call, holding the event loop, so no
 * Ctrl-C, kernel interrupt or heartbeat gets a turn. With this V8 flag an expression that backtracks
 * more than 50,000 times goes on in V8's linear-time engine, with the same matches; only what that
 * engine cannot run (backreferences, lookarounds, the `i` and `u` flags in Node 20's V8) still backtracks. The flag is process-wide and set
 * before the first such expression; other expressions never reach the threshold and run as before.
 * Throws the engine's SyntaxError for an invalid expression.
 */
export function userRegExp(source: string, flags = ''): RegExp {
  if (!linearFallback) {
    setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
    linearFallback = true;
  }
  return new RegExp(source, flags);
}
