import assert from 'node:assert/strict';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { column, failure, orderColumns, orders, run, sessionWith } from './helpers';

test('a typed constant default fills every row with the converted value', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(s, "ADD COLUMN 'int one=1'");
  assert.deepEqual(dataset.columns.at(-1), { name: 'one', type: { base: 'int' } });
  assert.deepEqual(column(dataset, 'one'), [1, 1, 1, 1]);
});

test('without a type the column is a string', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(s, "ADD COLUMN 'tag=42'");
  assert.deepEqual(dataset.columns.at(-1)?.type, { base: 'string' });
  assert.deepEqual(column(dataset, 'tag'), ['42', '42', '42', '42']);
});

test('every type of spec 2.6', async () => {
  const cases: [string, string, unknown][] = [
    ['bool', 'true', true],
    ['BIT', '0', false],
    ['tinyint', '200', 200],
    ['byte[]', '0a0b', Uint8Array.from([10, 11])],
    ['varbinary(max)', 'ff', Uint8Array.from([255])],
    ['char', 'x', 'x'],
    ['datetime', '2020-01-02T03:04:05', new Date(Date.UTC(2020, 0, 2, 3, 4, 5))],
    ['decimal(10,2)', '1.235', new Decimal('1.24')],
    ['double', '1.5', 1.5],
    ['float', '0.1', Math.fround(0.1)],
    ['guid', '{6F9619FF-8B86-D011-B42D-00C04FC964FF}', '6f9619ff-8b86-d011-b42d-00c04fc964ff'],
    ['int', '-7', -7],
    ['bigint', '9007199254740993', 9007199254740993n],
    ['smallint', '-300', -300],
    ['string[10]', 'short', 'short'],
    ['NVARCHAR(MAX)', 'text', 'text'],
    ['SYSNAME', 'name', 'name'],
  ];
  for (const [type, value, expected] of cases) {
    const s = sessionWith(orderColumns, orders().slice(0, 1));
    const { dataset } = await run(s, `ADD COLUMN '${type} c=${value}'`);
    const cell = column(dataset, 'c')[0];
    if (expected instanceof Decimal) assert.ok(expected.equals(cell as Decimal), `${type}: ${String(cell)}`);
    else assert.deepEqual(cell, expected, type);
  }
});

test('defaults: {{field}}, @f(), #f(), @sql(expr)', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(
    s,
    `ADD COLUMN 'copy={{name}}';
     ADD COLUMN 'up=@toupper({{name}})';
     ADD COLUMN 'int three=#len(''abc'')';
     ADD COLUMN 'double total=@sql(price * qty)';
     ADD COLUMN 'label=@sql(IIF(price > 5, ''dear'', ''cheap''))'`,
  );
  assert.deepEqual(column(dataset, 'copy'), ['Widget', 'Gadget, large', 'Gizmo "pro"', null]);
  assert.deepEqual(column(dataset, 'up'), ['WIDGET', 'GADGET, LARGE', 'GIZMO "PRO"', null]);
  assert.deepEqual(column(dataset, 'three'), [3, 3, 3, 3]);
  assert.deepEqual(column(dataset, 'total'), [10, 10, 14.5, null]);
  assert.deepEqual(column(dataset, 'label'), ['cheap', 'dear', 'dear', 'cheap']);
});

test("the (name='default') shape and the older WITH EXPRESSION spelling", async () => {
  const s = sessionWith(orderColumns, orders().slice(0, 2));
  const { dataset } = await run(
    s,
    "ADD COLUMN (note='hello world'); ADD COLUMN 'twice' WITH EXPRESSION '@sql(qty * 2)'",
  );
  assert.deepEqual(column(dataset, 'note'), ['hello world', 'hello world']);
  assert.deepEqual(column(dataset, 'twice'), ['8', '2']);
});

test("(name='default') holds one column: a second one is refused at its comma, quotes in a default still work", async () => {
  const s = sessionWith(orderColumns, orders().slice(0, 2));
  // § marks the comma the caret must point at.
  const cases = [
    "ADD COLUMN (a='1'§, b='2')",
    "ADD COLUMN (a='1' §,int b='2')",
    'ADD COLUMN (a=1§, b=2)',
    "ADD COLUMN (a='@sql(IIF(qty > 2, 'x', 'y'))'§, [b c]='2')",
    "ADD COLUMN (a='1'§, decimal(10, 2) b='2')",
  ];
  for (const marked of cases) {
    const script = marked.replace('§', '');
    const e = await failure(s, script);
    assert.match(
      e.message,
      /one column per ADD COLUMN; write two statements \(a second column '[^']*b[^']*' starts after this comma\)/,
      script,
    );
    assert.equal(e.position?.column, marked.indexOf('§') + 1, script);
  }
  const { dataset } = await run(
    s,
    `ADD COLUMN (label='@sql(IIF(qty > 2, 'many', 'few'))');
     ADD COLUMN (note='hello, world');
     ADD COLUMN (pair='a=1, b=2');
     ADD COLUMN (list=#isnull(null, y=z));
     ADD COLUMN (quoted='it''s, ok')`,
  );
  assert.deepEqual(column(dataset, 'label'), ['many', 'few']);
  assert.deepEqual(column(dataset, 'note'), ['hello, world', 'hello, world']);
  assert.deepEqual(column(dataset, 'pair'), ['a=1, b=2', 'a=1, b=2']);
  assert.deepEqual(column(dataset, 'list'), ['y=z', 'y=z']);
  assert.deepEqual(column(dataset, 'quoted'), ["it's, ok", "it's, ok"]);
});

