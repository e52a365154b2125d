import type { OpenSession } from '../runtime/admin';

type Interpreter = typeof import('../runtime/interpreter');
type Checker = typeof import('../runtime/check');

/**
 * The interpreter (the session, the parser, the commands, the function library), loaded by the first
 * CLI action that runs a script. The actions that only read and write the workspace (`job
 * list`, `webhook key new`…) answer without it: it is most of the CLI's start-up (docs/cli.md, "Speed").
 */
export function interpreter(): Interpreter {
  return require('../runtime/interpreter') as Interpreter;
}

/** The whole runtime, for `changelog replay` (the change log reader and player besides the interpreter). */
export function runtime(): typeof import('../runtime/index') {
  return require('../runtime/index') as typeof import('../runtime/index');
}

/** The statement parser alone, loaded by the first action that checks a script it does not run. */
export function scriptChecker(): Checker {
  return require('../runtime/check') as Checker;
}

/** The sessions a job store opens for runs: the interpreter loads with the first. */
export const openSession: OpenSession = (options) => new (interpreter().Session)(options);
