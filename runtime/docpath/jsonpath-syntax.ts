/**
 * The shape of a JSONPath, checked before jsonpath-plus sees it: jsonpath-plus reads `$.a[` as `$.a`,
 * `$..` as `$` and `a.b]` as a key `b]`, so a typo would silently select something else. A path is
 * `$` (or a first name, relative to the root) then steps: `.name`, `.*`, `..name`, `..*`, `..[…]` and
 * `[…]`, where a bracket holds an index, a quoted name, a union, a slice or a `?()`/`()` script whose own
 * brackets, parentheses and quotes must balance; jsonpath-plus's `^` (parent) and `~` (name) may follow. Returns the reason and the 1-based character it is at,
 * or undefined for a well-formed path.
 */
export function jsonPathSyntaxError(path: string): { reason: string; at: number } | undefined {
  let i = 0;
  const fail = (reason: string, at = i): { reason: string; at: number } => ({ reason, at: at + 1 });
  if (path[0] === '$') i = 1;
  else if (path[0] !== '.' && path[0] !== '[') {
    const n = nameEnd(path, 0);
    if (n === 0) return fail("expected '$' or a name");
    i = n;
  }
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      const deep = path[i + 1] === '.';
      const after = i + (deep ? 2 : 1);
      if (deep && path[after] === '[') {
        i = after;
        continue;
      }
      const n = nameEnd(path, after);
      if (n === after) return fail(`'${deep ? '..' : '.'}' is not followed by a name or *`, after);
      i = n;
    } else if (c === '[') {
      const close = bracketEnd(path, i);
      if (typeof close !== 'number') return close;
      if (path.slice(i + 1, close).trim() === '') return fail("empty '[]'");
      i = close + 1;
    } else if (c === '^' || c === '~') i++;
    else return fail(c === ']' ? "']' without '['" : `expected '.' or '[' before '${c}'`);
  }
  return undefined;
}

/** The end of a name (or `*`) starting at `from`: names run to the next `.`, `[` or `]`. */
function nameEnd(path: string, from: number): number {
  let i = from;
  while (i < path.length && !'.[]'.includes(path[i])) i++;
  return i;
}

/** The index of the `]` closing the `[` at `open`, skipping quoted text and nested brackets and parentheses. */
function bracketEnd(path: string, open: number): number | { reason: string; at: number } {
  const closers: string[] = [];
  for (let i = open + 1; i < path.length; i++) {
    const c = path[i];
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < path.length && path[j] !== c) j += path[j] === '\\' ? 2 : 1;
      if (j >= path.length) return { reason: `unclosed ${c === "'" ? 'quote' : 'double quote'}`, at: i + 1 };
      i = j;
    } else if (c === '[') closers.push(']');
    else if (c === '(') closers.push(')');
    else if (c === ']' || c === ')') {
      if (closers.length === 0) {
        if (c === ']') return i;
        return { reason: "')' without '('", at: i + 1 };
      }
      const expected = closers.pop();
      if (expected !== c) return { reason: `'${c}' where '${expected}' is expected`, at: i + 1 };
    }
  }
  return { reason: closers.length ? `missing '${closers[closers.length - 1]}'` : "missing ']'", at: open + 1 };
}
