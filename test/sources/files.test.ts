import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { load, plain, results, schema, sessionWith } from './helpers';

test('JSON: an array of objects gives a row per object, typed; nested values are JSON text', async () => {
  const { session } = sessionWith({
    'o.json': JSON.stringify([
      {
        id: 1,
        big: 3000000000,
        price: 9.5,
        ok: true,
        when: '2024-01-02T03:04:05Z',
        tags: ['a', 'b'],
        addr: { city: 'Oslo' },
      },
      { id: 2, big: 4, price: 10, ok: false, when: null, extra: 'x' },
    ]),
  });
  const ds = await load(session, "SELECT * FROM DRIVE 'o.json';");
  assert.deepEqual(schema(ds), [
    'id:int',
    'big:long',
    'price:double',
    'ok:bool',
    'when:string',
    'tags:string',
    'addr:string',
    'extra:string',
  ]);
  assert.deepEqual(plain(ds), [
    [1, '3000000000n', 9.5, true, '2024-01-02T03:04:05Z', '["a","b"]', '{"city":"Oslo"}', null],
    [2, '4n', 10, false, null, null, null, 'x'],
  ]);
});

test('JSON: an object is one row; long integers and long decimals keep every digit', async () => {
  const { session } = sessionWith({
    'one.json':
      '{"id": 9007199254740993, "amount": 12345678901234.567891, "huge": 123456789012345678901234567890, "small": 0.1}',
  });
  const ds = await load(session, "SELECT * FROM DRIVE 'one.json';");
  assert.deepEqual(schema(ds), ['id:long', 'amount:decimal', 'huge:decimal', 'small:double']);
  assert.deepEqual(plain(ds), [
    ['9007199254740993n', '12345678901234.567891m', '1.2345678901234567890123456789e+29m', 0.1],
  ]);
  assert.equal(String(ds.rows()[0][2]), '1.2345678901234567890123456789e+29');
  assert.equal((ds.rows()[0][2] as { toFixed(): string }).toFixed(), '123456789012345678901234567890');
});

test('JSON: #setjsonsettings floatparsehandling:decimal makes fractions decimal', async () => {
  const { session } = sessionWith({ 'f.json': '[{"x": 0.1}, {"x": 2}]' });
  const ds = await load(session, "PRINT '#setjsonsettings(floatparsehandling:decimal)'; SELECT * FROM DRIVE 'f.json';");
  assert.deepEqual(schema(ds), ['x:decimal']);
  assert.deepEqual(plain(ds), [['0.1m'], ['2m']]);
});

test('JSON: malformed text is an error with the file, line and column', async () => {
  const { session } = sessionWith({ 'bad.json': '[\n  {"a": 1},\n  {"a": 2,}\n]' });
  await assert.rejects(session.run("SELECT * FROM DRIVE 'bad.json';"), (e: Error) => {
    assert.match(e.message, /^bad\.json: invalid JSON at line 3, column \d+/);
    return true;
  });
  // Old Mac line ends (a lone CR) count as line breaks too, as JavaScript and Python count them.
  for (const eol of ['\r\n', '\r']) {
    const { session: s } = sessionWith({ 'bad.json': '[\n  {"a": 1},\n  {"a": 2,}\n]'.replaceAll('\n', eol) });
    await assert.rejects(s.run("SELECT * FROM DRIVE 'bad.json';"), /bad\.json: invalid JSON at line 3, column 11:/);
  }
  const { session: s2 } = sessionWith({ 'cut.json': '{"a": [1, 2' });
  await assert.rejects(s2.run("SELECT * FROM DRIVE 'cut.json';"), /cut\.json: invalid JSON at line 1, column 12/);
});

test('NDJSON: one object per line; a bad line is named by its line number', async () => {
  const { session } = sessionWith({
    'e.ndjson': '{"id":1,"n":"a"}\n\n{"id":2,"n":"b","x":1.5}\r\n',
    'bad.jsonl': '{"id":1}\n{"id":2\n',
  });
  const ds = await load(session, "SELECT * FROM DRIVE 'e.ndjson';");
  assert.deepEqual(schema(ds), ['id:int', 'n:string', 'x:double']);
  assert.deepEqual(plain(ds), [
    [1, 'a', null],
    [2, 'b', 1.5],
  ]);
  await assert.rejects(
    session.run("SELECT * FROM DRIVE 'bad.jsonl';"),
    /bad\.jsonl: invalid JSON at line 2, column \d+/,
  );
});

