import type { Result } from '../results';
import type { Session } from '../session';

/**
 * A magic: a front-end-independent command of the session (not SQL CDC). Both the REPL and the
 * kernel run magics through Session.execute, so each exists once.
 */
export interface Magic {
  name: string;
  /** One line: `%name <args>` as the user types it. */
  usage: string;
  description: string;
  /** Subcommands/words offered by completion after `%name `. */
  words?: string[];
  run(session: Session, args: string): AsyncIterable<Result> | Iterable<Result> | Promise<Result[]>;
}
