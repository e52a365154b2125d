import { ScriptError } from '../errors';
import { jsonPathNodes } from './jsonpath';
import type { PathPart, Step } from './path';

/**
 * Selection in parsed JSON. Nodes are returned as found; `jsonRecords` then gives one record per
 * object, per array element (an array is a list of records) and per scalar (as `value`).
 */
export function selectJson(context: unknown, part: PathPart): unknown[] {
  if (part.kind === 'jsonpath') {
    try {
      return jsonPathNodes(part.text, context);
    } catch (e) {
      throw new ScriptError(`invalid JSON path '${part.text}': ${(e as Error).message}`, 'semantic');
    }
  }
  if (part.kind === 'xpath')
    throw new ScriptError(`'${part.text}' is an XPath; it applies to XML documents`, 'semantic');
  let nodes: unknown[] = [context];
  for (const step of part.steps) {
    const next: unknown[] = [];
    for (const n of nodes) applyStep(n, step, next);
    nodes = next;
  }
  return nodes;
}

function applyStep(node: unknown, step: Step, out: unknown[]): void {
  if (step.kind === 'index') {
    if (Array.isArray(node) && step.index < node.length) out.push(node[step.index]);
    return;
  }
  if (step.kind === 'name' && step.deep) {
    collectDeep(node, step.name, out);
    return;
  }
  if (step.kind === 'all' && step.deep) {
    collectAll(node, out);
    return;
  }
  if (Array.isArray(node)) {
    // `[*]` and `.*` select an array's elements, as in JSONPath; stepping into each element's
    // members instead would turn `customers[*]` into one row per leaf value.
    if (step.kind === 'all') for (const e of node) out.push(e);
    // Implicit stepping through arrays: `orders.id` is the id of every order.
    else for (const e of node) applyStep(e, step, out);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  if (step.kind === 'all') {
    for (const v of Object.values(node)) out.push(v);
  } else if (Object.prototype.hasOwnProperty.call(node, step.name)) {
    out.push((node as Record<string, unknown>)[step.name]);
  }
}

/** Every value of a `name` key at any depth under `node` (its own key included), in document order. */
function collectDeep(node: unknown, name: string, out: unknown[]): void {
  const stack: unknown[] = [node];
  while (stack.length) {
    const n = stack.pop();
    if (n === null || typeof n !== 'object') continue;
    const children = Array.isArray(n) ? n : Object.values(n);
    if (!Array.isArray(n) && Object.prototype.hasOwnProperty.call(n, name))
      out.push((n as Record<string, unknown>)[name]);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** Every value under `node` at any depth (`..*`), in document order. */
function collectAll(node: unknown, out: unknown[]): void {
  const stack: unknown[] = [node];
  let first = true;
  while (stack.length) {
    const n = stack.pop();
    if (!first) out.push(n);
    first = false;
    if (n === null || typeof n !== 'object') continue;
    const children = Array.isArray(n) ? n : Object.values(n);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** Records of selected nodes: an array's elements, an object as itself, a scalar as `{ value }`. */
export function jsonRecordNodes(nodes: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const n of nodes) {
    if (Array.isArray(n)) for (const e of n) out.push(e);
    else if (n !== undefined) out.push(n);
  }
  return out;
}

export function jsonRecord(node: unknown, exclude?: string): Record<string, unknown> {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return { value: node };
  if (exclude === undefined || !Object.prototype.hasOwnProperty.call(node, exclude))
    return node as Record<string, unknown>;
  // Without a prototype, a "__proto__" key (data, as JSON.parse keeps it) is copied as a field.
  const copy = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(node)) if (k !== exclude) copy[k] = (node as Record<string, unknown>)[k];
  return copy;
}
