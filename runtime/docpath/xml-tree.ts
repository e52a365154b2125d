import type { SaxesAttributeNS, SaxesTagNS } from 'saxes';
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
 * How deep elements may sit inside one another. saxes resolves each element's namespace by walking
 * its open ancestors, so reading costs the square of the depth: 5,000 levels read in ~0.1 s, 20,000
 * in ~6 s, 100,000 in minutes — a webhook payload of 700 KB would hold the listener that long. Real
 * documents stay within a few dozen levels (Woodstox and Jackson stop at 1,000).
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
