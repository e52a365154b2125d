import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Column, Value } from '../../runtime/dataset/types';
import { column, failure, orderColumns, orders, run, sessionWith } from './helpers';

const ids = async (script: string, columns: Column[] = orderColumns, rows: Value[][] = orders()) =>
  column((await run(sessionWith(columns, rows), script)).dataset, 'id');

test('SQL filter: default mode, explicit SQL, and the parenthesised form', async () => {
  assert.deepEqual(await ids("APPLY FILTER 'price > 5'"), [2, 3]);
  assert.deepEqual(await ids("APPLY FILTER SQL 'price > 5 AND name LIKE ''g*'''"), [2, 3]);
  assert.deepEqual(await ids("APPLY FILTER (region LIKE '*st' OR qty IS NULL)"), [1, 2, 4]);
  assert.deepEqual(await ids("APPLY FILTER SQL (CONVERT(price, 'System.Int32') = 7)"), [3]);
});

test('reference examples in a filter: Convert, IIF, LIKE, and the illegal te*xt', async () => {
  const items: Column[] = [
    { name: 'id', type: { base: 'int' } },
    { name: 'ItemName', type: { base: 'string' } },
    { name: 'total', type: { base: 'string' } },
  ];
  const rows: Value[][] = [
    [1, 'Big Product', '1500'],
    [2, 'thing', '20'],
    [3, 'PRODUCT x', '999'],
  ];
  assert.deepEqual(await ids("APPLY FILTER 'Convert(total, ''System.Int32'') > 500'", items, rows), [1, 3]);
  assert.deepEqual(
    await ids(
      "APPLY FILTER 'IIF(Convert(total, ''System.Int32'')>1000, ''expensive'', ''dear'') = ''dear'''",
      items,
      rows,
    ),
    [2, 3],
  );
  assert.deepEqual(await ids("APPLY FILTER 'ItemName LIKE ''*product*'''", items, rows), [1, 3]);
  const e = await failure(sessionWith(items, rows), "APPLY FILTER 'ItemName LIKE ''te*xt'''");
  assert.match(e.message, /LIKE pattern 'te\*xt' is invalid/);
  assert.equal(e.statement, 'APPLY FILTER');
});

test('ORDER BY several columns, typed and stable, before LIMIT; nulls first ascending', async () => {
  const cols: Column[] = [
    { name: 'id', type: { base: 'int' } },
    { name: 'grp', type: { base: 'string' } },
    { name: 'n', type: { base: 'int' } },
  ];
  const rows: Value[][] = [
    [1, 'b', 10],
    [2, 'A', 9],
    [3, 'b', 9],
    [4, null, 1],
    [5, 'a', 10],
    [6, 'B', 10],
  ];
  assert.deepEqual(await ids("APPLY FILTER '' ORDER BY 'n'", cols, rows), [4, 2, 3, 1, 5, 6]);
  assert.deepEqual(await ids("APPLY FILTER '' ORDER BY 'grp ASC, n DESC'", cols, rows), [4, 5, 2, 1, 6, 3]);
  assert.deepEqual(await ids("APPLY FILTER '' ORDER BY 'grp desc'", cols, rows), [1, 3, 6, 2, 5, 4]);
  assert.deepEqual(await ids("APPLY FILTER 'n >= 9' ORDER BY '[n] DESC, id DESC' LIMIT 2", cols, rows), [6, 5]);
  assert.deepEqual(await ids("APPLY FILTER 'n > 0' LIMIT 0", cols, rows), []);
  assert.deepEqual(await ids("APPLY FILTER 'n > 0' LIMIT 100", cols, rows), [1, 2, 3, 4, 5, 6]);
});

test('ORDER BY names a column holding a comma in brackets', async () => {
  const cols: Column[] = [
    { name: 'id', type: { base: 'int' } },
    { name: 'unit, price', type: { base: 'int' } },
  ];
  const rows: Value[][] = [
    [1, 5],
    [2, 7],
    [3, 6],
  ];
  assert.deepEqual(await ids("APPLY FILTER '' ORDER BY '[unit, price] DESC, id'", cols, rows), [2, 3, 1]);
});

