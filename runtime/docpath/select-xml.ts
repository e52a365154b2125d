import type { Element, Node } from '@xmldom/xmldom';
import { ScriptError } from '../errors';
import type { PathPart, Step } from './path';
import { childElements, descendants, isDocument, nameMatches } from './xml';
import { parseXPath, xpathLibrary, type CompiledXPath } from './xml-library';

/** A selected item: a node, or the text of a non-node XPath result (`string(//next)`). */
export type XmlItem = Node | string;

function compileXPath(text: string): CompiledXPath {
  try {
    return parseXPath(text);
  } catch (e) {
    throw new ScriptError(`invalid XPath '${text}': ${(e as Error).message}`, 'semantic');
  }
}

/**
 * Selection in an XML DOM. `context` is the Document for a whole path and the parent element for
 * the child part of a `||` join.
 */
export function selectXml(context: Node, part: PathPart): XmlItem[] {
  if (part.kind === 'jsonpath')
    throw new ScriptError(`'${part.text}' is a JSON path; XML documents take XPath or dotted names`, 'semantic');
  if (part.kind === 'xpath') return runPlan(context, planOf(part));
  const start = isDocument(context) ? context.documentElement! : context;
  if (part.steps.length === 0) return containerRecords(start as Element);
  let nodes = walk([context], part.steps);
  // `$.orders.order` and `$.order` both work on <orders><order/>…: names start at the document
  // (the root element's own name first) or, when that finds nothing, at the root element.
  if (nodes.length === 0 && isDocument(context)) nodes = walk([start], part.steps);
  return nodes;
}

function walk(nodes: Node[], steps: Step[]): Node[] {
  for (const step of steps) {
    const next: Node[] = [];
    for (const n of nodes) {
      if (step.kind === 'index') continue;
      const name = step.kind === 'name' ? step.name : '*';
      if (step.deep) next.push(...descendants(n, name));
      else for (const c of childElements(n)) if (nameMatches(c, name)) next.push(c);
    }
    nodes = next;
  }
  return nodes;
}

/**
 * `$` on XML: the root's children whose name repeats are the records (the XML form of an array).
 * A bare root around one element that has children of its own holds that one record: a one-row
 * `<root><row>…</row></root>`, as SINK INTO DRIVE and .NET's DataSet.WriteXml write it. Otherwise the
 * root itself is the one record (its children become columns).
 */
function containerRecords(root: Element): Element[] {
  const children = childElements(root);
  const counts = new Map<string, number>();
  for (const c of children) counts.set(c.nodeName, (counts.get(c.nodeName) ?? 0) + 1);
  const repeated = children.filter((c) => counts.get(c.nodeName)! > 1);
  if (repeated.length > 0) return repeated;
  if (children.length === 1 && childElements(children[0]).length > 0 && !hasOwnAttributes(root)) return children;
  return [root];
}

function hasOwnAttributes(el: Element): boolean {
  for (let i = 0; i < el.attributes.length; i++) {
    const name = el.attributes[i].name;
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) return true;
  }
  return false;
}

// ----------------------------------------------------------------------------- XPath by steps

/**
 * The npm xpath package is quadratic over a whole document (it orders node sets by walking it), but
 * linear per record. So a location path is run step by step: a step that is a name (or `*`) with
 * non-positional predicates selects candidates with a DOM walk and tests the predicates per candidate;
 * other steps (axes, `@attr`, `text()`, positions) run per context node. Only expressions that are not
 * location paths (unions, functions at the top) run over the whole document.
 */
interface Plan {
  absolute: boolean;
  steps: PlanStep[];
  /** An expression run as a whole (xpath.select also gives numbers and strings). */
  whole?: string;
}

type PlanStep =
  { kind: 'walk'; name: string; deep: boolean; test?: CompiledXPath } | { kind: 'xpath'; expr: CompiledXPath };

const plans = new WeakMap<PathPart, Plan>();

function planOf(part: PathPart): Plan {
  let plan = plans.get(part);
  if (!plan) {
    plan = buildPlan(part.text);
    plans.set(part, plan);
  }
  return plan;
}

