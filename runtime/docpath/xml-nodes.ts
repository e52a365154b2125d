/**
 * A compact XML tree with the properties and methods of xmldom's DOM that the readers (xml.ts,
 * select-xml.ts), the xpath package and xmldom's XMLSerializer use, so each of them takes these nodes
 * as they take xmldom's. xmldom's own nodes cost about 1 KB each (every element has a NodeList, a
 * NamedNodeMap with two dictionaries and a namespace map): a 10 MB document of 100,000 records was
 * 500 MB of heap and seconds of garbage collection. Here a node holds its links, its place in document
 * order and its data; names are shared (XName). test/sources/xml-tree.test.ts compares these trees
 * with xmldom's.
 *
 * Fields are declared and set in the constructors: ES2022 class fields are defined one by one
 * (Object.defineProperty), which took a third of the time of building a tree of a million nodes.
 */

const XMLNS = 'http://www.w3.org/2000/xmlns/';

// DOM Node.compareDocumentPosition bits.
const DISCONNECTED = 1;
const PRECEDING = 2;
const FOLLOWING = 4;
const CONTAINS = 8;
const CONTAINED_BY = 16;

/** An element's or attribute's name, one object for every node of that name in a document. */
export interface XName {
  readonly qualified: string;
  readonly local: string;
  readonly prefix: string | null;
  readonly uri: string | null;
}

export abstract class XNode {
  declare parentNode: XContainer | null;
  declare previousSibling: XNode | null;
  declare nextSibling: XNode | null;
  /** Position in document order: an element, then its attributes, then its children. */
  declare readonly order: number;
  abstract get nodeType(): number;
  abstract get nodeName(): string;

  constructor(order: number) {
    this.parentNode = null;
    this.previousSibling = null;
    this.nextSibling = null;
    this.order = order;
  }

  /** The document, found from the root up (xmldom's Document is its own ownerDocument). */
  get ownerDocument(): XDocument | null {
    const root = rootOf(this);
    return root instanceof XDocument ? root : null;
  }
  get firstChild(): XNode | null {
    return null;
  }
  get lastChild(): XNode | null {
    return null;
  }
  /** An element's or attribute's name, one object for every node of that name; other nodes have none. */
  declare readonly xname: XName | undefined;
  get localName(): string | null {
    return this.xname?.local ?? null;
  }
  get prefix(): string | null {
    return this.xname?.prefix ?? null;
  }
  get namespaceURI(): string | null {
    return this.xname?.uri ?? null;
  }
  get nodeValue(): string | null {
    return null;
  }
  get textContent(): string | null {
    return this.nodeValue;
  }

  /** Children as an array: the xpath package orders namespace nodes (which have no order of their own) by it. */
  get childNodes(): XNode[] {
    const out: XNode[] = [];
    for (let c = this.firstChild; c; c = c.nextSibling) out.push(c);
    return out;
  }

  /**
   * From document order, in constant time: the xpath package sorts every node set with it (xmldom's
   * walks the tree, and the package's fallback scans sibling lists, quadratic over a document).
   */
  compareDocumentPosition(other: { order?: number; ownerElement?: XNode | null }): number {
    if (other === this) return 0;
    // The xpath package's namespace nodes come right after their element, before its attributes.
    const owner = other instanceof XNode ? other : other.ownerElement;
    if (!(owner instanceof XNode) || rootOf(owner) !== rootOf(this)) return DISCONNECTED;
    const order = other instanceof XNode ? other.order : owner.order + 0.5;
    if (order < this.order) return PRECEDING | (isAncestor(owner, this) ? CONTAINS : 0);
    return FOLLOWING | (isAncestor(this, owner) ? CONTAINED_BY : 0);
  }

  /** The prefix a namespace is declared with here or above (xmldom's lookupPrefix, which XMLSerializer calls). */
  lookupPrefix(uri: string): string | null {
    for (let n = this instanceof XElement ? this : this.parentNode; n; n = n.parentNode)
      if (n instanceof XElement)
        for (const a of n.attributes)
          if (a.namespaceURI === XMLNS && a.value === uri) return a.prefix ? a.localName : '';
    return null;
  }
}

function rootOf(n: XNode): XNode {
  const start = n instanceof XAttr ? n.ownerElement : n;
  let r = start;
  while (r.parentNode) r = r.parentNode;
  return r;
}

function isAncestor(ancestor: XNode, node: XNode): boolean {
  const start = node instanceof XAttr ? node.ownerElement : node.parentNode;
  for (let n: XNode | null = start; n; n = n.parentNode) if (n === ancestor) return true;
  return false;
}

/** An element or the document: a node with children. */
export abstract class XContainer extends XNode {
  declare first: XNode | null;
  declare last: XNode | null;

  constructor(order: number) {
    super(order);
    this.first = null;
    this.last = null;
  }
  override get firstChild(): XNode | null {
    return this.first;
  }
  override get lastChild(): XNode | null {
    return this.last;
  }
}