test('SQL filter errors name the place and leave the pipeline unchanged', async () => {
  const s = sessionWith(orderColumns, orders());
  const unknown = await failure(s, "APPLY FILTER 'price > 5 AND regoin = 1'");
  assert.match(unknown.message, /unknown column 'regoin' \(columns: id, name, price, qty, region\)/);
  assert.deepEqual(unknown.position, { line: 1, column: 29, offset: 28 });
  assert.match((await failure(s, "APPLY FILTER 'price >'")).message, /expected a value/);
  assert.match((await failure(s, "APPLY FILTER 'name > 5'")).message, /cannot convert 'Widget' to int/);
  assert.match((await failure(s, "APPLY FILTER 'price' ")).message, /must be a condition/);
  assert.match((await failure(s, "APPLY FILTER 'price > 1' ON 'name'")).message, /ON applies to REGEX, XPATH and TX/);
  assert.match(
    (await failure(s, "APPLY FILTER 'price > 1' KEEP_EMPTY")).message,
    /KEEP_EMPTY and KEEP_INVALID apply to/,
  );
  assert.match((await failure(s, "APPLY FILTER 'price > 1' CASE_INSENSITIVE")).message, /apply to REGEX filters/);
  assert.match((await failure(s, "APPLY FILTER '' ORDER BY 'nope'")).message, /ORDER BY: unknown column 'nope'/);
});

test('an empty dataset filters to an empty dataset', async () => {
  const { dataset } = await run(sessionWith(orderColumns, []), "APPLY FILTER 'price > 5' ORDER BY 'id' LIMIT 3");
  assert.equal(dataset.rowCount, 0);
  assert.equal(dataset.columns.length, orderColumns.length);
});

const texts: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'body', type: { base: 'string' } },
];

test('REGEX that backtracks exponentially ends, with the same matches (V8 goes on in its linear engine)', async () => {
  // 2^40 ways to split forty a's: days of backtracking inside one call, the event loop held meanwhile.
  const rows: Value[][] = [
    [1, `${'a'.repeat(40)}b`],
    [2, 'a'.repeat(40)],
  ];
  assert.deepEqual(await ids("APPLY FILTER REGEX '^(a|a)+$' ON 'body'", texts, rows), [2]);
  assert.deepEqual(await ids("APPLY FILTER REGEX '^(a|a)+$' ON 'body' SINGLE_LINE", texts, rows), [2]);
});

test('REGEX on the ON column: anywhere in the text, CASE_INSENSITIVE, SINGLE_LINE, inline (?i)', async () => {
  const rows: Value[][] = [
    [1, 'Order 42 shipped'],
    [2, 'order pending'],
    [3, 'line one\nline two'],
    [4, null],
    [5, '   '],
  ];
  assert.deepEqual(await ids("APPLY FILTER REGEX '^Order \\d+' ON 'body'", texts, rows), [1]);
  assert.deepEqual(await ids("APPLY FILTER REGEX '^order' ON 'body' CASE_INSENSITIVE", texts, rows), [1, 2]);
  assert.deepEqual(await ids("APPLY FILTER REGEX '(?i)^ORDER' ON 'body'", texts, rows), [1, 2]);
  assert.deepEqual(await ids("APPLY FILTER REGEX 'one.line' ON 'body'", texts, rows), []);
  assert.deepEqual(await ids("APPLY FILTER REGEX 'one.line' ON 'body' SINGLE_LINE", texts, rows), [3]);
  assert.deepEqual(await ids("APPLY FILTER REGEX 'zzz' ON 'body' KEEP_EMPTY", texts, rows), [4, 5]);
  assert.deepEqual(
    await ids("APPLY FILTER REGEX '^[24]$' ON 'id'", texts, rows),
    [2, 4],
    'non-text columns are matched on their text',
  );
  assert.deepEqual(
    await ids("APPLY FILTER REGEX 'é+✓' ON 'body' LIMIT 1", texts, [
      [1, 'x'],
      [2, 'ééé✓'],
      [3, 'é✓'],
    ]),
    [2],
  );
});

test('REGEX errors: ON missing, unknown ON column, bad regex', async () => {
  const s = sessionWith(texts, [[1, 'a']]);
  assert.match((await failure(s, "APPLY FILTER REGEX 'a'")).message, /APPLY FILTER REGEX needs ON '<column>'/);
  assert.match(
    (await failure(s, "APPLY FILTER REGEX 'a' ON 'nope'")).message,
    /ON: unknown column 'nope' \(columns: id, body\)/,
  );
  assert.match((await failure(s, "APPLY FILTER REGEX 'a(' ON 'body'")).message, /invalid regular expression/);
  assert.match((await failure(s, "APPLY FILTER XPATH '//a' ")).message, /APPLY FILTER XPATH needs ON/);
  assert.match((await failure(s, "APPLY FILTER TX 'a = 1'")).message, /APPLY FILTER TX needs ON/);
});

