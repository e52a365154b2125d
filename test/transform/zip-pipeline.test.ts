import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import type { Column } from '../../runtime/dataset/types';
import { sendJson, startHttpServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { column, failure, orderColumns, orders, run, sessionWith } from './helpers';

test('ZIP JSON: batches of N rows become JSON arrays, one row per batch', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(
    s,
    "ADD COLUMN 'doc' FORMAT JSON INCLUDE 'id' COLLAPSE; ZIP COLUMN 'doc' FORMAT JSON BATCH 3",
  );
  assert.deepEqual(dataset.columns, [{ name: 'doc', type: { base: 'string' } }]);
  assert.deepEqual(column(dataset, 'doc'), ['[{"id":1},{"id":2},{"id":3}]', '[{"id":4}]']);
});

test('ZIP without BATCH collapses all rows into one document; null fragments are left out', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(
    s,
    "ADD COLUMN 'doc' FORMAT JSON INCLUDE 'id' WHEN 'id <> 2'; ZIP COLUMN 'doc' FORMAT 'JSON'",
  );
  assert.equal(dataset.rowCount, 1);
  assert.deepEqual(JSON.parse(column(dataset, 'doc')[0] as string), [{ id: 1 }, { id: 3 }, { id: 4 }]);
});

test('ZIP XML gives a well-formed document under <root>', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(
    s,
    "ADD COLUMN 'x' FORMAT XML INCLUDE 'id,name' OPTIONS 'element:order'; ZIP COLUMN 'x' FORMAT XML BATCH 10",
  );
  const xml = column(dataset, 'x')[0] as string;
  assert.match(xml, /^<\?xml version="1.0" encoding="utf-8"\?><root><order><id>1<\/id><name>Widget<\/name><\/order>/);
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  assert.equal(doc.getElementsByTagName('order').length, 4);
  assert.equal(doc.getElementsByTagName('name')[2].textContent, 'Gizmo "pro"');
});

test('ZIP CSV keeps one header line when the fragments carry headers', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(
    s,
    "ADD COLUMN 'c' FORMAT CSV INCLUDE 'id,name' OPTIONS 'headers:1'; ZIP COLUMN 'c' FORMAT CSV BATCH 2",
  );
  assert.deepEqual(column(dataset, 'c'), [
    'id,name\r\n1,Widget\r\n2,"Gadget, large"\r\n',
    'id,name\r\n3,"Gizmo ""pro"""\r\n4,\r\n',
  ]);
  const bare = await run(
    sessionWith(orderColumns, orders()),
    "ADD COLUMN 'c' FORMAT CSV INCLUDE 'id'; ZIP COLUMN 'c' FORMAT CSV",
  );
  assert.deepEqual(column(bare.dataset, 'c'), ['1\r\n2\r\n3\r\n4\r\n']);
});

test('ZIP errors and the empty pipeline', async () => {
  const s = sessionWith(orderColumns, orders());
  assert.match((await failure(s, "ZIP COLUMN 'nope' FORMAT JSON")).message, /unknown column 'nope'/);
  assert.match(
    (await failure(s, "ZIP COLUMN 'name' FORMAT JSON BATCH 0")).message,
    /BATCH expects a whole number of 1 or more but found '0'/,
  );
  const { dataset } = await run(
    sessionWith(orderColumns, []),
    "ADD COLUMN 'doc' FORMAT JSON; ZIP COLUMN 'doc' FORMAT JSON BATCH 5",
  );
  assert.equal(dataset.rowCount, 0);
});

