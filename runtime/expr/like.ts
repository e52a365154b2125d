import { ScriptError } from '../errors';
import { normText } from './operations';

/**
 * LIKE as .NET's DataView defines it: `*` or `%` only at the start and/or the end of the pattern,
 * `[x]` for a literal character (so `[*]` matches a star); case-insensitive with trailing blanks
 * ignored, like every string comparison. A wildcard anywhere else is an error.
 */
export type LikeMatcher = (normalisedText: string) => boolean;

export function compileLike(pattern: string): LikeMatcher {
  let start = 0;
  let end = pattern.length;
  const isWild = (ch: string | undefined) => ch === '*' || ch === '%';
  const leading = isWild(pattern[start]);
  if (leading) start++;
  const trailing = end > start && isWild(pattern[end - 1]);
  if (trailing) end--;

  let literal = '';
  for (let i = start; i < end; i++) {
    const ch = pattern[i];
    if (ch === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0 || close > end) throw invalidPattern(pattern);
      literal += pattern.slice(i + 1, close);
      i = close;
      continue;
    }
    if (isWild(ch) || ch === ']') throw invalidPattern(pattern);
    literal += ch;
  }
  const text = normText(literal);
  if (leading && trailing) return text === '' ? () => true : (s) => s.includes(text);
  if (leading) return (s) => s.endsWith(text);
  if (trailing) return (s) => s.startsWith(text);
  return (s) => s === text;
}

function invalidPattern(pattern: string): ScriptError {
  return new ScriptError(
    `the LIKE pattern '${pattern}' is invalid: * and % are allowed only at the start and end; write [*] or [%] for a literal`,
    'runtime',
  );
}