/** Appends in document order (the builder's only way to grow a tree). */
export function append(parent: XContainer, child: XNode): void {
  child.parentNode = parent;
  const last = parent.last;
  if (last) {
    last.nextSibling = child;
    child.previousSibling = last;
  } else parent.first = child;
  parent.last = child;
}

/** Attributes as xmldom's NamedNodeMap is read: by index, `length` and `item(i)`. */
export class XAttributes extends Array<XAttr> {
  item(i: number): XAttr | null {
    return this[i] ?? null;
  }
}

const NO_ATTRIBUTES = Object.freeze(new XAttributes()) as XAttributes;

export class XDocument extends XContainer {
  declare documentElement: XElement | null;
  declare doctype: XDocumentType | null;

  constructor() {
    super(0);
    this.documentElement = null;
    this.doctype = null;
  }
  get nodeType(): number {
    return 9;
  }
  get nodeName(): string {
    return '#document';
  }
  /** Read by XMLSerializer: an XML document, not HTML. */
  get type(): string {
    return 'xml';
  }

  /** As xmldom: the first element, in document order, whose `id` attribute is `id` (XPath's id()). */
  getElementById(id: string): XElement | null {
    const stack: XNode[] = this.documentElement ? [this.documentElement] : [];
    while (stack.length) {
      const n = stack.pop()!;
      if (n instanceof XElement) {
        if (n.getAttribute('id') === id) return n;
        for (let c = n.lastChild; c; c = c.previousSibling) stack.push(c);
      }
    }
    return null;
  }
}

export class XElement extends XContainer {
  declare attributes: XAttributes;
  declare readonly xname: XName;

  constructor(order: number, name: XName) {
    super(order);
    this.attributes = NO_ATTRIBUTES;
    this.xname = name;
  }
  get nodeType(): number {
    return 1;
  }
  get nodeName(): string {
    return this.xname.qualified;
  }
  get tagName(): string {
    return this.xname.qualified;
  }

  /**
   * The text of the descendant text and CDATA nodes (comments and processing instructions left out),
   * walked without recursion: a document may nest deeper than the call stack goes.
   */
  override get textContent(): string {
    let s = '';
    for (let n = this.first; n;) {
      if (n instanceof XElement && n.first) {
        n = n.first;
        continue;
      }
      if (n instanceof XText || n instanceof XCData) s += n.data;
      let up: XNode = n;
      while (!up.nextSibling && up.parentNode !== this) up = up.parentNode!;
      n = up.nextSibling;
    }
    return s;
  }

  getAttribute(name: string): string | null {
    for (const a of this.attributes) if (a.xname.qualified === name) return a.value;
    return null;
  }

  getAttributeNS(ns: string | null, local: string): string | null {
    for (const a of this.attributes) if (a.xname.uri === (ns || null) && a.xname.local === local) return a.value;
    return null;
  }

  hasAttribute(name: string): boolean {
    return this.getAttribute(name) !== null;
  }
}

export class XAttr extends XNode {
  declare readonly ownerElement: XElement;
  declare readonly xname: XName;
  declare readonly value: string;

  constructor(ownerElement: XElement, order: number, name: XName, value: string) {
    super(order);
    this.ownerElement = ownerElement;
    this.xname = name;
    this.value = value;
  }
  get nodeType(): number {
    return 2;
  }
  get name(): string {
    return this.xname.qualified;
  }
  get nodeName(): string {
    return this.xname.qualified;
  }
  override get nodeValue(): string {
    return this.value;
  }
}

/** Text, CDATA sections, comments and processing instructions: character data. */
abstract class XCharacterData extends XNode {
  declare readonly data: string;

  constructor(order: number, data: string) {
    super(order);
    this.data = data;
  }
  override get nodeValue(): string {
    return this.data;
  }
  get length(): number {
    return this.data.length;
  }
}

export class XText extends XCharacterData {
  get nodeType(): number {
    return 3;
  }
  get nodeName(): string {
    return '#text';
  }
}

export class XCData extends XCharacterData {
  get nodeType(): number {
    return 4;
  }
  get nodeName(): string {
    return '#cdata-section';
  }
}

export class XComment extends XCharacterData {
  get nodeType(): number {
    return 8;
  }
  get nodeName(): string {
    return '#comment';
  }
}

export class XProcessingInstruction extends XCharacterData {
  declare readonly target: string;

  constructor(order: number, target: string, data: string) {
    super(order, data);
    this.target = target;
  }
  get nodeType(): number {
    return 7;
  }
  get nodeName(): string {
    return this.target;
  }
}

export class XDocumentType extends XNode {
  declare readonly name: string;
  /** With their quotes, as xmldom keeps them (XMLSerializer writes them back as they are). */
  declare readonly publicId: string;
  declare readonly systemId: string;
  declare readonly internalSubset: string;

  constructor(order: number, name: string, publicId: string, systemId: string, subset: string) {
    super(order);
    this.name = name;
    this.publicId = publicId;
    this.systemId = systemId;
    this.internalSubset = subset;
  }
  get nodeType(): number {
    return 10;
  }
  get nodeName(): string {
    return this.name;
  }
}
