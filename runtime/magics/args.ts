import { ScriptError } from '../errors';

/**
 * Splits magic arguments like a shell: spaces separate, '…' and "…" group, and so does [ … ] as
 * connection names are written in scripts; no expansion. A group may follow `name=` or `--name=`
 * (`x="order date"` is the one word `x=order date`, `--header="X-Key: k"` the word `--header=X-Key: k`).
 */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  const re = /((?:--)?[A-Za-z_][\w-]*=)?(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|\[([^\]]*)\]|(\S+))/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const key = m[1] ?? '';
    if (m[2] !== undefined) out.push(key + m[2].replace(/\\(.)/g, '$1'));
    else if (m[3] !== undefined) out.push(key + m[3].replace(/''/g, "'"));
    else if (m[4] !== undefined) out.push(key + m[4].trim());
    else out.push(key + m[5]);
  }
  return out;
}

/**
 * `--flag value`, `--flag=value` / `--flag` options after positionals. Unknown flags are an error
 * naming the usage, and the flag alone: what follows `=` may be a password.
 */
export function parseFlags(
  words: string[],
  spec: Record<string, 'value' | 'switch' | 'list'>,
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
    if (!kind) throw new ScriptError(`unknown option --${name}; usage: ${usage}`, 'semantic');
    if (kind === 'switch') {
      if (eq >= 0) throw new ScriptError(`--${name} takes no value; usage: ${usage}`, 'semantic');
      flags.set(name, ['true']);
      continue;
    }
    const value = eq < 0 ? words[++i] : w.slice(eq + 1);
    if (value === undefined) throw new ScriptError(`--${name} needs a value; usage: ${usage}`, 'semantic');
    flags.set(name, kind === 'list' ? [...(flags.get(name) ?? []), value] : [value]);
  }
  return { positional, flags };
}
