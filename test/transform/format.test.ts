import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import Decimal from 'decimal.js';
import type { Column, Value } from '../../runtime/dataset/types';
import { column, failure, orderColumns, orders, run, sessionWith } from './helpers';

const typedColumns: Column[] = [
  { name: 'amount', type: { base: 'decimal', precision: 20, scale: 2 } },
  { name: 'big', type: { base: 'long' } },
  { name: 'ok', type: { base: 'bool' } },
  { name: 'at', type: { base: 'datetime' } },
  { name: 'raw', type: { base: 'bytes' } },
  { name: 'ratio', type: { base: 'float' } },
  { name: 'id', type: { base: 'guid' } },
];
const typedRow: Value[] = [
  new Decimal('12345678901234567.5'),
  9007199254740993n,
  true,
  new Date(Date.UTC(2024, 1, 29, 23, 59, 1)),
  Uint8Array.from([0x68, 0x69]),
  Math.fround(0.1),
  '6f9619ff-8b86-d011-b42d-00c04fc964ff',
];

test('FORMAT JSON: one object per row from all columns, types kept, null as null', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(s, "ADD COLUMN 'doc' FORMAT JSON");
  const docs = column(dataset, 'doc') as string[];
  assert.equal(docs[0], '{"id":1,"name":"Widget","price":2.5,"qty":4,"region":"east"}');
  assert.deepEqual(JSON.parse(docs[2]), { id: 3, name: 'Gizmo "pro"', price: 7.25, qty: 2, region: 'Europe' });
  assert.equal(docs[3], '{"id":4,"name":null,"price":null,"qty":null,"region":null}');
});

test('FORMAT JSON keeps decimals and longs exact, writes dates, bytes and guids as strings', async () => {
  const s = sessionWith(typedColumns, [typedRow]);
  const { dataset } = await run(s, "ADD COLUMN 'doc' FORMAT JSON");
  assert.equal(
    column(dataset, 'doc')[0],
    '{"amount":12345678901234567.50,"big":9007199254740993,"ok":true,"at":"2024-02-29T23:59:01","raw":"6869","ratio":0.1,"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff"}',
  );
  const opts = await run(
    s,
    "ADD COLUMN 'doc2' FORMAT JSON INCLUDE 'at,raw' OPTIONS 'date:yyyy-MM-dd HH:mm bytes:base64'",
  );
  assert.equal(column(opts.dataset, 'doc2')[0], '{"at":"2024-02-29 23:59","raw":"aGk="}');
  const utf = await run(s, "ADD COLUMN 'doc3' FORMAT JSON INCLUDE 'raw' OPTIONS 'bytes:utf8'");
  assert.equal(column(utf.dataset, 'doc3')[0], '{"raw":"hi"}');
});

test('FORMAT JSON without decimals or floats: the same text for every kind, odd names and cells kept exact', async () => {
  const columns: Column[] = [
    { name: 'n', type: { base: 'double' } },
    { name: 'big', type: { base: 'long' } },
    { name: 'ok', type: { base: 'bool' } },
    { name: 'at', type: { base: 'datetime' } },
    { name: 'raw', type: { base: 'bytes' } },
    { name: '__proto__', type: { base: 'string' } },
    { name: 'say "hi"\n', type: { base: 'int' } },
  ];
  const at = new Date(Date.UTC(2024, 1, 29, 23, 59, 1));
  const rows: Value[][] = [
    [1.5, 42n, false, at, Uint8Array.from([1, 255]), ' \u2028 "q" \ud800 ', -0],
    // Cells JSON.stringify alone would get wrong: NaN, Infinity and a long past 2^53.
    [Number.NaN, 9007199254740993n, true, null, null, null, Number.POSITIVE_INFINITY],
    [null, -9007199254740991n, null, null, null, '', null],
  ];
  const s = sessionWith(columns, rows);
  const docs = column((await run(s, "ADD COLUMN 'doc' FORMAT JSON")).dataset, 'doc');
  assert.deepEqual(docs, [
    '{"n":1.5,"big":42,"ok":false,"at":"2024-02-29T23:59:01","raw":"01ff","__proto__":" \u2028 \\"q\\" \\ud800 ","say \\"hi\\"\\n":0}',
    '{"n":"NaN","big":9007199254740993,"ok":true,"at":null,"raw":null,"__proto__":null,"say \\"hi\\"\\n":"Infinity"}',
    '{"n":null,"big":-9007199254740991,"ok":null,"at":null,"raw":null,"__proto__":"","say \\"hi\\"\\n":null}',
  ]);
  assert.equal(Object.getPrototypeOf(JSON.parse(docs[0])), Object.prototype);
  const trimmed = await run(s, "ADD COLUMN 'doc2' FORMAT JSON INCLUDE '__proto__' OPTIONS 'trim:1'");
  assert.equal(column(trimmed.dataset, 'doc2')[0], '{"__proto__":"\\"q\\" \\ud800"}');
  // Keys that are array indexes keep the column order (JSON.stringify of an object would not).
  const numeric = sessionWith(
    [
      { name: 'b', type: { base: 'int' } },
      { name: '2', type: { base: 'int' } },
      { name: '1', type: { base: 'string' } },
    ],
    [[1, 2, 'x']],
  );
  assert.equal(column((await run(numeric, "ADD COLUMN 'doc' FORMAT JSON")).dataset, 'doc')[0], '{"b":1,"2":2,"1":"x"}');
});

