import { test } from 'node:test';
import assert from 'node:assert/strict';
import { documentToDataset, parseDocument, valueAtPath } from '../../runtime/docpath';
import { plain, schema } from './helpers';

const shop = JSON.stringify({
  shop: 'north',
  orders: [
    {
      id: 1,
      customer: { name: 'Ann', city: 'Oslo' },
      items: [
        { sku: 'a', qty: 2 },
        { sku: 'b', qty: 1 },
      ],
    },
    { id: 2, customer: { name: 'Bob', city: 'Rome' }, items: [] },
  ],
  archive: { docs: [{ id: 'x' }], nested: { docs: [{ id: 'y' }, { id: 'z' }] } },
});

test('$ on a JSON object: its direct children are the columns of one row', () => {
  const ds = documentToDataset(shop, 'json', '$');
  assert.deepEqual(schema(ds), ['shop:string', 'orders:string', 'archive:string']);
  assert.equal(ds.rowCount, 1);
  assert.equal(ds.rows()[0][0], 'north');
});

test('$ on a JSON array gives one row per element; scalars are a value column', () => {
  assert.deepEqual(plain(documentToDataset('[{"a":1},{"a":2,"b":"x"}]', 'json', '$')), [
    [1, null],
    [2, 'x'],
  ]);
  const scalars = documentToDataset('[1, "two", null]', 'json', '$');
  assert.deepEqual(schema(scalars), ['value:string']);
  assert.deepEqual(plain(scalars), [['1'], ['two'], [null]]);
});

test('a node under the root: `orders` and `$.orders`; nested paths step through arrays', () => {
  const bare = documentToDataset(shop, 'json', 'orders');
  const rooted = documentToDataset(shop, 'json', '$.orders');
  assert.deepEqual(plain(bare), plain(rooted));
  assert.deepEqual(schema(bare), ['id:int', 'customer:string', 'items:string']);
  assert.deepEqual(plain(documentToDataset(shop, 'json', '$.orders.customer')), [
    ['Ann', 'Oslo'],
    ['Bob', 'Rome'],
  ]);
  assert.deepEqual(plain(documentToDataset(shop, 'json', 'orders.items')), [
    ['a', 2],
    ['b', 1],
  ]);
  assert.deepEqual(plain(documentToDataset(shop, 'json', "$.orders[1]['customer']")), [['Bob', 'Rome']]);
});

test('..name selects that node at any depth', () => {
  assert.deepEqual(plain(documentToDataset(shop, 'json', '..docs')), [['x'], ['y'], ['z']]);
  assert.deepEqual(plain(documentToDataset(shop, 'json', '$..sku')), [['a'], ['b']]);
});

test("[*] and .* select an array's elements, at any depth and on nested arrays; on an object its values", () => {
  const perOrder = plain(documentToDataset(shop, 'json', '$.orders'));
  assert.deepEqual(plain(documentToDataset(shop, 'json', '$.orders[*]')), perOrder);
  assert.deepEqual(plain(documentToDataset(shop, 'json', 'orders.*')), perOrder);
  // every order's items, one row per item
  assert.deepEqual(plain(documentToDataset(shop, 'json', '$.orders[*].items[*]')), [
    ['a', 2],
    ['b', 1],
  ]);
  assert.deepEqual(plain(documentToDataset(shop, 'json', '..items[*]')), [
    ['a', 2],
    ['b', 1],
  ]);
  assert.deepEqual(plain(documentToDataset(shop, 'json', '..docs[*]')), [['x'], ['y'], ['z']]);
  assert.deepEqual(plain(documentToDataset(shop, 'json', '$.orders[0].customer.*')), [['Ann'], ['Oslo']]);
  // an array of arrays: [*] gives the inner arrays, whose elements are the rows
  assert.deepEqual(plain(documentToDataset('{"m":[[{"v":1},{"v":2}],[{"v":3}]]}', 'json', '$.m[*]')), [[1], [2], [3]]);
  assert.deepEqual(plain(documentToDataset('{"m":[[{"v":1},{"v":2}],[{"v":3}]]}', 'json', '$.m[1][*]')), [[3]]);
  // as a child path of a self-join
  assert.deepEqual(
    plain(documentToDataset(shop, 'json', '$.orders || items[*]')).map((r) => [r[0], r[2], r[3]]),
    [
      [1, 'a', 2],
      [1, 'b', 1],
      [2, null, null],
    ],
  );
});

test('parent || child: parent fields repeated per child; a parent without children is kept', () => {
  const ds = documentToDataset(shop, 'json', '$.orders || items');
  assert.deepEqual(schema(ds), ['id:int', 'customer:string', 'sku:string', 'qty:int']);
  assert.deepEqual(
    plain(ds).map((r) => [r[0], r[2], r[3]]),
    [
      [1, 'a', 2],
      [1, 'b', 1],
      [2, null, null],
    ],
  );
});

test('|| renames a child field named like a parent field; joins chain', () => {
  const doc = JSON.stringify({ groups: [{ id: 'g', lists: [{ id: 'l', entries: [{ id: 'e', v: 1 }] }] }] });
  const ds = documentToDataset(doc, 'json', 'groups || lists || entries');
  assert.deepEqual(schema(ds), ['id:string', 'lists.id:string', 'entries.id:string', 'v:int']);
  assert.deepEqual(plain(ds), [['g', 'l', 'e', 1]]);
});

test('paths are case-sensitive; a path that selects nothing gives no rows', () => {
  assert.equal(documentToDataset(shop, 'json', '$.Orders').rowCount, 0);
  assert.equal(documentToDataset(shop, 'json', '$.orders').rowCount, 2);
});

