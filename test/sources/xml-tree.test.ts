import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DOMParser, type Document, type Element, type Node } from '@xmldom/xmldom';
import * as xpath from 'xpath';
import { compilePath, documentToDataset, selectDataset } from '../../runtime/docpath';
import { parseXml, serializeXml } from '../../runtime/docpath/xml';
import { readXmlTree } from '../../runtime/docpath/xml-tree';
import { ScriptError } from '../../runtime/errors';
import { plain, schema } from './helpers';

/**
 * The tree runtime/docpath/xml-tree.ts reads a well-formed document into, against the DOM xmldom's
 * parser (which read every document before it, and still reads the malformed ones) builds of the
 * same text: node for node, the XML written back (RAWCOL), XPath results and datasets. Over
 * hand-written documents for each construct and a seeded generated set that mixes them.
 */

const SAMPLES: Record<string, string> = {
  'declaration, DOCTYPE with ids and subset, prolog and epilog':
    '<?xml version="1.0"   encoding="utf-8" ?>\n<!DOCTYPE r PUBLIC "-//x" \'s.dtd\' [<!ENTITY e "v">]>\n<!--c--><?pi  da ta ?>\n<r/>\n<!--end--> <?p?>\n',
  'DOCTYPE SYSTEM': '<!DOCTYPE r SYSTEM "x.dtd"><r><a>1</a></r>',
  'DOCTYPE with only a name': '<!DOCTYPE r>\n<r/>',
  'default and prefixed namespaces, undeclared again': `<r xmlns="u" xmlns:p="v" p:a="1"><p:c/><d xmlns=""><e/></d><p:f xmlns:p="w"/></r>`,
  'namespace declared below the record': '<r><x:a xmlns:x="n"><x:b x:c="1"/></x:a><x:a xmlns:x="m"/></r>',
  'xml: prefix': '<r xml:lang="en" xml:space="preserve"><a/></r>',
  'mixed content': '<r><p>one <b>two</b> three<i/>four</p><p/></r>',
  CDATA: '<r><a><![CDATA[<x> & ]]]]><![CDATA[>]]></a><a>t<![CDATA[c]]>u</a><a><![CDATA[]]></a></r>',
  entities: '<r><a>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;</a><a>x &amp; y</a></r>',
  'attributes with entities and whitespace': '<r><a v="1&amp;2&#10;3&#9;4\n5\t6" w=\'"q"\' x="&lt;&gt;"/><a v=""/></r>',
  'comments and processing instructions inside records': '<r><a><!-- c --><?t d?>x<!---->y</a><a><?t?></a></r>',
  'whitespace-only text and indentation': '<r>\n  <a>\n    <b> </b>\n  </a>\n  <a>\t</a>\n</r>\n\n',
  'line ends: CRLF, CR, NEL, line and paragraph separators':
    '<r a="x\r\ny">\r\n<b>1\r2\u00853\u20284\u2029</b><![CDATA[a\r\nb]]><!--a\r\nb--></r>\r\n',
  'leading whitespace before the root': ' \n\t<r/>',
  'non-ASCII names and text': '<r><données>é</données><名前>値</名前><first_x0020_name>x</first_x0020_name></r>',
  'repeated and nested children': '<r><o id="1"><i>a</i><i>b</i><n><m>1</m></n></o><o id="2"><i>c</i></o><o/></r>',
  'attribute named like a child': '<r><o id="1"><id>2</id></o><o id="3"/></r>',
  'a single record under the root': '<r><row><a>1</a><b>x</b></row></r>',
  'leaf root': '<r>text</r>',
  'ids for XPath id()': '<r><a id="i1"><b id="i2">t</b></a><c id="i2"/></r>',
};

const NAMES = ['a', 'b', 'item', 'p:item', 'q:x', 'row'];
const TEXTS = ['x', '  ', '\n    ', '1.50', 'a &amp; b', '&lt;tag&gt;', '&#233;t&#xE9;', 'α β', '0042', ''];