test('ZIP JSON/XML refuse fragments that are not JSON values / XML elements, naming the column and the first bad row', async () => {
  /** Runs `prepare`, then the ZIP statement that must fail; returns its error. */
  const zipFailure = async (prepare: string, zip: string) => {
    const s = sessionWith(orderColumns, orders());
    if (prepare) await run(s, prepare);
    return failure(s, zip);
  };
  let e = await zipFailure('', "ZIP COLUMN 'name' FORMAT JSON");
  assert.match(e.message, /column 'name', row 1: 'Widget' is not a JSON value/);
  assert.deepEqual(e.position, { line: 1, column: 13, offset: 12 }, 'the caret is under the column');
  e = await zipFailure("ADD COLUMN 'x' FORMAT XML INCLUDE 'id' OPTIONS 'element:row'", "ZIP COLUMN 'x' FORMAT JSON");
  assert.match(e.message, /column 'x', row 1: '<row><id>1<\/id><\/row>' is not a JSON value/);
  e = await zipFailure("ADD COLUMN 'doc' FORMAT JSON INCLUDE 'id'", "ZIP COLUMN 'doc' FORMAT XML");
  assert.match(e.message, /column 'doc', row 1: '\{"id":1\}' is not an XML fragment/);
  e = await zipFailure('', "ZIP COLUMN 'name' FORMAT XML");
  assert.match(e.message, /column 'name', row 1: 'Widget' is not an XML fragment/);
  e = await zipFailure('ADD COLUMN (x=\'<?xml version="1.0"?><a/>\')', "ZIP COLUMN 'x' FORMAT XML");
  assert.match(e.message, /column 'x', row 1: .* is not an XML fragment/);
  // The first bad row is named, however many good ones come before it; a long value is cut.
  e = await zipFailure(
    "ADD COLUMN (doc='@sql(IIF(id = 3, 'not json at all, and a rather long text after that', '\"text\"'))')",
    "PRINT 'zip';\n  ZIP COLUMN 'doc' FORMAT JSON BATCH 2",
  );
  assert.match(e.message, /column 'doc', row 3: 'not json at all, and a rather long text…' is not a JSON value/);
  assert.deepEqual(e.position, { line: 2, column: 15, offset: 27 });
});

test("ZIP JSON/XML parse each fragment: a bracketed but malformed one is refused with the parser's reason", async () => {
  const s = sessionWith(orderColumns, orders());
  // Row 2 is the first bad one: each fragment is parsed, not judged by its two ends.
  const bad = async (format: 'JSON' | 'XML', row1: string, row2: string) => {
    await run(s, `ADD OR ALTER COLUMN (doc='@sql(IIF(id = 1, '${row1}', '${row2}'))')`);
    return (await failure(s, `ZIP COLUMN 'doc' FORMAT ${format}`)).message;
  };
  for (const [row1, row2] of [
    ['{"a":1}', '{oops}'],
    ['[1]', '[1,]'],
    ['"x"', '"a" "b"'],
    ['{"a":1}', '{"a":1},{"b":2}'],
  ])
    assert.match(
      await bad('JSON', row1, row2),
      new RegExp(`^column 'doc', row 2: '${row2.replace(/[[\]{}]/g, '\\$&')}' is not a JSON value \\(.+\\)`),
      row2,
    );
  for (const [row1, row2] of [
    ['<a/>', '<a>'],
    ['<a>1</a>', '<a></b>'],
    ['<a/>', '<a>x & y</a>'],
    ['<a/>', '<a b="1" b="2"/>'],
    ['<a/>', '</root><root>'],
  ])
    assert.match(
      await bad('XML', row1, row2),
      new RegExp(`^column 'doc', row 2: '.*' is not an XML fragment \\(.+\\)`),
      row2,
    );
});

test('ZIP JSON/XML keep every fragment that is a JSON value / XML elements', async () => {
  let { dataset } = await run(sessionWith(orderColumns, orders()), "ZIP COLUMN 'price' FORMAT JSON");
  assert.deepEqual(JSON.parse(column(dataset, 'price')[0] as string), [2.5, 10, 7.25]);
  ({ dataset } = await run(
    sessionWith(orderColumns, orders()),
    `ADD COLUMN (doc='@sql(IIF(id = 1, ' [1, 2] ', IIF(id = 2, '"a"', IIF(id = 3, 'true', 'null'))))');
     ZIP COLUMN 'doc' FORMAT JSON`,
  ));
  assert.deepEqual(JSON.parse(column(dataset, 'doc')[0] as string), [[1, 2], 'a', true, null]);
  ({ dataset } = await run(
    sessionWith(orderColumns, orders()),
    `ADD COLUMN 'x' FORMAT XML INCLUDE 'name' WHEN 'id < 3';
     ZIP COLUMN 'x' FORMAT XML`,
  ));
  assert.equal(
    column(dataset, 'x')[0],
    '<?xml version="1.0" encoding="utf-8"?><root><name>Widget</name><name>Gadget, large</name></root>',
  );
});

