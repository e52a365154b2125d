import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from '../runtime/support';

/** A bad command line: sqlcdc prints the message and the usage, and exits 2. */
export class UsageError extends Error {}

/** A word that names none of `known` (a command, an action): `unknown <what> 'x' (…); did you mean …?` */
export function unknownWord(what: string, word: string, known: readonly string[]): UsageError {
  return new UsageError(`unknown ${what} '${word}' (${known.join(', ')})${didYouMean(word, known)}`);
}

/**
 * A command group of the CLI (`sqlcdc workspace …`, `sqlcdc changelog …`): its usage lines, and what
 * runs it with the arguments after the group's name. Each group lives in its own module under bin/,
 * loaded only when called.
 */
export interface CommandGroup {
  usage: string;
  run(args: string[]): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with the CLI's wording for mistakes. */
export function parseCommandLine<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    // parseArgs' messages explain its own API; say what the user did wrong instead.
    const { code, message } = e as NodeJS.ErrnoException;
    const option = /'(-[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
      const known = Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
      throw new UsageError(`unknown option ${option}${didYouMean(option, known)}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) throw new UsageError(`${option} needs a value`);
    throw new UsageError(message);
  }
}