/** Seeded documents that mix the constructs above at random depths. */
function generated(count: number): string[] {
  let seed = 20261127;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const element = (depth: number): string => {
    const name = NAMES[next(NAMES.length)];
    let attrs = '';
    if (next(3) === 0) attrs += ` id="${next(5)}"`;
    if (next(4) === 0) attrs += ` p:k="${TEXTS[next(TEXTS.length)].replace(/</g, '&lt;')}"`;
    if (next(6) === 0) attrs += ` xmlns:q="urn:q${next(2)}"`;
    if (next(8) === 0) attrs += ` xmlns="urn:d${next(2)}"`;
    if (depth > 3 || next(4) === 0)
      return next(2) ? `<${name}${attrs}/>` : `<${name}${attrs}>${TEXTS[next(TEXTS.length)]}</${name}>`;
    let body = '';
    for (let i = next(5); i >= 0; i--) {
      const kind = next(10);
      if (kind < 5) body += element(depth + 1);
      else if (kind < 7) body += TEXTS[next(TEXTS.length)];
      else if (kind === 7) body += `<![CDATA[${TEXTS[next(TEXTS.length)]}]]>`;
      else if (kind === 8) body += `<!--${TEXTS[next(TEXTS.length)].replace(/&/g, '')}-->`;
      else body += `<?pi ${next(3)}?>`;
    }
    return `<${name}${attrs}>${body}</${name}>`;
  };
  const docs: string[] = [];
  for (let i = 0; i < count; i++) {
    const prolog = ['', '<?xml version="1.0"?>\n', '\uFEFF<?xml version="1.0" encoding="UTF-8"?>', '<!--top-->\n'][
      next(4)
    ];
    docs.push(`${prolog}<root xmlns:p="urn:p" xmlns:q="urn:q">${element(0)}${element(0)}</root>${next(2) ? '\n' : ''}`);
  }
  return docs;
}

const CORPUS: [string, string][] = [
  ...Object.entries(SAMPLES),
  ...generated(150).map((doc, i): [string, string] => [`generated ${i}`, doc]),
];

function xmldom(text: string): Document {
  return new DOMParser({
    onError: (level: string, message: string) => {
      if (level !== 'warning') throw new Error(message);
    },
  }).parseFromString(text.replace(/^\uFEFF/, ''), 'text/xml');
}

const PROPERTIES = [
  'nodeType',
  'nodeName',
  'localName',
  'prefix',
  'namespaceURI',
  'nodeValue',
  'tagName',
  'name',
  'value',
  'data',
  'target',
  'publicId',
  'systemId',
  'internalSubset',
  'textContent',
] as const;

/** Every node's DOM properties, attributes and written-back XML, in document order. */
function dump(doc: Node): unknown[] {
  const out: unknown[] = [];
  const visit = (n: Node, depth: number) => {
    const props = n as unknown as Record<string, unknown>;
    out.push([depth, ...PROPERTIES.map((p) => props[p] ?? null), n.ownerDocument === doc]);
    const el = n as unknown as { attributes?: { length: number; item(i: number): Node } };
    if (n.nodeType === 1) {
      out.push(serializeXml(n), n.namespaceURI && n.lookupPrefix(n.namespaceURI));
      for (let i = 0; i < el.attributes!.length; i++) visit(el.attributes!.item(i), depth + 1);
    }
    for (let c = n.firstChild; c; c = c.nextSibling) visit(c, depth + 1);
  };
  visit(doc, 0);
  return out;
}

const EXPRESSIONS = [
  '//node()',
  '//@*',
  '//text()',
  '//comment() | //processing-instruction()',
  '//*[@id]/following::node()',
  '//*[last()]/preceding-sibling::*',
  '//text()/ancestor::*[1]',
  '/*/namespace::*',
  'count(//node())',
  'string(/)',
  'name(/*/*[1])',
  'local-name(//@*[1])',
  'namespace-uri(//*[last()])',
  'id("i2")',
  '//p:item | //a',
  'sum(//@id)',
];

/** An XPath result as plain values: a node set as each node's name and XML, in the order returned. */
function evaluate(expression: string, doc: Node): unknown {
  let result: unknown;
  try {
    result = xpath.useNamespaces({ p: 'urn:p' })(expression, doc as never);
  } catch (e) {
    return (e as Error).message;
  }
  if (!Array.isArray(result)) return result;
  return (result as Node[]).map((n) => [n.nodeType, n.nodeName, n.nodeType === 1 ? serializeXml(n) : n.nodeValue]);
}

test('well-formed documents: the tree has every node, property and written-back XML of the DOM xmldom builds', () => {
  for (const [name, text] of CORPUS) {
    const tree = readXmlTree(text.replace(/^\uFEFF/, ''));
    assert.ok(tree, `${name}: saxes reads it`);
    assert.deepEqual(dump(tree as unknown as Node), dump(xmldom(text)), name);
    assert.equal(serializeXml(tree as unknown as Node), serializeXml(xmldom(text)), name);
  }
});

