import { ScriptError, type ErrorKind } from '../errors';

/**
 * An error about one argument of a magic line, named as splitArgs gives it: runMagic shows it at that
 * argument's column (other errors of a magic are shown at its `%`).
 */
export class ArgumentError extends ScriptError {
  constructor(
    message: string,
    readonly argument: string,
    kind: ErrorKind = 'semantic',
  ) {
    super(message, kind);
  }
}

/** Runs `check`; the ScriptError it throws is shown at the magic argument `argument` (a statement's is runtime/at-argument.ts). */
export function atMagicArgument<T>(argument: string, check: () => T): T {
  try {
    return check();
  } catch (e) {
    throw e instanceof ScriptError && !(e instanceof ArgumentError)
      ? new ArgumentError(e.message, argument, e.kind)
      : e;
  }
}

/**
 * Splits magic arguments like a shell: spaces separate, '…' and "…" group, and so does [ … ] as
 * connection names are written in scripts; no expansion. A group may follow `name=` or `--name=`
 * (`x="order date"` is the one word `x=order date`, `--header="X-Key: k"` the word `--header=X-Key: k`).
 */
export function splitArgs(text: string): string[] {
  return argWords(text).map((w) => w.word);
}

/**
 * The words of splitArgs, each with where it is written in `text` (0-based, `end` excluded) and where
 * its value starts: after a `name=` and an opening quote or bracket.
 */
export function argWords(text: string): { word: string; at: number; end: number; valueAt: number }[] {
  const out: { word: string; at: number; end: number; valueAt: number }[] = [];
  const re = /((?:--)?[A-Za-z_][\w-]*=)?(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|\[([^\]]*)\]|(\S+))/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const key = m[1] ?? '';
    let word: string;
    if (m[2] !== undefined) word = key + m[2].replace(/\\(.)/g, '$1');
    else if (m[3] !== undefined) word = key + m[3].replace(/''/g, "'");
    else if (m[4] !== undefined) word = key + m[4].trim();
    else word = key + m[5];
    const opened = m[5] === undefined ? 1 : 0;
    out.push({ word, at: m.index, end: m.index + m[0].length, valueAt: m.index + key.length + opened });
  }
  return out;
}

/** A magic's options by name (without `--`): what each takes. Parsing and completion read the same one. */
export type FlagSpec = Readonly<Record<string, 'value' | 'switch' | 'list'>>;

/**
 * `--flag value`, `--flag=value` / `--flag` options after positionals. Unknown flags are an error
 * naming the usage, and the flag alone: what follows `=` may be a password.
 */
export function parseFlags(
  words: string[],
  spec: FlagSpec,
  usage: string,
): { positional: string[]; flags: Map<string, string[]> } {
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (!w.startsWith('--')) {
      positional.push(w);
      continue;
    }
    const eq = w.indexOf('=');
    const name = eq < 0 ? w.slice(2) : w.slice(2, eq);
    const kind = spec[name];
    if (!kind) throw new ArgumentError(`unknown option --${name}; usage: ${usage}`, w);
    if (kind === 'switch') {
      if (eq >= 0) throw new ArgumentError(`--${name} takes no value; usage: ${usage}`, w);
      flags.set(name, ['true']);
      continue;
    }
    const value = eq < 0 ? words[++i] : w.slice(eq + 1);
    if (value === undefined) throw new ArgumentError(`--${name} needs a value; usage: ${usage}`, w);
    flags.set(name, kind === 'list' ? [...(flags.get(name) ?? []), value] : [value]);
  }
  return { positional, flags };
}
