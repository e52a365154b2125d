import { JSONPath } from 'jsonpath-plus';

/**
 * The nodes a JSONPath (jsonpath-plus) selects in a parsed document. jsonpath-plus answers a falsy
 * document (`0`, `false`, `""`, `null`) with undefined rather than a list, so such a root is given
 * boxed and unboxed in the result: a scalar has no children, only `$` selects it, as for `1` or `"a"`.
 * Its internal failures on paths it accepts but cannot walk (`$^`: the root's parent) are reported in
 * words rather than as its own TypeError. Callers add the path to the message.
 */
export function jsonPathNodes(path: string, json: unknown): unknown[] {
  const root: unknown = json || Object(json);
  let found: unknown[];
  try {
    found = JSONPath<unknown[]>({ path, json: root as object, wrap: true });
  } catch (e) {
    if (e instanceof TypeError && !e.message.startsWith('jsonPath:'))
      throw new Error('it cannot be evaluated on this document', { cause: e });
    throw e;
  }
  return root === json ? found : found.map((n) => (n === root ? json : n));
}
