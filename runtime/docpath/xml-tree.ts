import type { SaxesAttributeNS, SaxesAttributeNSIncomplete, SaxesTagNS } from 'saxes';
import { saxesLibrary } from './xml-library';
import {
  append,
  XAttr,
  XAttributes,
  XCData,
  XComment,
  XDocument,
  XDocumentType,
  XElement,
  XProcessingInstruction,
  XText,
  type XContainer,
  type XName,
} from './xml-nodes';

/**
 * Well-formed XML text → the tree of xml-nodes.ts, the same tree xmldom's parser builds (node for
 * node: the XML declaration as a processing instruction, the whitespace between top-level nodes but
 * not after the last, a DOCTYPE's ids with their quotes), read with saxes, a streaming parser that
 * checks well-formedness and namespaces. Undefined for any text saxes does not take as well-formed,
 * whose DOCTYPE it cannot split, or with a `?` in an instruction's data: xml.ts then reads it with xmldom, whose messages (line, column)
 * and leniency (an unquoted attribute value, a control character) stay as they were.
 */
export function readXmlTree(source: string): XDocument | undefined {
  // xmldom's line-end handling (XML 1.1's, in every document): NEL and the Unicode separators too.
  const text = LINE_END.test(source) ? source.replace(/\r[\n\u0085]/g, '\n').replace(LINE_ENDS, '\n') : source;
  const doc = new XDocument();
  const names = new Names();
  let order = 1;
  let current: XContainer = doc;
  let depth = 0;
  // Text is gathered until the next markup: saxes may hand one run over in pieces. It skips the
  // whitespace before the first markup, which xmldom keeps as a text node.
  let pending = LEADING_SPACE.exec(text)![0];
  const flush = () => {
    if (pending !== '') append(current, new XText(order++, pending));
    pending = '';
  };
  const parser = new (saxesLibrary().SaxesParser)({ xmlns: true });
  const scope = new NamespaceScope();
  parser.resolve = (prefix) => scope.resolve(prefix);
  parser.on('error', () => {
    throw new NotWellFormed();
  });
  parser.on('xmldecl', () => {
    const m = XML_DECL.exec(text);
    if (m) append(doc, new XProcessingInstruction(order++, 'xml', m[1]));
  });
  parser.on('doctype', (raw) => {
    flush();
    const m = DOCTYPE_PARTS.exec(raw);
    if (!m) throw new NotWellFormed();
    doc.doctype = new XDocumentType(order++, m[1], m[2] ?? '', m[3] ?? m[4] ?? '', m[5] ?? '');
    append(doc, doc.doctype);
  });
  parser.on('processinginstruction', ({ target, body }) => {
    // saxes takes `<?pi?x?>` (target `pi`, data `?x`), which xmldom refuses: a `?` is xmldom's to judge.
    if (body.includes('?')) throw new NotWellFormed();
    flush();
    append(current, new XProcessingInstruction(order++, target, body));
  });
  parser.on('comment', (data) => {
    flush();
    append(current, new XComment(order++, data));
  });
  parser.on('text', (data) => {
    pending += data;
  });
  parser.on('cdata', (data) => {
    flush();
    // xmldom makes no node of an empty section.
    if (data !== '') append(current, new XCData(order++, data));
  });
  parser.on('opentagstart', () => scope.open());
  parser.on('attribute', (attribute) => scope.declare(attribute));
  parser.on('opentag', (tag: SaxesTagNS) => {
    if (++depth > XML_DEPTH_LIMIT) throw new NestedTooDeeply();
    flush();
    const el = new XElement(order++, names.of(tag));
    const attrs = tag.attributes as Record<string, SaxesAttributeNS>;
    for (const name in attrs) {
      const a = attrs[name];
      if (el.attributes.length === 0) el.attributes = new XAttributes();
      el.attributes.push(new XAttr(el, order++, names.of(a), a.value));
    }
    append(current, el);
    if (current === doc) doc.documentElement = el;
    current = el;
  });
  parser.on('closetag', () => {
    scope.close();
    depth--;
    flush();
    current = current.parentNode ?? doc;
  });
  try {
    parser.write(text).close();
  } catch (e) {
    if (e instanceof NotWellFormed) return undefined;
    throw e;
  }
  // Whitespace after the last markup is not a node: xmldom makes a text node only when markup follows.
  return doc;
}