test('ZIP JSON/XML join the fragments FORMAT wrote as written, and check every value that came from elsewhere', async () => {
  // XML 1.0 allows a letter beyond U+FFFF in a name, and FORMAT XML writes one as it is; the
  // validator ZIP checks other values with refuses it, so ZIP shows whether it judged them again.
  const columns: Column[] = [
    { name: 'id', type: { base: 'int' } },
    { name: '𝒜', type: { base: 'string' } },
  ];
  const rows = [
    [1, 'a'],
    [2, 'b & c'],
  ];
  const { dataset } = await run(
    sessionWith(columns, rows),
    "ADD COLUMN 'x' FORMAT XML INCLUDE '𝒜'; APPLY FILTER 'id > 0'; ZIP COLUMN 'x' FORMAT XML",
  );
  const xml = column(dataset, 'x')[0] as string;
  assert.equal(xml, '<?xml version="1.0" encoding="utf-8"?><root><𝒜>a</𝒜><𝒜>b &amp; c</𝒜></root>');
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  assert.equal(doc.getElementsByTagName('𝒜')[1].textContent, 'b & c');
  // Values FORMAT did not write are checked, in the same column: a default for the rows WHEN
  // leaves, a value OR ALTER puts over the fragments, or one it keeps under them.
  for (const [script, row] of [
    ["ADD COLUMN 'x=<oops>' FORMAT XML INCLUDE 'id' WHEN 'id = 1'", 2],
    ["ADD COLUMN 'x' FORMAT XML INCLUDE 'id'; ADD OR ALTER COLUMN 'x=<oops>'", 1],
    ["ADD COLUMN 'x=<oops>'; ADD OR ALTER COLUMN 'x' FORMAT XML INCLUDE 'id' WHEN 'id = 1'", 2],
  ] as const) {
    const s = sessionWith(columns, rows);
    await run(s, script);
    const e = await failure(s, "ZIP COLUMN 'x' FORMAT XML");
    assert.match(e.message, new RegExp(`^column 'x', row ${row}: '<oops>' is not an XML fragment`), script);
  }
  const s = sessionWith(columns, rows);
  await run(s, "ADD COLUMN 'x' FORMAT JSON; ADD OR ALTER COLUMN 'x={oops}'");
  assert.match(
    (await failure(s, "ZIP COLUMN 'x' FORMAT JSON")).message,
    /^column 'x', row 1: '\{oops\}' is not a JSON value/,
  );
});

test('ZIP XML refuses an undefined entity and a DOCTYPE, whose entities it never expands', async () => {
  const doc: Column[] = [{ name: 'doc', type: { base: 'string' } }];
  const lolz = '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>';
  for (const [fragment, reason] of [
    ['<a>&nbsp;</a>', "undefined entity '&nbsp;': without a DTD XML defines &amp; &lt; &gt; &quot; &apos;"],
    ['<a b="x &foo; y"/>', "undefined entity '&foo;'"],
    ['<a>&#0;</a>', '&#0; refers to a character XML does not allow'],
    ['<a>&#xD800;</a>', '&#xD800; refers to a character XML does not allow'],
    ['<!DOCTYPE r [<!ENTITY a "x">]><a>&a;</a>', "it has a declaration '<!DOCTYPE': a fragment stands inside"],
    [lolz, "it has a declaration '<!DOCTYPE'"],
  ]) {
    const s = sessionWith(doc, [['<a/>'], [fragment]]);
    const e = await failure(s, "ZIP COLUMN 'doc' FORMAT XML");
    assert.ok(e.message.startsWith("column 'doc', row 2: '"), e.message);
    assert.ok(e.message.includes(`is not an XML fragment (${reason}`), `${fragment}: ${e.message}`);
  }
  // What XML defines without a DTD passes, and so does text that holds no references.
  const fine =
    '<a t="&quot;">&amp;&lt;&gt;&apos;&#65;&#x1F600;<![CDATA[&nbsp; <!DOCTYPE]]><!-- &x; <!y --><?pi &z;?></a>';
  const { dataset } = await run(sessionWith(doc, [[fine]]), "ZIP COLUMN 'doc' FORMAT XML");
  const parsed = new DOMParser().parseFromString(column(dataset, 'doc')[0] as string, 'text/xml');
  assert.equal(parsed.getElementsByTagName('a')[0].textContent, "&<>'A😀&nbsp; <!DOCTYPE");
});