test("'name=default' holds one column too: a comma followed by name= is refused, other commas are text", async () => {
  const s = sessionWith(orderColumns, orders().slice(0, 2));
  // § marks the comma the caret must point at; doubled quotes before it must not move the caret.
  const cases = [
    "ADD COLUMN 'a=1§, b=2'",
    "ADD COLUMN 'a=''x''§, int b=''2'''",
    "ADD COLUMN 'a=@sql(IIF(qty > 2, ''x'', ''y''))§, [b c]=2'",
    "ADD COLUMN 'a=x=1§, b=2'",
  ];
  for (const marked of cases) {
    const script = marked.replace('§', '');
    const e = await failure(s, script);
    assert.match(
      e.message,
      /one column per ADD COLUMN; write two statements \(a second column '[^']*b[^']*' starts after this comma\); a default holding ', name=' is written \(a='…'\)/,
      script,
    );
    assert.equal(e.position?.column, marked.indexOf('§') + 1, script);
  }
  const { dataset } = await run(
    s,
    `ADD COLUMN 'note=a, b';
     ADD COLUMN 'where=Main St, Springfield';
     ADD COLUMN 'label=@sql(IIF(qty > 2, ''x, y=1'', ''z''))';
     ADD COLUMN 'list=#isnull(null, y=z)';
     ADD COLUMN (pair='x=1, y=2')`,
  );
  assert.deepEqual(column(dataset, 'note'), ['a, b', 'a, b']);
  assert.deepEqual(column(dataset, 'where'), ['Main St, Springfield', 'Main St, Springfield']);
  assert.deepEqual(column(dataset, 'label'), ['x, y=1', 'z']);
  assert.deepEqual(column(dataset, 'list'), ['y=z', 'y=z']);
  assert.deepEqual(column(dataset, 'pair'), ['x=1, y=2', 'x=1, y=2']);
  assert.equal(dataset.columns.length, orderColumns.length + 5);
});

test('an existing column is an error (spec 7) unless IGNORE_IF_EXISTS or OR ALTER', async () => {
  const s = sessionWith(orderColumns, orders());
  const e = await failure(s, "ADD COLUMN 'QTY=1'");
  assert.match(e.message, /column 'qty' already exists: use ADD OR ALTER COLUMN/);
  assert.equal(e.statement, 'ADD COLUMN');
  assert.equal(e.position?.line, 1);

  const before = s.dataset;
  await run(s, "ADD COLUMN 'qty=1' WITH IGNORE_IF_EXISTS");
  assert.equal(s.dataset, before, 'IGNORE_IF_EXISTS leaves the pipeline untouched');
});

test('OR ALTER converts the values to a new type, or replaces them with a default', async () => {
  const s = sessionWith(orderColumns, orders());
  let { dataset } = await run(s, "ADD OR ALTER COLUMN 'string qty'");
  assert.deepEqual(dataset.columns[3], { name: 'qty', type: { base: 'string' } });
  assert.deepEqual(column(dataset, 'qty'), ['4', '1', '2', null]);
  ({ dataset } = await run(s, "ADD OR ALTER COLUMN 'long qty'"));
  assert.deepEqual(column(dataset, 'qty'), [4n, 1n, 2n, null]);
  ({ dataset } = await run(s, "ADD OR ALTER COLUMN 'qty=@sql(qty * 10)' WITH IGNORE_IF_EXISTS"));
  assert.deepEqual(dataset.columns[3].type, { base: 'long' }, 'no type: the column keeps its type');
  assert.deepEqual(column(dataset, 'qty'), [40n, 10n, 20n, null]);
  assert.equal(dataset.columns.length, orderColumns.length, 'altered in place, not appended');
  ({ dataset } = await run(s, "ADD OR ALTER COLUMN 'brand_new=x'"));
  assert.deepEqual(column(dataset, 'brand_new'), ['x', 'x', 'x', 'x'], 'OR ALTER also adds a missing column');
});