class NotWellFormed extends Error {}

/**
 * The namespace prefixes in scope while saxes reads, each with the stack of the URIs bound to it: an
 * element's xmlns attributes push theirs as they are read (before saxes resolves the element's own
 * names), its close pops them. saxes's own lookup walks the open elements up to the one binding the
 * prefix — for the default namespace of a document that binds none, all of them — so a document N
 * levels deep cost N² to read (4,999 levels: ~0.3 s); this lookup is one map read.
 */
class NamespaceScope {
  private readonly bound = new Map<string, string[]>([
    ['xml', ['http://www.w3.org/XML/1998/namespace']],
    ['xmlns', ['http://www.w3.org/2000/xmlns/']],
  ]);
  /** The prefixes each open element bound. */
  private readonly declared: string[][] = [];

  open(): void {
    this.declared.push([]);
  }

  declare({ name, prefix, local, value }: SaxesAttributeNSIncomplete): void {
    const bound = prefix === 'xmlns' ? local : name === 'xmlns' ? '' : undefined;
    if (bound === undefined) return;
    // saxes binds the trimmed value (and fails an empty one where XML 1.0 forbids it).
    const uris = this.bound.get(bound);
    if (uris) uris.push(value.trim());
    else this.bound.set(bound, [value.trim()]);
    this.declared.at(-1)!.push(bound);
  }

  close(): void {
    for (const prefix of this.declared.pop() ?? []) this.bound.get(prefix)!.pop();
  }

  /** What saxes's resolve answers: the innermost URI bound to `prefix`, undefined when none is. */
  resolve(prefix: string): string | undefined {
    return this.bound.get(prefix)?.at(-1);
  }
}

/**
 * How deep elements may sit inside one another. Reading is linear in the depth (NamespaceScope), but
 * the xpath package's descendant steps are not: `//a` over 5,000 levels takes ~7 s, over 10,000 ~19 s,
 * and a webhook payload of a few hundred KB would hold the listener that long. Real documents stay
 * within a few dozen levels (Woodstox and Jackson stop at 1,000).
 */
export const XML_DEPTH_LIMIT = 5000;

/** Thrown by readXmlTree for a document deeper than XML_DEPTH_LIMIT, well-formed or not. */
export class NestedTooDeeply extends Error {}

/** One XName per name and namespace: a document repeats a few names a million times. */
class Names {
  private readonly byUri = new Map<string, Map<string, XName>>();

  of({ name, local, prefix, uri }: { name: string; local: string; prefix: string; uri: string }): XName {
    let names = this.byUri.get(uri);
    if (!names) this.byUri.set(uri, (names = new Map<string, XName>()));
    let n = names.get(name);
    if (!n) names.set(name, (n = { qualified: name, local, prefix: prefix || null, uri: uri || null }));
    return n;
  }
}

const LINE_END = /[\r\u0085\u2028\u2029]/;
const LINE_ENDS = /[\r\u0085\u2028\u2029]/g;
const LEADING_SPACE = /^[ \t\n]*/;
const XML_DECL = /^<\?xml\s+([\s\S]*?)\?>/;
const QUOTED = `("[^"]*"|'[^']*')`;
/** A DOCTYPE's text after `<!DOCTYPE`: name, PUBLIC id and system id, SYSTEM id, internal subset. */
const DOCTYPE_PARTS = new RegExp(
  `^\\s+([^\\s[>]+)(?:\\s+(?:PUBLIC\\s+${QUOTED}\\s+${QUOTED}|SYSTEM\\s+${QUOTED}))?\\s*(?:\\[([\\s\\S]*)\\])?\\s*$`,
);
