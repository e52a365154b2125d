import type { Document, Element, Node, XMLSerializer } from '@xmldom/xmldom';
import { xmlDom } from './xml-library';
import { ScriptError } from '../errors';
import { where } from './location';
import { NestedTooDeeply, readXmlTree, XML_DEPTH_LIMIT } from './xml-tree';

/**
 * XML documents as DOMs: one model gives record selection, per-record XPath (the npm xpath package
 * is quadratic over a whole document but linear per record) and the raw XML of each record (RAWCOL),
 * which an object model such as fast-xml-parser's cannot give back. A well-formed document is read
 * into xml-nodes.ts's compact tree, which reads as xmldom's DOM does (the types below name xmldom's);
 * anything else goes to xmldom's parser, for its messages and its leniency.
 */

const ELEMENT = 1;
const ATTRIBUTE = 2;
const TEXT = 3;
const CDATA = 4;
const DOCUMENT = 9;

export function isElement(n: Node): n is Element {
  return n.nodeType === ELEMENT;
}

export function isDocument(n: unknown): n is Document {
  return typeof n === 'object' && n !== null && (n as Node).nodeType === DOCUMENT;
}

class Stop extends Error {}

/** Parses XML text; a malformed document is a ScriptError with line and column. */
export function parseXml(text: string, source?: string): Document {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let tree;
  try {
    tree = readXmlTree(body);
  } catch (e) {
    if (e instanceof NestedTooDeeply)
      throw new ScriptError(
        `${where(source)}XML nested too deeply: elements inside one another more than ${XML_DEPTH_LIMIT.toLocaleString('en-US')} levels down`,
        'runtime',
      );
    throw e;
  }
  if (tree?.documentElement) return tree as unknown as Document;
  return parseWithXmldom(body, source);
}

function parseWithXmldom(text: string, source: string | undefined): Document {
  let failure: ScriptError | undefined;
  const parser = new (xmlDom().DOMParser)({
    onError: (
      level: string,
      message: string,
      context?: { locator?: { lineNumber?: number; columnNumber?: number } },
    ) => {
      if (level === 'warning') return;
      const loc = context?.locator;
      const at = loc?.lineNumber ? ` at line ${loc.lineNumber}, column ${loc.columnNumber ?? 1}` : '';
      failure = new ScriptError(
        `${where(source)}invalid XML${at}: ${message.replace(/^\[xmldom \w+\]\s*/, '')}`,
        'runtime',
      );
      throw new Stop();
    },
  });
  let doc: Document | undefined;
  try {
    doc = parser.parseFromString(text, 'text/xml');
  } catch (e) {
    if (failure) throw failure;
    throw new ScriptError(`${where(source)}invalid XML: ${(e as Error).message}`, 'runtime');
  }
  if (failure) throw failure;
  if (!doc.documentElement) throw new ScriptError(`${where(source)}invalid XML: no root element`, 'runtime');
  return doc;
}

/** The element children of a node, in document order. */
export function childElements(node: Node): Element[] {
  const out: Element[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.nodeType === ELEMENT) out.push(c as Element);
  return out;
}

/** Every descendant element (not the node itself) whose name matches, in document order. */
export function descendants(node: Node, name: string): Element[] {
  const out: Element[] = [];
  const stack: Node[] = [];
  for (let c = node.lastChild; c; c = c.previousSibling) stack.push(c);
  while (stack.length) {
    const n = stack.pop()!;
    if (n.nodeType !== ELEMENT) continue;
    if (nameMatches(n as Element, name)) out.push(n as Element);
    for (let c = n.lastChild; c; c = c.previousSibling) stack.push(c);
  }
  return out;
}

/** A step name matches the qualified name, or the local name when the step has no prefix. */
export function nameMatches(el: Element, name: string): boolean {
  return name === '*' || el.nodeName === name || el.localName === name;
}

/** Text content of an element, attribute or text node. */
export function textOf(n: Node): string {
  if (n.nodeType === ATTRIBUTE) return (n as unknown as { value: string }).value;
  if (n.nodeType === TEXT || n.nodeType === CDATA) return n.nodeValue ?? '';
  return n.textContent ?? '';
}

let serializer: XMLSerializer | undefined;

export function serializeXml(n: Node): string {
  return (serializer ??= new (xmlDom().XMLSerializer)()).serializeToString(n);
}

/**
 * One record of an element: attributes and child elements become columns. A child that is a leaf and
 * occurs once gives its text (empty → null); a child with element children, or a repeated child, gives
 * its XML text. A leaf record element gives its own text under its own name (unless it is empty and
 * has attributes). An attribute whose name
 * a child element also has is named `@name`. `exclude` names a child a joined child path expands.
 */
export function elementToRecord(el: Element, exclude?: string): Record<string, unknown> {
  const children = childElements(el);
  // Without a prototype, an element named __proto__ is a field like any other.
  const record = Object.create(null) as Record<string, unknown>;
  const childNames = new Set<string>();
  for (const c of children) childNames.add(localName(c));
  const attrs = el.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs[i];
    if (a.name === 'xmlns' || a.name.startsWith('xmlns:')) continue;
    const name = decodeXmlName(a.localName ?? a.name);
    record[childNames.has(name) || (children.length === 0 && name === localName(el)) ? `@${name}` : name] = a.value;
  }
  if (children.length === 0) {
    // <i n="1"/> is a record of its attributes; <i>text</i> and <i/> have a column of their own.
    const text = textOf(el);
    if (text !== '' || Object.keys(record).length === 0) record[localName(el)] = text === '' ? null : text;
    return record;
  }
  const groups = new Map<string, Element[]>();
  for (const c of children) {
    const name = localName(c);
    if (name === exclude) continue;
    const g = groups.get(name);
    if (g) g.push(c);
    else groups.set(name, [c]);
  }
  for (const [name, group] of groups) {
    if (group.length === 1 && childElements(group[0]).length === 0) {
      const text = textOf(group[0]);
      record[name] = text === '' ? null : text;
    } else {
      record[name] = group.map(serializeXml).join('');
    }
  }
  return record;
}

/** An element's column name: its local name with .NET's `_xHHHH_` escapes decoded (`first_x0020_name` → `first name`). */
function localName(el: Element): string {
  return decodeXmlName(el.localName ?? el.nodeName);
}

/** XmlConvert.DecodeName: `_xHHHH_` and `_xHHHHHHHH_` back to the character they stand for. */
function decodeXmlName(name: string): string {
  if (!name.includes('_x')) return name;
  return name.replace(/_x([0-9A-Fa-f]{8}|[0-9A-Fa-f]{4})_/g, (_m, hex: string) =>
    String.fromCodePoint(parseInt(hex, 16)),
  );
}

/** A record of a selected attribute or text node: its name (or `value`) and its text. */
export function nodeToRecord(n: Node): Record<string, unknown> {
  if (n.nodeType === ATTRIBUTE)
    return { [(n as unknown as { localName?: string; name: string }).localName ?? n.nodeName]: textOf(n) };
  return { value: textOf(n) };
}