test('CONTINUE_ON_ERROR leaves failing cells null and warns with the count of failed rows', async () => {
  const s = sessionWith(orderColumns, orders());
  const e = await failure(s, "ADD COLUMN 'int n=@sql(name)'");
  assert.match(e.message, /column 'n', row 1: .*cannot convert 'Widget' to int/);

  const { dataset, warnings } = await run(
    s,
    "ADD COLUMN 'int n=@sql(IIF(id = 2, ''12'', name))' WITH CONTINUE_ON_ERROR",
  );
  assert.deepEqual(column(dataset, 'n'), [null, 12, null, null]);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /ADD COLUMN 'n': 2 rows failed and were left null \(CONTINUE_ON_ERROR\); first error: column 'n', row 1/,
  );
});

test('a constant default that does not convert fails the statement even with CONTINUE_ON_ERROR', async () => {
  const s = sessionWith(orderColumns, orders());
  const e = await failure(s, "ADD COLUMN 'int n=abc' WITH CONTINUE_ON_ERROR");
  assert.match(e.message, /default of column 'n': cannot convert 'abc' to int/);
});

test('bad types and bad @sql expressions are clear errors', async () => {
  const s = sessionWith(orderColumns, orders());
  assert.match((await failure(s, "ADD COLUMN 'number n=1'")).message, /unknown type 'number'/);
  const e = await failure(s, "ADD COLUMN 'n=@sql(price * nosuch)'");
  assert.match(e.message, /unknown column 'nosuch'/);
  assert.ok(e.position && e.position.column > 20, 'the caret points into the expression');
});

test('the input dataset is not modified', async () => {
  const s = sessionWith(orderColumns, orders());
  const before = s.dataset;
  const snapshot = before.rows().map((r) => r.slice());
  await run(s, "ADD COLUMN 'x=1'; ADD OR ALTER COLUMN 'string price'");
  assert.deepEqual(before.rows(), snapshot);
  assert.equal(before.columns.length, orderColumns.length);
  assert.deepEqual(before.columns[2].type, { base: 'double' });
});

test('empty datasets, unicode and very long values', async () => {
  const empty = sessionWith(orderColumns, []);
  const { dataset } = await run(empty, "ADD COLUMN 'int one=1'");
  assert.equal(dataset.rowCount, 0);
  assert.equal(dataset.columns.at(-1)?.name, 'one');

  const long = 'ü'.repeat(200_000);
  const s = sessionWith([{ name: 'text', type: { base: 'string' } }], [[long], ['日本']]);
  const out = await run(s, "ADD COLUMN 'int n=@sql(LEN(text))'; ADD COLUMN 'é=@sql(text + ''✓'')'");
  assert.deepEqual(column(out.dataset, 'n'), [200_000, 2]);
  assert.deepEqual(column(out.dataset, 'é'), [`${long}✓`, '日本✓']);
});

test('a new column reads the cells its default, @sql(), FORMAT fields, WHEN and OR ALTER name, whatever their place', async () => {
  // Only the columns a statement names are read per row: each form below takes its values from
  // columns other than the first, so a column it failed to read would show as null.
  const s = sessionWith(orderColumns, orders());
  const { dataset } = await run(
    s,
    `ADD COLUMN 'label={{region}}-{{name}}';
     ADD COLUMN 'double total=@sql(price * qty)';
     ADD COLUMN 'doc=none' FORMAT JSON INCLUDE 'qty' WHEN 'region = ''west''';
     ADD OR ALTER COLUMN 'label' FORMAT CSV INCLUDE 'id' WHEN 'price > 5';
     ADD OR ALTER COLUMN 'string qty'`,
  );
  // The last row is all nulls: checked on its own below.
  const rows = orders().slice(0, -1);
  const head = (name: string) => column(dataset, name).slice(0, rows.length);
  const ordinal = (name: string) => orderColumns.findIndex((c) => c.name === name);
  const [id, name, price, qty, region] = ['id', 'name', 'price', 'qty', 'region'].map(ordinal);
  assert.deepEqual(
    head('total'),
    rows.map((r) => (r[price] as number) * (r[qty] as number)),
  );
  assert.deepEqual(
    head('doc'),
    rows.map((r) => (r[region] === 'west' ? `{"qty":${String(r[qty])}}` : 'none')),
  );
  assert.deepEqual(
    head('label'),
    rows.map((r) => ((r[price] as number) > 5 ? String(r[id]) : `${String(r[region])}-${String(r[name])}`)),
    'OR ALTER FORMAT keeps the existing value in rows WHEN does not select',
  );
  assert.deepEqual(
    head('qty'),
    rows.map((r) => String(r[qty])),
  );
  const last = dataset.row(rows.length).map((v, c) => [dataset.columns[c].name, v]);
  assert.deepEqual(Object.fromEntries(last.slice(-3)), { label: '-', total: null, doc: 'none' });
  assert.ok(
    rows.some((r) => r[region] === 'west') && rows.some((r) => r[region] !== 'west'),
    'the data has rows on both sides of WHEN',
  );
});
