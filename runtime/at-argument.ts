import { toScriptError, type Position } from './errors';

/**
 * Runs one step of a command "at" one of its arguments (a file path, an ON column, a connection, a
 * type name, an HTTP target): an error the step throws without a position gets the argument's, so the
 * caret lands under what is wrong instead of at the statement's start. A position set deeper (a
 * character inside an expression) is kept, and so is anything that is not an Error (EXIT's signal
 * passing through a nested pipeline) and a cancellation, which has no place in the text.
 */
export function atArgument<T>(argument: { pos: Position } | undefined, step: () => T): T {
  if (!argument) return step();
  try {
    const out = step();
    if (out instanceof Promise) return out.catch((e: unknown) => Promise.reject(relocate(e, argument.pos))) as T;
    return out;
  } catch (e) {
    throw relocate(e, argument.pos);
  }
}

function relocate(e: unknown, pos: Position): unknown {
  if (!(e instanceof Error)) return e;
  const error = toScriptError(e);
  return error.kind === 'cancelled' ? error : error.locate(pos);
}