test('INCLUDE (in its order), INCLUDE NOT, EXCLUDE, and EXCLUDE ignored when INCLUDE is given', async () => {
  const s = sessionWith(orderColumns, orders().slice(0, 1));
  const { dataset } = await run(
    s,
    `ADD COLUMN 'a' FORMAT JSON INCLUDE 'qty, name';
     ADD COLUMN 'b' FORMAT JSON INCLUDE NOT 'name,price,qty,a';
     ADD COLUMN 'c' FORMAT JSON EXCLUDE 'price,qty,region,a,b';
     ADD COLUMN 'd' FORMAT JSON INCLUDE 'id' EXCLUDE 'id'`,
  );
  assert.equal(column(dataset, 'a')[0], '{"qty":4,"name":"Widget"}');
  assert.equal(column(dataset, 'b')[0], '{"id":1,"region":"east"}');
  assert.equal(column(dataset, 'c')[0], '{"id":1,"name":"Widget"}');
  assert.equal(column(dataset, 'd')[0], '{"id":1}');
  assert.match(
    (await failure(s, "ADD COLUMN 'e' FORMAT JSON INCLUDE 'id,nope'")).message,
    /INCLUDE: unknown column 'nope'/,
  );
});

test('INCLUDE and EXCLUDE name a column holding a comma in brackets', async () => {
  const s = sessionWith(orderColumns, orders().slice(0, 1));
  const { dataset } = await run(
    s,
    `ADD COLUMN 'int [unit, qty]=@sql(qty)';
     ADD COLUMN 'a' FORMAT JSON INCLUDE 'id, [unit, qty]';
     ADD COLUMN 'b' FORMAT JSON EXCLUDE 'name,price,qty,region,[unit, qty],a'`,
  );
  assert.equal(column(dataset, 'a')[0], '{"id":1,"unit, qty":4}');
  assert.equal(column(dataset, 'b')[0], '{"id":1}');
});

test('COLLAPSE removes the fields used; WHEN limits the rows formatted', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(s, "ADD COLUMN 'doc' FORMAT JSON INCLUDE 'name,price' COLLAPSE WHEN 'price > 5'");
  assert.deepEqual(
    dataset.columns.map((c) => c.name),
    ['id', 'qty', 'region', 'doc'],
  );
  assert.deepEqual(column(dataset, 'doc'), [
    null,
    '{"name":"Gadget, large","price":10}',
    '{"name":"Gizmo \\"pro\\"","price":7.25}',
    null,
  ]);
  const withDefault = sessionWith(orderColumns, orders());
  const out = await run(withDefault, "ADD COLUMN 'doc={}' FORMAT JSON INCLUDE 'id' WHEN 'id > 2' OPTIONS 'skip:1'");
  assert.deepEqual(
    column(out.dataset, 'doc'),
    ['{}', '{}', '{}', '{"id":4}'],
    'rows not formatted take the default; skip:1 skips the first selected row',
  );
});