test("XML: the root's repeated children are the records; attributes and children become columns", async () => {
  const { session } = sessionWith({
    'o.xml': `<?xml version="1.0"?>
<orders source="shop">
  <order id="1"><date>2024-01-02</date><total>10.50</total><zip>007</zip></order>
  <order id="2"><date>2024-01-03</date><total>3</total><zip/></order>
</orders>`,
  });
  const ds = await load(session, "SELECT * FROM DRIVE 'o.xml';");
  assert.deepEqual(schema(ds), ['id:int', 'date:string', 'total:double', 'zip:string']);
  assert.deepEqual(plain(ds), [
    [1, '2024-01-02', 10.5, '007'],
    [2, '2024-01-03', 3, null],
  ]);
});

test("XML: APPLY TX with an XPath, and RAWCOL keeping each record's XML", async () => {
  const { session } = sessionWith({
    'c.xml': '<feed><title>t</title><entry id="a"><v>1</v></entry><entry id="b"><v>2</v></entry></feed>',
  });
  const ds = await load(session, "SELECT * FROM DRIVE 'c.xml' APPLY TX '//entry[v > 1]' WITH RAWCOL 'raw';");
  assert.deepEqual(schema(ds), ['id:string', 'v:int', 'raw:string']);
  assert.deepEqual(plain(ds), [['b', 2, '<entry id="b"><v>2</v></entry>']]);
});

test('XML: malformed XML is an error with the file, line and column', async () => {
  const { session } = sessionWith({ 'bad.xml': '<a>\n  <b>text</c>\n</a>' });
  await assert.rejects(
    session.run("SELECT * FROM DRIVE 'bad.xml';"),
    /bad\.xml: invalid XML at line 2, column \d+: .*mismatch/i,
  );
});

test('XML self-join: a child path written as XPath (`items/item`) leaves the field it descends into out, as `items.item` does', async () => {
  const { session } = sessionWith({
    'o.xml': '<r><order id="1"><note>n</note><items><item>a</item><item>b</item></items></order></r>',
  });
  const dotted = await load(session, "SELECT * FROM DRIVE 'o.xml' APPLY TX '//order || items.item';");
  assert.deepEqual(schema(dotted), ['id:int', 'note:string', 'item:string']);
  const xpath = await load(session, "SELECT * FROM DRIVE 'o.xml' APPLY TX '//order || items/item';");
  assert.deepEqual(schema(xpath), ['id:int', 'note:string', 'item:string']);
  assert.deepEqual(plain(xpath), [
    [1, 'n', 'a'],
    [1, 'n', 'b'],
  ]);
});

test('keys named __proto__ are data: a self-join takes no columns from one, an XML element of that name is a column', async () => {
  const { session } = sessionWith({
    'p.json': '{"orders": [{"__proto__": {"injected": "boo", "id": 99}, "items": [{"sku": "a"}]}]}',
    'p.xml': '<r><item><__proto__>x</__proto__><id>1</id></item></r>',
  });
  const joined = await load(session, "SELECT * FROM DRIVE 'p.json' APPLY TX '$.orders[*] || $.items[*]';");
  assert.deepEqual(schema(joined), ['__proto__:string', 'sku:string']);
  assert.deepEqual(plain(joined), [['{"injected":"boo","id":99}', 'a']]);
  const xml = await load(session, "SELECT * FROM DRIVE 'p.xml';");
  assert.deepEqual(schema(xml), ['__proto__:string', 'id:int']);
  assert.deepEqual(plain(xml), [['x', 1]]);
});

test('RAW: one row per file with its name and content; .txt is RAW', async () => {
  const { session } = sessionWith({ 'n.txt': 'hello\nworld' });
  const ds = await load(session, "SELECT * FROM DRIVE 'n.txt';");
  assert.deepEqual(schema(ds), ['file:string', 'content:string']);
  assert.deepEqual(plain(ds), [['n.txt', 'hello\nworld']]);
});

