import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { sendJson, startHttpServer } from '../helpers/http-server';
import { load, plain, schema, sessionWith } from './helpers';

test('APPLY TX after SELECT FROM HTTP turns the payload into rows (the response columns go)', async () => {
  const server = await startHttpServer((req, res) => sendJson(res, { docs: [{ id: 1 }, { id: 2 }] }));
  const { session } = sessionWith();
  after(async () => {
    await session.close();
    await server.close();
  });
  const ds = await load(session, `SELECT * FROM HTTP (GET ${server.url}/d); APPLY TX (..docs);`);
  assert.deepEqual(schema(ds), ['id:int']);
  assert.deepEqual(plain(ds), [[1], [2]]);
});

test("APPLY TX ON a column: each row's document expands, its other columns repeated", async () => {
  const { session } = sessionWith({
    'in.csv':
      'batch,doc\nb1,"{""lines"":[{""sku"":""a""},{""sku"":""b""}]}"\nb2,\nb3,"{""lines"":[{""sku"":""c"",""batch"":9}]}"\n',
  });
  const ds = await load(session, "SELECT * FROM DRIVE 'in.csv'; APPLY TX 'lines' ON 'doc';");
  assert.deepEqual(schema(ds), ['batch:string', 'sku:string', 'doc.batch:int']);
  assert.deepEqual(plain(ds), [
    ['b1', 'a', null],
    ['b1', 'b', null],
    ['b2', null, null],
    ['b3', 'c', 9],
  ]);
});

test('APPLY TX with CSV options parses a text column as CSV', async () => {
  const { session } = sessionWith({ 'raw.txt': 'a;b\n1;2\n3;4\n' });
  const ds = await load(session, "SELECT * FROM DRIVE 'raw.txt'; APPLY TX 'headers:1 delimiter:;' ON 'content';");
  assert.deepEqual(schema(ds), ['file:string', 'a:string', 'b:string']);
  assert.deepEqual(plain(ds), [
    ['raw.txt', '1', '2'],
    ['raw.txt', '3', '4'],
  ]);
});

test("APPLY TX without ON reads the payload column, or a one-column dataset's only column", async () => {
  const { session } = sessionWith({ 'x.txt': '<r><i>1</i><i>2</i></r>' });
  await session.run("SELECT * FROM DRIVE 'x.txt';");
  await assert.rejects(
    session.run("APPLY TX '//i';"),
    /name the document column with ON '<column>': there is no payload column \(columns: file, content\)/,
  );
  const ds = await load(session, "SELECT * FROM DRIVE 'x.txt'; APPLY TX '//i' ON 'content';");
  assert.deepEqual(plain(ds), [
    ['x.txt', 1],
    ['x.txt', 2],
  ]);
});

test('APPLY TX errors: an unknown ON column, a cell that is no document, a malformed document', async () => {
  const { session } = sessionWith({ 'd.csv': 'id,doc\n1,hello\n2,"{""a"":"\n' });
  await session.run("SELECT * FROM DRIVE 'd.csv';");
  await assert.rejects(session.run("APPLY TX '$' ON 'nope';"), (e: Error & { position?: { column: number } }) => {
    assert.match(e.message, /unknown column 'nope'/);
    assert.equal(e.position?.column, 18, 'the column name inside the quotes');
    return true;
  });
  await assert.rejects(session.run("APPLY TX '$' ON 'doc';"), /row 1 of doc: the document is neither JSON nor XML/);
  assert.deepEqual(
    plain(session.dataset),
    [
      ['1', 'hello'],
      ['2', '{"a":'],
    ],
    'a failing APPLY TX leaves the dataset as it was',
  );
  await assert.rejects(
    session.run("APPLY FILTER 'id = 2'; APPLY TX '$' ON 'doc';"),
    /row 1 of doc: invalid JSON at line 1, column 6/,
  );
});

test('APPLY TX on an empty dataset says to read a document first', async () => {
  const { session } = sessionWith();
  await assert.rejects(session.run("APPLY TX '$';"), /the dataset is empty: read a document first/);
});

test("APPLY TX '$.data.customers[*]' gives one row per customer, as '$.data.customers' does", async () => {
  const doc = {
    data: {
      customers: [
        { name: 'Ann', city: 'Oslo' },
        { name: 'Bob', city: 'Rome' },
        { name: 'Cy', city: 'Lima' },
      ],
    },
  };
  const server = await startHttpServer((req, res) => sendJson(res, doc));
  const { session } = sessionWith();
  after(async () => {
    await session.close();
    await server.close();
  });
  const byPath = async (path: string) =>
    load(session, `SELECT * FROM HTTP (GET ${server.url}/customers); APPLY TX '${path}';`);
  const all = await byPath('$.data.customers[*]');
  assert.deepEqual(schema(all), ['name:string', 'city:string']);
  assert.deepEqual(plain(all), [
    ['Ann', 'Oslo'],
    ['Bob', 'Rome'],
    ['Cy', 'Lima'],
  ]);
  assert.deepEqual(plain(await byPath('$.data.customers')), plain(all));
  assert.deepEqual(plain(await byPath('$.data.customers.*')), plain(all));
  assert.deepEqual(plain(await byPath('$.data.customers[*].city')), [['Oslo'], ['Rome'], ['Lima']]);
});