test('FORMAT XML: escaped, encoded names, nulls omitted, element wraps each fragment', async () => {
  const cols: Column[] = [
    { name: 'id', type: { base: 'int' } },
    { name: 'first name', type: { base: 'string' } },
    { name: 'note', type: { base: 'string' } },
  ];
  const s = sessionWith(cols, [
    [1, 'A & B <c>', 'line\r\nnext\u0001'],
    [2, null, 'x'],
  ]);
  const { dataset } = await run(
    s,
    "ADD COLUMN 'x' FORMAT XML; ADD COLUMN 'y' FORMAT XML EXCLUDE 'x' OPTIONS 'element:row flatten:1'",
  );
  const xs = column(dataset, 'x') as string[];
  assert.equal(
    xs[0],
    '<id>1</id><first_x0020_name>A &amp; B &lt;c&gt;</first_x0020_name><note>line&#xD;\nnext\ufffd</note>',
  );
  assert.equal(xs[1], '<id>2</id><note>x</note>');
  const ys = column(dataset, 'y') as string[];
  assert.equal(ys[1], '<row><id>2</id><note>x</note></row>');
  const doc = new DOMParser().parseFromString(`<root>${ys.join('')}</root>`, 'text/xml');
  assert.equal(doc.getElementsByTagName('row').length, 2);
  assert.equal(doc.getElementsByTagName('note')[0].textContent, 'line next\ufffd');
  assert.match(
    (await failure(s, "ADD COLUMN 'z' FORMAT XML OPTIONS 'element:1bad'")).message,
    /not a valid XML element name/,
  );
});

test('FORMAT CSV follows RFC 4180; headers, delimiter, quoted, trim, flatten, fields, comments', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(
    s,
    `ADD COLUMN 'a' FORMAT CSV;
     ADD COLUMN 'b' FORMAT CSV INCLUDE 'id,name' OPTIONS 'headers:1 delimiter:;';
     ADD COLUMN 'c' FORMAT CSV INCLUDE 'id,region' OPTIONS 'quoted:1';
     ADD COLUMN 'd' FORMAT CSV INCLUDE 'id,name' OPTIONS 'quoted:0 delimiter:\\t';
     ADD COLUMN 'e' FORMAT CSV INCLUDE 'id,region' OPTIONS 'fields:3,6';
     ADD COLUMN 'f' FORMAT CSV INCLUDE 'region,id' OPTIONS 'comments:#,eu quoted:'''`,
  );
  assert.deepEqual(column(dataset, 'a'), [
    '1,Widget,2.5,4,east',
    '2,"Gadget, large",10,1,west',
    '3,"Gizmo ""pro""",7.25,2,Europe',
    '4,,,,',
  ]);
  assert.equal(column(dataset, 'b')[1], 'id;name\r\n2;Gadget, large');
  assert.equal(column(dataset, 'c')[0], '"1","east"');
  assert.equal(column(dataset, 'd')[1], '2\tGadget, large');
  assert.deepEqual(column(dataset, 'e'), ['1  east  ', '2  west  ', '3  Europe', '4        ']);
  assert.deepEqual(column(dataset, 'f'), ["'east','1'", "'west','2'", "'Europe','3'", ",'4'"]);

  const lines = sessionWith([{ name: 's', type: { base: 'string' } }], [['  two\nlines  '], ['#comment']]);
  const out = await run(
    lines,
    "ADD COLUMN 'plain' FORMAT CSV INCLUDE 's'; ADD COLUMN 'shaped' FORMAT CSV INCLUDE 's' OPTIONS 'trim:1 flatten:1 comments:#'",
  );
  assert.deepEqual(column(out.dataset, 'plain'), ['"  two\nlines  "', '#comment']);
  assert.deepEqual(column(out.dataset, 'shaped'), ['two lines', '"#comment"']);
});