test('RAW: a byte order mark is not part of the content (docs: files are read as UTF-8, a BOM ignored)', async () => {
  const { session } = sessionWith({ 'bom.txt': '\ufeffid;name\r\n1;x\r\n' });
  const ds = await load(session, "SELECT * FROM DRIVE 'bom.txt';");
  assert.deepEqual(plain(ds), [['bom.txt', 'id;name\r\n1;x\r\n']]);
});

test('RAW with APPLY TX reads the content as the document it is', async () => {
  const { session } = sessionWith({ 'doc.dat': '{"items":[{"a":1},{"a":2}]}' });
  const ds = await load(session, "SELECT * FROM DRIVE 'doc.dat' FORMAT RAW APPLY TX '$.items';");
  assert.deepEqual(plain(ds), [[1], [2]]);
});

test('globs: matching files are read in name order and stacked, columns matched by name', async () => {
  const { session } = sessionWith({
    'in/2024-02.csv': 'id,name\n3,c\n',
    'in/2024-01.csv': 'id,name\n1,a\n2,b\n',
    'in/sub/2024-03.csv': 'name,id,extra\nd,4,x\n',
    'in/notes.txt': 'not csv',
  });
  const flat = await load(session, "SELECT * FROM DRIVE 'in/*.csv';");
  assert.deepEqual(plain(flat), [
    ['1', 'a'],
    ['2', 'b'],
    ['3', 'c'],
  ]);
  const deep = await load(session, "SELECT * FROM DRIVE 'in/**/2024-0[13].csv';");
  assert.deepEqual(schema(deep), ['id:string', 'name:string', 'extra:string']);
  assert.deepEqual(plain(deep), [
    ['1', 'a', null],
    ['2', 'b', null],
    ['4', 'd', 'x'],
  ]);
  await assert.rejects(
    load(session, "SELECT * FROM DRIVE 'in/[9-0]*.csv';"),
    /invalid glob '\[9-0\]\*\.csv': the range 9-0 in \[9-0\] runs backwards/,
  );
});

test('globs: JSON files typed differently are widened; no match is a warning and an empty dataset', async () => {
  const { session } = sessionWith({
    'p1.json': '[{"n":1}]',
    'p2.json': '[{"n":5000000000}]',
    'p3.json': '[{"n":1.5}]',
  });
  const ds = await load(session, "SELECT * FROM DRIVE 'p*.json';");
  assert.deepEqual(schema(ds), ['n:decimal']);
  assert.deepEqual(plain(ds), [['1m'], ['5000000000m'], ['1.5m']]);
  const out = await results(session, "SELECT * FROM DRIVE 'none/*.csv';").catch((e: Error) => e);
  assert.ok(out instanceof Error);
  assert.match(out.message, /folder not found: none/);
  const none = await results(session, "SELECT * FROM DRIVE 'q*.json';");
  assert.deepEqual(
    none.filter((r) => r.kind === 'warning').map((r) => (r as { text: string }).text),
    ["no file matches 'q*.json'"],
  );
  assert.equal(session.dataset.rowCount, 0);
});