test('a plain path that selects nothing in an HTTP answer is an error naming it, as the webhook rootpath is; a wildcard, filter or empty array is 0 rows', async () => {
  const server = await startHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const page = Number(url.searchParams.get('page') ?? 1);
    // The last page of /paged leaves `data` out: the API's way to say the pages ended.
    if (url.pathname === '/paged') return sendJson(res, page <= 2 ? { data: [{ id: page }] } : { done: true });
    if (url.pathname === '/who') return sendJson(res, [{ who: 'a' }, { who: 'b' }]);
    if (url.pathname === '/crm/a') return sendJson(res, { data: { segment: 'gold' } });
    if (url.pathname === '/crm/b') return sendJson(res, { error: 'unknown' });
    if (url.pathname === '/xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<order><items/></order>');
      return;
    }
    sendJson(res, { data: { items: [], list: [{ id: 1, active: false }] } });
  });
  const { session } = sessionWith();
  after(async () => {
    await session.close();
    await server.close();
  });
  const refused: [string, string, string][] = [
    [`SELECT * FROM HTTP (GET ${server.url}/d) APPLY TX '§$.data.itemz';`, '$.data.itemz', 'GET '],
    [`SELECT * FROM HTTP (GET ${server.url}/d) APPLY TX (§data.list[3]);`, 'data.list[3]', 'GET '],
    [`SELECT * FROM HTTP (GET ${server.url}/xml) APPLY TX '§/order/items/item';`, '/order/items/item', 'GET '],
    [`SELECT * FROM HTTP (GET ${server.url}/d);\nAPPLY TX '§data.itemz';`, 'data.itemz', 'row 1 of payload'],
    [
      `SELECT * FROM HTTP (GET ${server.url}/d);\nAPPLY HTTP (GET ${server.url}/d) APPLY TX '§data.nope' WITH PROCESSING 'replace';`,
      'data.nope',
      'GET ',
    ],
  ];
  for (const [marked, path, where] of refused) {
    const script = marked.replace('§', '');
    const before = marked.slice(0, marked.indexOf('§')).split('\n');
    await assert.rejects(
      session.run(script),
      (e: Error & { position?: { line: number; column: number } }) => {
        assert.match(
          e.message,
          new RegExp(`^APPLY TX path '${path.replace(/[$.[\]]/g, '\\$&')}' selects nothing in ${where}`),
        );
        assert.match(e.message, /a path to an empty array selects the array: 0 rows/);
        assert.deepEqual(
          [e.position?.line, e.position?.column],
          [before.length, before[before.length - 1].length + 1],
          script,
        );
        return true;
      },
      script,
    );
  }
  const none = [
    `SELECT * FROM HTTP (GET ${server.url}/d) APPLY TX '$.data.items';`,
    `SELECT * FROM HTTP (GET ${server.url}/d) APPLY TX '$.data.list[?(@.active)]';`,
    `SELECT * FROM HTTP (GET ${server.url}/d) APPLY TX '$.data.items[*]';`,
    `SELECT * FROM HTTP (GET ${server.url}/xml) APPLY TX '/order/items/*';`,
  ];
  for (const script of none) assert.equal((await load(session, script)).rowCount, 0, script);
  // Pages after the first may leave the path out (the paging ends), and a row's own answer or
  // document may have nothing for it (APPLY TX … ON, joins keep or drop that row as documented).
  const paged = await load(session, `SELECT * FROM HTTP (GET ${server.url}/paged) APPLY TX 'data' WITH PAGING 'page';`);
  assert.deepEqual(plain(paged), [[1], [2]]);
  const joined = await load(
    session,
    `SELECT * FROM HTTP (GET ${server.url}/who) APPLY TX '$';
     APPLY HTTP (GET ${server.url}/crm/{{who}}) APPLY TX 'data' WITH PROCESSING 'left join';`,
  );
  assert.deepEqual(plain(joined), [
    ['a', 'gold'],
    ['b', null],
  ]);
  const carried = await load(session, `SELECT * FROM HTTP (GET ${server.url}/crm/b);\nAPPLY TX 'data' ON 'payload';`);
  assert.equal(carried.rowCount, 1);
});