const SIMPLE_STEP = /^(\*|[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)((?:\[.*\])*)$/s;
const POSITIONAL = /^\s*\d+\s*$|position\s*\(|last\s*\(/;

function buildPlan(text: string): Plan {
  const split = splitSteps(text);
  compileXPath(text); // reports a syntax error against the whole expression
  if (!split) return { absolute: false, steps: [], whole: text };
  const steps: PlanStep[] = split.steps.map(({ step, deep }) => {
    const m = SIMPLE_STEP.exec(step);
    const predicates = m ? predicatesOf(m[2]) : undefined;
    if (m && predicates && !predicates.some((p) => POSITIONAL.test(p))) {
      return { kind: 'walk', name: m[1], deep, test: m[2] ? compileXPath(`boolean(self::node()${m[2]})`) : undefined };
    }
    return { kind: 'xpath', expr: compileXPath(deep ? `descendant-or-self::node()/${step}` : step) };
  });
  return { absolute: split.absolute, steps };
}

function runPlan(context: Node, plan: Plan): XmlItem[] {
  if (plan.whole) return asItems(xpathLibrary().select(plan.whole, context as never));
  let nodes: Node[] = [plan.absolute ? documentOf(context) : context];
  for (const step of plan.steps) {
    const next: Node[] = [];
    const seen = new Set<Node>();
    const add = (n: Node) => {
      if (!seen.has(n)) {
        seen.add(n);
        next.push(n);
      }
    };
    for (const n of nodes) {
      if (step.kind === 'walk') {
        const candidates = step.deep
          ? descendants(n, step.name)
          : childElements(n).filter((c) => nameMatches(c, step.name));
        for (const c of candidates) if (!step.test || step.test.evaluateBoolean({ node: c })) add(c);
      } else {
        for (const r of asItems(step.expr.select({ node: n }))) if (typeof r !== 'string') add(r);
      }
    }
    nodes = next;
  }
  return nodes;
}

function asItems(result: unknown): XmlItem[] {
  if (Array.isArray(result)) return result as Node[];
  if (result === undefined || result === null) return [];
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- an XPath scalar: string, number or boolean
  return [String(result)];
}

function documentOf(n: Node): Node {
  return isDocument(n) ? n : (n.ownerDocument as Node);
}

/** `[a][b]` → ['a', 'b'] (brackets balanced, quotes respected); undefined when not a clean list. */
function predicatesOf(text: string): string[] | undefined {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') {
      if (depth++ === 0) start = i + 1;
    } else if (c === ']') {
      if (--depth === 0) out.push(text.slice(start, i));
      if (depth < 0) return undefined;
    } else if (depth === 0) return undefined;
  }
  return depth === 0 ? out : undefined;
}

/** Splits a location path at top-level `/`; undefined for anything else (unions, top-level calls). */
function splitSteps(text: string): { absolute: boolean; steps: { step: string; deep: boolean }[] } | undefined {
  const steps: { step: string; deep: boolean }[] = [];
  let depth = 0;
  let quote = '';
  let current = '';
  let deep = false;
  let i = 0;
  const absolute = text.startsWith('/');
  if (text.startsWith('//')) {
    deep = true;
    i = 2;
  } else if (absolute) i = 1;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (depth === 0 && c === '|') return undefined;
    else if (depth === 0 && c === '/') {
      if (current.trim() === '') return undefined;
      steps.push({ step: current.trim(), deep });
      current = '';
      deep = text[i + 1] === '/';
      if (deep) i++;
      continue;
    }
    current += c;
  }
  if (current.trim() === '') return absolute && steps.length === 0 && !deep ? { absolute, steps } : undefined;
  // A step that is a call at the top (`count(item)`) is not a location step.
  if (/^[\w-]+\s*\(/.test(current.trim()) && !/^(text|node|comment|processing-instruction)\s*\(/.test(current.trim()))
    return undefined;
  steps.push({ step: current.trim(), deep });
  return { absolute, steps };
}