const documents: Value[][] = [
  [1, '<order status="open"><item qty="3">pen</item></order>'],
  [2, '<order status="closed"><item qty="1">ink</item></order>'],
  [3, '{"status":"open","items":[{"qty":5,"name":"pad"}]}'],
  [4, '{"status":"closed","items":[]}'],
  [5, '<order><unclosed></order>'],
  [6, 'plain text'],
  [7, null],
];

test('XPATH: XPath on XML records, JSON path on JSON records; KEEP_INVALID and KEEP_EMPTY', async () => {
  assert.deepEqual(await ids("APPLY FILTER XPATH '/order[@status=''open'']' ON 'body'", texts, documents), [1]);
  assert.deepEqual(await ids("APPLY FILTER XPATH '//item[@qty > 2]' ON 'body'", texts, documents), [1]);
  assert.deepEqual(await ids("APPLY FILTER XPATH 'count(//item) = 1' ON 'body'", texts, documents), [1, 2]);
  assert.deepEqual(await ids("APPLY FILTER XPATH '$.items[?(@.qty > 2)]' ON 'body'", texts, documents), [3]);
  assert.deepEqual(await ids("APPLY FILTER XPATH '$.status' ON 'body'", texts, documents), [3, 4]);
  assert.deepEqual(
    await ids("APPLY FILTER XPATH '$.items[?(@.qty > 2)]' ON 'body' KEEP_INVALID", texts, documents),
    [1, 2, 3, 5, 6],
  );
  assert.deepEqual(
    await ids("APPLY FILTER XPATH '//item' ON 'body' KEEP_INVALID KEEP_EMPTY", texts, documents),
    [1, 2, 3, 4, 5, 6, 7],
  );
  assert.deepEqual(await ids("APPLY FILTER XPATH '//item' ON 'body' KEEP_EMPTY", texts, documents), [1, 2, 7]);
  const e = await failure(sessionWith(texts, documents), "APPLY FILTER XPATH '//item[' ON 'body'");
  assert.match(e.message, /invalid XPath '\/\/item\['/);
});

test('TX: each document becomes a dataset and the row stays when a record matches the SQL filter', async () => {
  const docs: Value[][] = [
    [1, '[{"status":"open","amount":5},{"status":"closed","amount":50}]'],
    [2, '{"status":"OPEN","amount":7}'],
    [
      3,
      '<orders><order><status>open</status><amount>70</amount></order><order><status>x</status><amount>1</amount></order></orders>',
    ],
    [4, '{"other":1}'],
    [5, 'not a document'],
    [6, '[]'],
    [7, ''],
  ];
  assert.deepEqual(await ids("APPLY FILTER TX 'status = ''open''' ON 'body'", texts, docs), [1, 2, 3]);
  assert.deepEqual(await ids("APPLY FILTER TX 'status = ''open'' AND amount > 6' ON 'body'", texts, docs), [2, 3]);
  assert.deepEqual(await ids("APPLY FILTER TX 'amount > 40' ON 'body' KEEP_INVALID", texts, docs), [1, 3, 5]);
  assert.deepEqual(await ids("APPLY FILTER TX 'amount > 40' ON 'body' KEEP_EMPTY", texts, docs), [1, 3, 6, 7]);
  const e = await failure(sessionWith(texts, docs), "APPLY FILTER TX 'colour = 1' ON 'body'");
  assert.match(e.message, /no document in ON 'body' has a field 'colour'/);
});

test('BREAK_ON_EMPTY stops an APPLY PIPELINE when a filter empties the dataset', async () => {
  const s = sessionWith(orderColumns, orders());
  const { dataset, messages } = await run(
    s,
    "APPLY PIPELINE (APPLY FILTER 'id > 100'; PRINT 'after the filter') BREAK_ON_EMPTY",
  );
  assert.equal(dataset.rowCount, 0);
  assert.deepEqual(messages, []);
  const again = await run(
    sessionWith(orderColumns, orders()),
    "APPLY PIPELINE (APPLY FILTER 'id > 100'; PRINT 'after the filter')",
  );
  assert.deepEqual(again.messages, ['after the filter']);
});

test('filtering shares rows with, but never modifies, the input', async () => {
  const s = sessionWith(orderColumns, orders());
  const before = s.dataset;
  await run(s, "APPLY FILTER 'id < 3' ORDER BY 'id DESC'");
  assert.deepEqual(
    before.rows().map((r) => r[0]),
    [1, 2, 3, 4],
  );
  assert.deepEqual(column(s.dataset, 'id'), [2, 1]);
});