test('APPLY PIPELINE runs its statements once on the dataset', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(s, "APPLY PIPELINE (ADD COLUMN 'int one=1'; ADD COLUMN 'two=@sql(one + 1)')");
  assert.deepEqual(column(dataset, 'two'), ['2', '2', '2', '2']);
});

test('APPLY PIPELINE BYPASS runs the statements but keeps the dataset as it was', async () => {
  const s = sessionWith(orderColumns, orders());
  const before = s.dataset;
  const { dataset, messages } = await run(s, "APPLY PIPELINE (ADD COLUMN 'x=1'; PRINT 'inside') BYPASS");
  assert.equal(dataset, before);
  assert.deepEqual(messages, ['inside']);
});

test('APPLY PIPELINE BREAK_ON_EMPTY skips the statements once the dataset is empty', async () => {
  const empty = sessionWith(orderColumns, []);
  assert.deepEqual((await run(empty, "APPLY PIPELINE (PRINT 'ran') BREAK_ON_EMPTY")).messages, []);
  assert.deepEqual((await run(empty, "APPLY PIPELINE (PRINT 'ran')")).messages, ['ran']);
  const s = sessionWith(orderColumns, orders());
  const { dataset, messages } = await run(s, "APPLY PIPELINE (EXIT KEEP 0) BREAK_ON_EMPTY; PRINT 'after'");
  assert.equal(dataset.rowCount, 0);
  assert.deepEqual(messages, [], 'EXIT inside a pipeline stops the script');
});

test('an error inside APPLY PIPELINE names the inner statement and leaves the pipeline unchanged', async () => {
  const s = sessionWith(orderColumns, orders());
  const e = await failure(s, "APPLY PIPELINE (ADD COLUMN 'x=1';\n  ADD COLUMN 'x=2')");
  assert.equal(e.statement, 'ADD COLUMN');
  assert.equal(e.position?.line, 2);
  assert.match(e.message, /column 'x' already exists/);
});

test("FORMAT's fragments stay marked as written when parts are stacked: pages, files of a glob, APPLY TX's carried columns", async () => {
  // As above: ZIP XML would refuse the name beyond U+FFFF if it judged FORMAT's fragments again.
  const page = (n: number) => [{ id: n, '𝒜': `a${n}` }];
  const api = await startHttpServer((req, res) => {
    const p = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);
    sendJson(res, { items: p <= 2 ? page(p) : [] });
  });
  const { session, dir } = tempSession({ 'in/a.csv': 'id,𝒜\n1,a1\n', 'in/b.csv': 'id,𝒜\n2,a2\n' }, 'transform');
  const inline = "APPLY PIPELINE (ADD COLUMN 'x' FORMAT XML INCLUDE '𝒜')";
  const expected = '<?xml version="1.0" encoding="utf-8"?><root><𝒜>a1</𝒜><𝒜>a2</𝒜></root>';
  try {
    for (const read of [
      `SELECT * FROM HTTP (GET ${api.url}/p) APPLY TX 'items' WITH PAGING 'page' ${inline}`,
      `SELECT * FROM DRIVE '${join(dir, 'in', '*.csv')}' ${inline}`,
      `SELECT * FROM DRIVE '${join(dir, 'in', '*.csv')}'; ADD COLUMN 'x' FORMAT XML INCLUDE '𝒜';
       ADD COLUMN 'doc=[{"k":1}]'; APPLY TX '$' ON 'doc'`,
    ]) {
      const { dataset } = await run(session, `${read}; ZIP COLUMN 'x' FORMAT XML`);
      assert.deepEqual(column(dataset, 'x'), [expected], read);
    }
  } finally {
    await session.close();
    await api.close();
  }
});
