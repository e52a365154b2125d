import Papa from 'papaparse';
import type * as xpath from 'xpath';
import type { Value } from '../dataset/types';
import { exactText, isExact, parseJson, stringifyJson } from '../docpath/json';
import { jsonPathNodes } from '../docpath/jsonpath';
import { jsonPathSyntaxError } from '../docpath/jsonpath-syntax';
import { xmlDom, xpathLibrary } from '../docpath/xml-library';
import { FunctionError } from './types';
import { integer, text } from './values';

/**
 * #parse, #parsejson, #parsexml: one value out of a document. b selects a node (JSONPath for JSON,
 * XPath for XML, the row for CSV; null for the root/first row); c picks an attribute or property
 * by name or by 0-based index.
 */
type Selector = { name: string } | { index: number } | undefined;

function selector(v: Value | undefined): Selector {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' || (typeof v === 'string' && /^\s*\d+\s*$/.test(v)))
    return { index: integer(v, 'the attribute index (c)') };
  return { name: text(v) };
}

/** A selected JSON node as a value; numbers too long for a double keep the digits written (reference C.8). */
function jsonValue(v: unknown): Value {
  if (v === undefined || v === null) return null;
  if (isExact(v)) return exactText(v);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return stringifyJson(v);
}

/** `keepScale`: fractions are decimals (floatparsehandling:decimal), returned with the scale written (`12.50`). */
export function parseJsonValue(doc: string, path: Value, attr: Value | undefined, keepScale: boolean): Value {
  let root: unknown;
  try {
    root = parseJson(doc, undefined, 1, keepScale);
  } catch (e) {
    throw new FunctionError((e as Error).message);
  }
  let node = root;
  if (path !== null && text(path).trim() !== '') {
    const p = text(path).trim();
    const bad = jsonPathSyntaxError(p);
    if (bad) throw new FunctionError(`invalid JSON path '${p}': ${bad.reason} at character ${bad.at}`);
    // A path without `$` starts at the root: `items[0]` is `$.items[0]`, `[0]` and `..id` are `$[0]`, `$..id`.
    const rooted = p.startsWith('$') ? p : p.startsWith('.') || p.startsWith('[') ? `$${p}` : `$.${p}`;
    let found: unknown[];
    try {
      found = jsonPathNodes(rooted, root);
    } catch (e) {
      throw new FunctionError(`invalid JSON path '${p}': ${(e as Error).message}`);
    }
    if (found.length === 0) return null;
    node = found[0];
  }
  const sel = selector(attr);
  if (!sel) return jsonValue(node);
  if (node === null || typeof node !== 'object')
    throw new FunctionError(
      `the node at '${text(path)}' is a ${node === null ? 'null' : typeof node}, it has no attribute ${'name' in sel ? sel.name : sel.index}`,
    );
  if ('index' in sel) return jsonValue(Array.isArray(node) ? node[sel.index] : Object.values(node)[sel.index]);
  const obj = node as Record<string, unknown>;
  if (sel.name in obj) return jsonValue(obj[sel.name]);
  const key = Object.keys(obj).find((k) => k.toLowerCase() === sel.name.toLowerCase());
  return key === undefined ? null : jsonValue(obj[key]);
}

export function parseXmlValue(doc: string, path: Value, attr: Value | undefined): Value {
  const errors: string[] = [];
  let dom: Document;
  try {
    dom = new (xmlDom().DOMParser)({
      onError: (level: string, msg: string) => {
        if (level !== 'warning') errors.push(msg);
      },
    }).parseFromString(doc, 'text/xml') as unknown as Document;
  } catch (e) {
    throw new FunctionError(`not valid XML (${(e as Error).message})`);
  }
  if (errors.length || !dom.documentElement)
    throw new FunctionError(`not valid XML (${errors[0] ?? 'no root element'})`);
  let node: Node = dom.documentElement;
  if (path !== null && text(path).trim() !== '') {
    let found: xpath.SelectReturnType;
    try {
      found = xpathLibrary().select(text(path).trim(), dom);
    } catch (e) {
      throw new FunctionError(`bad XPath '${text(path)}' (${(e as Error).message})`);
    }
    if (Array.isArray(found)) {
      if (found.length === 0) return null;
      node = found[0];
    } else return found as Value;
  }
  const sel = selector(attr);
  if (!sel) return node.textContent;
  const el = node as Element;
  if (!el.attributes) throw new FunctionError(`the node at '${text(path)}' has no attributes`);
  if ('index' in sel) return el.attributes[sel.index]?.value ?? null;
  if (el.hasAttribute(sel.name)) return el.getAttribute(sel.name);
  for (let c = el.firstChild; c; c = c.nextSibling)
    if (c.nodeType === 1 && (c as Element).tagName === sel.name) return c.textContent;
  return null;
}

/** CSV: with a name, the first line is the header and b the data row; with an index, b is the line. */
export function parseCsvValue(doc: string, path: Value, attr: Value | undefined): Value {
  const rows = Papa.parse<string[]>(doc.trim(), { skipEmptyLines: true }).data;
  const sel = selector(attr);
  const r = path === null || text(path).trim() === '' ? 0 : integer(path, 'the row (b)');
  if (sel && 'name' in sel) {
    const header = rows[0] ?? [];
    const col = header.findIndex((h) => h.trim().toLowerCase() === sel.name.toLowerCase());
    if (col < 0) throw new FunctionError(`no column '${sel.name}' in the header (${header.join(', ')})`);
    return rows[r + 1]?.[col] ?? null;
  }
  const row = rows[r];
  if (!row) return null;
  return sel ? (row[sel.index] ?? null) : row.join(',');
}

export function parseAnyValue(doc: string, path: Value, attr: Value | undefined, keepScale: boolean): Value {
  const t = doc.trimStart();
  if (t.startsWith('<')) return parseXmlValue(doc, path, attr);
  if (t.startsWith('{') || t.startsWith('[')) return parseJsonValue(doc, path, attr, keepScale);
  return parseCsvValue(doc, path, attr);
}