test('a URL with a password written as a file (meant for a drive) is not found, its password masked', async () => {
  const { session } = sessionWith({});
  for (const [path, shown] of [
    ['ftp://up:PATH-SECRET-12@127.0.0.1:21/a.csv', /file not found: ftp:\/\/up:\*\*\*\*@127\.0\.0\.1:21\/a\.csv/],
    [
      'ftp://up:PATH-SECRET-12@127.0.0.1:21/*.csv',
      /folder not found: ftp:\/\/up:\*\*\*\*@127\.0\.0\.1:21 \(for 'ftp:\/\/up:\*\*\*\*@/,
    ],
  ] as const)
    await assert.rejects(session.run(`SELECT * FROM DRIVE '${path}';`), (e: Error) => {
      assert.match(e.message, shown);
      assert.ok(!e.message.includes('PATH-SECRET-12'), e.message);
      return true;
    });
});

test('missing and unreadable files, folders and unknown extensions are clear errors', async () => {
  const { session, dir } = sessionWith({ 'sub/x.csv': 'a\n1\n', 'secret.csv': 'a\n1\n', 'data.bin': 'x' });
  await assert.rejects(session.run("SELECT * FROM DRIVE 'nope.csv';"), /file not found: nope\.csv/);
  await assert.rejects(session.run("SELECT * FROM DRIVE 'sub' FORMAT CSV;"), /sub is a folder, not a file/);
  await assert.rejects(
    session.run("SELECT * FROM DRIVE 'data.bin';"),
    /cannot tell the format of '.*data\.bin'.*add FORMAT/,
  );
  await assert.rejects(
    session.run("SELECT * FROM DRIVE 'sub/x.csv' FORMAT PARQUET;"),
    /sub\/x\.csv is not a readable Parquet file: /,
  );
  await assert.rejects(session.run("SELECT * FROM DRIVE 'sub/x.csv' FORMAT JSON;"), /sub\/x\.csv: invalid JSON/);
  if (process.getuid?.() !== 0) {
    chmodSync(join(dir, 'secret.csv'), 0o000);
    await assert.rejects(
      session.run("SELECT * FROM DRIVE 'secret.csv';"),
      /cannot read secret\.csv: permission denied/,
    );
  }
});

test('a drive connection resolves paths against its root folder', async () => {
  const { session } = sessionWith({ 'landing/in.csv': 'a\n1\n' });
  session.connections.add({ name: 'Landing Zone', kind: 'drive', root: 'landing' });
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE [landing zone] 'in.csv';")), [['1']]);
  session.connections.add({ name: 'api', kind: 'http', baseUrl: 'http://127.0.0.1:9' });
  await assert.rejects(
    session.run("SELECT * FROM DRIVE [api] 'in.csv';"),
    /\[api\] is a http connection; expected drive/,
  );
});

test('the file path may hold functions', async () => {
  const { session } = sessionWith({ 'ab.csv': 'a\n1\n' });
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE '#tolower(AB).csv';")), [['1']]);
});

test('OPTIONS apply to CSV only; APPLY TX on a CSV file takes CSV options', async () => {
  const { session } = sessionWith({ 'a.json': '[]', 'b.csv': 'x;y\n1;2\n' });
  await assert.rejects(
    session.run("SELECT * FROM DRIVE 'a.json' OPTIONS 'headers:0';"),
    /OPTIONS are CSV reading options; a\.json is read as JSON/,
  );
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE 'b.csv' APPLY TX 'delimiter:;';")), [['1', '2']]);
  await assert.rejects(session.run("SELECT * FROM DRIVE 'b.csv' APPLY TX '$.x';"), /CSV files take CSV options/);
});

test('an empty JSON file of a glob takes the columns of the file before it for the inline block', async () => {
  const { session } = sessionWith({ 'j/1.json': '[{"a":1},{"a":2}]', 'j/2.json': '[]' });
  const out = await results(
    session,
    "SELECT * FROM DRIVE 'j/*.json' APPLY PIPELINE ( ADD COLUMN 'int b=@sql(a * 2)'; PRINT 'rows: #data.count()'; );",
  );
  assert.deepEqual(
    out.filter((r) => r.kind === 'message').map((r) => (r as { text: string }).text),
    ['rows: 2', 'rows: 0'],
  );
  assert.deepEqual(plain(session.dataset), [
    [1, 2],
    [2, 4],
  ]);
});

test('an inline APPLY PIPELINE runs once per file', async () => {
  const { session } = sessionWith({ 'd/1.csv': 'a\n1\n', 'd/2.csv': 'a\n2\n3\n' });
  const out = await results(session, "SELECT * FROM DRIVE 'd/*.csv' APPLY PIPELINE ( PRINT 'rows: #data.count()'; );");
  assert.deepEqual(
    out.filter((r) => r.kind === 'message').map((r) => (r as { text: string }).text),
    ['rows: 1', 'rows: 2'],
  );
  assert.equal(session.dataset.rowCount, 3);
});