test('JSONPath filters are handed to jsonpath-plus', () => {
  assert.deepEqual(
    plain(documentToDataset(shop, 'json', '$.orders[?(@.id == 2)]')).map((r) => r[0]),
    [2],
  );
});

test('XPath on a JSON document and bad paths are clear errors', () => {
  assert.throws(() => documentToDataset(shop, 'json', '//orders'), /is an XPath; JSON documents take paths like/);
  assert.throws(
    () => documentToDataset(shop, 'json', '$.orders[x'),
    /invalid document path '\$\.orders\[x': missing '\]'/,
  );
  assert.throws(() => documentToDataset(shop, 'json', 'orders || '), /empty part around '\|\|'/);
  assert.throws(
    () => documentToDataset(shop, 'json', '$..'),
    /invalid document path '\$\.\.': expected a name or '\*' at character 4/,
  );
  assert.throws(
    () => documentToDataset(shop, 'json', 'orders.'),
    /invalid document path 'orders\.': expected a name or '\*' at character 8/,
  );
  assert.throws(
    () => documentToDataset(shop, 'json', '$.orders[?(@.id == 2]'),
    /invalid document path '\$\.orders\[\?\(@\.id == 2\]': '\]' where '\)' is expected at character 21/,
  );
});

const orders = `<shop name="north">
  <orders>
    <order id="1" status="open"><customer>Ann</customer><line sku="a"><qty>2</qty></line><line sku="b"><qty>1</qty></line></order>
    <order id="2" status="done"><customer>Bob</customer></order>
  </orders>
</shop>`;

test('XML: $ is the root; children that repeat are records, otherwise the root is one record', () => {
  const root = documentToDataset(orders, 'xml', '$');
  assert.deepEqual(schema(root), ['name:string', 'orders:string']);
  assert.match(String(root.rows()[0][1]), /^<orders>/);
  const list = documentToDataset('<list><item>1</item><item>2</item><count>2</count></list>', 'XML', '$');
  assert.deepEqual(schema(list), ['item:int']);
  assert.deepEqual(plain(list), [[1], [2]]);
});

test('XML: dotted names start at the root element, with or without its own name', () => {
  const withRoot = documentToDataset(orders, 'xml', '$.shop.orders.order');
  const withoutRoot = documentToDataset(orders, 'xml', 'orders.order');
  assert.deepEqual(plain(withRoot), plain(withoutRoot));
  assert.deepEqual(schema(withRoot), ['id:int', 'status:string', 'customer:string', 'line:string']);
  assert.deepEqual(plain(documentToDataset(orders, 'xml', '..customer')), [['Ann'], ['Bob']]);
});

test('XML: XPath selects records; attributes and child elements become columns', () => {
  const ds = documentToDataset(orders, 'xml', "//order[@status='open']/line");
  assert.deepEqual(schema(ds), ['sku:string', 'qty:int']);
  assert.deepEqual(plain(ds), [
    ['a', 2],
    ['b', 1],
  ]);
  assert.deepEqual(plain(documentToDataset(orders, 'xml', '/shop/orders/order[2]/@id')), [[2]]);
  assert.deepEqual(plain(documentToDataset(orders, 'xml', 'count(//line)')), [[2]]);
});

test("XML: parent || child joins; RAWCOL keeps each record's XML", () => {
  const ds = documentToDataset(orders, 'xml', '//order || line', { rawCol: 'xml' });
  assert.deepEqual(schema(ds), ['id:int', 'status:string', 'customer:string', 'sku:string', 'qty:int', 'xml:string']);
  assert.deepEqual(plain(ds), [
    [1, 'open', 'Ann', 'a', 2, '<line sku="a"><qty>2</qty></line>'],
    [1, 'open', 'Ann', 'b', 1, '<line sku="b"><qty>1</qty></line>'],
    [2, 'done', 'Bob', null, null, '<order id="2" status="done"><customer>Bob</customer></order>'],
  ]);
});

test("JSON RAWCOL keeps each record's JSON, long numbers exactly", () => {
  const ds = documentToDataset('[{"id":12345678901234567890,"a":{"b":1}}]', 'json', '$', { rawCol: 'raw' });
  assert.deepEqual(plain(ds), [['12345678901234567890m', '{"b":1}', '{"id":12345678901234567890,"a":{"b":1}}']]);
});

test('XML numbers are typed only in canonical form; an attribute named like a child is @name', () => {
  const ds = documentToDataset(
    '<r><i code="1"><code>007</code><n>-3</n><x>1e3</x></i><i code="2"><code>8</code><n>4</n><x>2</x></i></r>',
    'xml',
    '$',
  );
  assert.deepEqual(schema(ds), ['@code:int', 'code:string', 'n:int', 'x:double']);
  assert.deepEqual(plain(ds), [
    [1, '007', -3, 1000],
    [2, '8', 4, 2],
  ]);
});

test('invalid XPath is a clear error', () => {
  assert.throws(() => documentToDataset(orders, 'xml', '//order[@id='), /invalid XPath '\/\/order\[@id='/);
});

test('valueAtPath reads one value: a link, a token, an attribute', () => {
  const json = parseDocument('{"meta":{"next":"/p2","count":3,"token":null}}', 'json');
  assert.equal(valueAtPath(json, 'json', 'meta.next'), '/p2');
  assert.equal(valueAtPath(json, 'json', '$.meta.count'), '3');
  assert.equal(valueAtPath(json, 'json', 'meta.token'), null);
  assert.equal(valueAtPath(json, 'json', 'meta.missing'), null);
  const xml = parseDocument('<feed><link rel="next" href="/p3"/></feed>', 'xml');
  assert.equal(valueAtPath(xml, 'xml', "//link[@rel='next']/@href"), '/p3');
});