test('FORMAT option and type errors', async () => {
  const s = sessionWith(orderColumns, orders());
  const cases: [string, RegExp][] = [
    ["ADD COLUMN 'x' FORMAT JSON OPTIONS 'colour:red'", /unknown key 'colour' \(keys: headers, skip/],
    ["ADD COLUMN 'x' FORMAT JSON OPTIONS 'red'", /'red' is not key:value \(keys: headers, skip/],
    ["ADD COLUMN 'x' FORMAT JSON OPTIONS 'delimiter:;'", /delimiter applies to FORMAT CSV only/],
    ["ADD COLUMN 'x' FORMAT CSV OPTIONS 'element:row'", /element applies to FORMAT XML only/],
    ["ADD COLUMN 'x' FORMAT CSV OPTIONS 'headers:yes'", /headers must be 0 or 1/],
    ["ADD COLUMN 'x' FORMAT CSV OPTIONS 'skip:-1'", /skip must be an integer/],
    ["ADD COLUMN 'x' FORMAT CSV OPTIONS 'quoted:ab'", /quoted must be one character/],
    ["ADD COLUMN 'x' FORMAT CSV OPTIONS 'fields:3, 4'", /fields must be positive widths/],
    ["ADD COLUMN 'x' FORMAT CSV OPTIONS 'fields:3,4'", /fields gives 2 widths for 5 fields/],
    ["ADD COLUMN 'x' FORMAT JSON OPTIONS 'bytes:ebcdic'", /bytes must be one of/],
    ["ADD COLUMN 'x' FORMAT JSON OPTIONS 'date:yyyy-MM-dd fffffffff'", /date:/],
    ["ADD COLUMN 'int x' FORMAT JSON", /must be a string type/],
    ["ADD COLUMN 'x' FORMAT JSON WHEN 'nope > 1'", /unknown column 'nope'/],
  ];
  for (const [script, expected] of cases) assert.match((await failure(s, script)).message, expected, script);
});

test('FORMAT OPTIONS: a key:value word with an unknown key is refused under it; date formats with blanks and colons still work', async () => {
  const s = sessionWith(typedColumns, [typedRow]);
  // § marks the word the caret must point at.
  const cases = [
    "ADD COLUMN 'x' FORMAT JSON OPTIONS 'date:yyyy-MM-dd §nullvalu:x'",
    "ADD COLUMN 'x' FORMAT JSON OPTIONS 'date:yyyy-MM-dd HH:mm  §Bytes64:hex'",
    "ADD COLUMN 'x' FORMAT CSV OPTIONS 'headers:1 §delimter:;'",
    "ADD COLUMN 'x' FORMAT JSON OPTIONS '§nokey:1'",
  ];
  for (const marked of cases) {
    const script = marked.replace('§', '');
    const key = /§([^:]+):/.exec(marked)![1];
    const e = await failure(s, script);
    assert.match(
      e.message,
      new RegExp(`unknown key '${key}' \\(keys: headers, skip, delimiter, .*, element\\)`),
      script,
    );
    assert.equal(e.position?.column, marked.indexOf('§') + 1, script);
  }
  const { dataset } = await run(
    s,
    `ADD COLUMN 'a' FORMAT JSON INCLUDE 'at' OPTIONS 'date:HH:mm:ss';
     ADD COLUMN 'b' FORMAT JSON INCLUDE 'at,raw' OPTIONS 'date:dd.MM.yyyy HH:mm:ss bytes:base64';
     ADD COLUMN 'c' FORMAT JSON INCLUDE 'at' OPTIONS 'date:dddd, MMMM d, yyyy h:mm:ss tt'`,
  );
  assert.equal(column(dataset, 'a')[0], '{"at":"23:59:01"}');
  assert.equal(column(dataset, 'b')[0], '{"at":"29.02.2024 23:59:01","raw":"aGk="}');
  assert.equal(column(dataset, 'c')[0], '{"at":"Thursday, February 29, 2024 11:59:01 PM"}');
});

test('FORMAT on an empty dataset adds the column; unicode and long values survive', async () => {
  const empty = await run(sessionWith(orderColumns, []), "ADD COLUMN 'doc' FORMAT JSON");
  assert.equal(empty.dataset.rowCount, 0);
  const long = '\u2028é"\\'.repeat(50_000);
  const s = sessionWith([{ name: 's', type: { base: 'string' } }], [[long]]);
  const { dataset } = await run(s, "ADD COLUMN 'j' FORMAT JSON; ADD COLUMN 'c' FORMAT CSV INCLUDE 's'");
  assert.deepEqual(JSON.parse(column(dataset, 'j')[0] as string), { s: long });
  assert.equal(column(dataset, 'c')[0], `"${long.replace(/"/g, '""')}"`);
});