test('XPath gives the same nodes, in the same order, and the same values on both', () => {
  for (const [name, text] of CORPUS) {
    const tree = parseXml(text) as unknown as Node;
    const dom = xmldom(text);
    for (const expression of EXPRESSIONS)
      assert.deepEqual(evaluate(expression, tree), evaluate(expression, dom), `${name}: ${expression}`);
  }
});

test('datasets, RAWCOL and joins are the same from either', () => {
  const paths = ['$', '//*', 'item', '..item', '//item[@id] || b', '//*[text()]', '//@id'];
  for (const [name, text] of CORPUS) {
    const dom = xmldom(text);
    for (const path of paths) {
      const options = { rawCol: 'raw' };
      const ours = documentToDataset(text, 'xml', path, options);
      const theirs = selectDataset(dom, 'xml', compilePath(path, 'xml'), options);
      assert.deepEqual([schema(ours), plain(ours)], [schema(theirs), plain(theirs)], `${name}: ${path}`);
    }
  }
});

test('a malformed document is xmldom’s error, with its line and column; what xmldom let through reads as before', () => {
  for (const [text, message] of [
    ['<a>\n  <b>text</c>\n</a>', /line 2, column 6: Opening and ending tag mismatch: "b" != "c"/],
    ['<a><b></a>', /line 1, column 4: Opening and ending tag mismatch/],
    ['<a>&foo;</a>', /entity not found:&foo;/],
    ['<!DOCTYPE a [<!ENTITY foo "bar">]><a>&foo;</a>', /invalid XML/],
    ['<a x="1" x="2"/>', /Attribute x redefined/],
    ['<?xml version="1.0"?><a/>junk', /line 1, column 22: Extra content at the end of the document/],
    ['<p:a/>', /invalid XML/],
    ['<a>', /unclosed xml tag\(s\): a/],
    ['hello', /invalid XML: missing root element/],
    ['<a><?pi?x?></a>', /line 1, column 4: Invalid processing instruction/],
  ] as const) {
    assert.equal(readXmlTree(text), undefined, text);
    assert.throws(
      () => parseXml(text, 'f.xml'),
      (e: unknown) => e instanceof ScriptError && message.test(e.message),
    );
  }
  // Unquoted attribute values and control characters are xmldom warnings, not errors.
  assert.equal(serializeXml(parseXml('<a><?pi x?y?></a>')), '<a><?pi x?y?></a>');
  assert.deepEqual(plain(documentToDataset('<r><a b=c/><a b="d">\u0001</a></r>', 'xml', '//a')), [
    ['c', null],
    ['d', '\u0001'],
  ]);
});

test('a document 4,999 levels deep, its namespaces bound at the top, rebound half-way and undone, reads as xmldom reads it', () => {
  const half = 2_499;
  // The root, `half` levels, the element rebinding, `down` levels and the leaf: 4,999 in all.
  const down = 4_999 - half - 3;
  const text =
    '<r xmlns="urn:d" xmlns:p="urn:p">' +
    '<p:a p:n="1">'.repeat(half) +
    '<a xmlns:p="urn:q" xmlns="">' +
    '<p:a p:n="2">'.repeat(down) +
    '<b/>' +
    '</p:a>'.repeat(down) +
    '</a>' +
    '</p:a>'.repeat(half) +
    '<p:c/></r>';
  const tree = readXmlTree(text) as unknown as Document;
  assert.ok(tree, 'saxes reads it');
  /** Each element under the root, first child after first child: its name, namespace and first attribute's namespace. */
  const chain = (doc: Document) => {
    const out: (string | null)[][] = [];
    for (let n = doc.documentElement!.firstChild as Element | null; n; n = n.firstChild as Element | null)
      out.push([n.nodeName, n.namespaceURI, n.attributes.item(0)?.namespaceURI ?? null]);
    return out;
  };
  const deep = chain(tree);
  assert.equal(deep.length, 4_998);
  assert.deepEqual(deep, chain(xmldom(text)));
  assert.deepEqual(deep[0], ['p:a', 'urn:p', 'urn:p']);
  assert.deepEqual(deep[half], ['a', null, 'http://www.w3.org/2000/xmlns/']);
  assert.deepEqual(deep[half + 1], ['p:a', 'urn:q', 'urn:q']);
  assert.deepEqual(deep.at(-1), ['b', null, null]);
  // Below the root again once the rebinding element closed: p is urn:p, the default urn:d.
  const last = tree.documentElement!.lastChild as Element;
  assert.deepEqual([last.nodeName, last.namespaceURI, tree.documentElement!.namespaceURI], ['p:c', 'urn:p', 'urn:d']);
});
