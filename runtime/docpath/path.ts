import { ScriptError } from '../errors';
import { jsonPathSyntaxError } from './jsonpath-syntax';

/**
 * Document paths (reference.md "Document paths"). A path is one or more parts joined by `||`; each
 * part is one of:
 * - dotted: `$`, `elements`, `$.a.b`, `..docs`, `a[0]`, `a[*]`, `*`, `['odd key']` — our own small
 *   evaluator, which (unlike JSONPath) steps through arrays implicitly: `orders.id` is every order's id;
 * - jsonpath (JSON only): anything with a filter, slice or union in brackets (`$.a[?(@.x > 1)]`),
 *   handed to jsonpath-plus;
 * - xpath (XML only): anything that is not plain dotted names (`//item`, `/a/b`, `item[@id='1']`).
 * Names are case-sensitive. Paths are compiled once per statement.
 */

export type Step =
  { kind: 'name'; name: string; deep: boolean } | { kind: 'all'; deep: boolean } | { kind: 'index'; index: number };

export type PathPart =
  | { kind: 'dotted'; text: string; steps: Step[] }
  | { kind: 'jsonpath'; text: string }
  | { kind: 'xpath'; text: string };

export type DocKind = 'json' | 'xml';

/**
 * Paths compiled so far, shared by their users, who only read them: a listener reads every call's
 * payload with the same `$`. Paths come from scripts, so there are few; the bound is for safety.
 */
const compiled = new Map<string, readonly PathPart[]>();
const COMPILED_PATHS = 512;

/** Splits a path at `||` and compiles each part for documents of the given kind. */
export function compilePath(path: string, kind: DocKind): readonly PathPart[] {
  const key = `${kind}\u0000${path}`;
  const known = compiled.get(key);
  if (known) return known;
  const texts = path.split('||').map((p) => p.trim());
  if (texts.some((t) => t === ''))
    throw new ScriptError(`invalid document path '${path}': empty part around '||'`, 'semantic');
  const parts = texts.map((t) => compilePart(t, kind));
  if (compiled.size >= COMPILED_PATHS) compiled.clear();
  compiled.set(key, parts);
  return parts;
}

function compilePart(text: string, kind: DocKind): PathPart {
  if (kind === 'xml') {
    return PLAIN_NAMES.test(text) ? { kind: 'dotted', text, steps: parseDotted(text) } : { kind: 'xpath', text };
  }
  if (/^\/|::/.test(text)) {
    throw new ScriptError(
      `'${text}' is an XPath; JSON documents take paths like '$', '$.items', '..docs' or 'a.b'`,
      'semantic',
    );
  }
  if (/\[\s*(\?|\()|\[[^\]'"]*[:,]/.test(text)) {
    const bad = jsonPathSyntaxError(text);
    if (bad) throw new ScriptError(`invalid document path '${text}': ${bad.reason} at character ${bad.at}`, 'semantic');
    return { kind: 'jsonpath', text: text.startsWith('$') ? text : text.startsWith('.') ? `$${text}` : `$.${text}` };
  }
  return { kind: 'dotted', text, steps: parseDotted(text) };
}

/** `$`, `name`, `$.a.b`, `..name`, `*`: the paths XML documents evaluate as dotted names, not XPath. */
const PLAIN_NAMES = /^(\$|(\$?\.{1,2}|)([\w\-:]+|\*)(\.{1,2}([\w\-:]+|\*))*)$/;

const NAME = /^[^.[\]\s'"]+/;

function parseDotted(text: string): Step[] {
  const steps: Step[] = [];
  let i = text.startsWith('$') ? 1 : 0;
  const fail = (why: string): never => {
    throw new ScriptError(`invalid document path '${text}': ${why} at character ${i + 1}`, 'semantic');
  };
  // A bare first name (`elements`) is a child of the root, as `$.elements`.
  let first = i === 0;
  while (i < text.length) {
    let deep = false;
    if (text.startsWith('..', i)) {
      deep = true;
      i += 2;
    } else if (text[i] === '.') {
      i += 1;
    } else if (text[i] === '[') {
      const close = text.indexOf(']', i);
      if (close < 0) fail("missing ']'");
      const inner = text.slice(i + 1, close).trim();
      if (inner === '*') steps.push({ kind: 'all', deep: false });
      else if (/^\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'name', name: inner.slice(1, -1), deep: false });
      else fail(`unsupported '[${inner}]'`);
      i = close + 1;
      first = false;
      continue;
    } else if (!first) {
      fail("expected '.' or '['");
    }
    if (i >= text.length) fail("expected a name or '*'");
    first = false;
    if (text[i] === '*') {
      steps.push({ kind: 'all', deep });
      i++;
      continue;
    }
    const m = NAME.exec(text.slice(i));
    if (!m) fail('expected a name');
    steps.push({ kind: 'name', name: m![0], deep });
    i += m![0].length;
  }
  return steps;
}

/** The column prefix of a joined child part: its last name (`items` for `$.order.items`). */
export function partLabel(part: PathPart): string {
  if (part.kind === 'dotted') {
    for (let i = part.steps.length - 1; i >= 0; i--) {
      const s = part.steps[i];
      if (s.kind === 'name') return s.name;
    }
    return 'child';
  }
  const names = part.text.replace(/\[[^\]]*\]/g, '').match(/[A-Za-z_][\w-]*/g);
  return names ? names[names.length - 1] : 'child';
}

/** The field a joined child part descends into first (dropped from the parent's columns). */
export function firstField(part: PathPart): string | undefined {
  // An XPath child path whose first step is a child element by name (`items/item`): that element.
  if (part.kind === 'xpath') return /^([A-Za-z_][\w.-]*)\/(?!\/)/.exec(part.text)?.[1];
  if (part.kind !== 'dotted') return undefined;
  const s = part.steps[0];
  return s && s.kind === 'name' && !s.deep ? s.name : undefined;
}
