import { test } from 'node:test';
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import Table from 'cli-table3';
import Papa from 'papaparse';
import { Dataset } from '../../runtime/dataset/dataset';
import { drawTable, renderHtml, renderText, toCsv, toDataResource, toJsonRows } from '../../runtime/dataset/render';
import { parseTypeName } from '../../runtime/dataset/type-names';
import type { Value } from '../../runtime/dataset/types';

const T = parseTypeName;

function people(rows: number): Dataset {
  const data: Value[][] = [];
  for (let i = 0; i < rows; i++) data.push([i + 1, `person ${i + 1}`, i % 3 === 0 ? null : new Decimal(i).div(4)]);
  return Dataset.fromRows(
    [
      { name: 'id', type: T('int') },
      { name: 'name', type: T('string[50]') },
      { name: 'score', type: T('decimal(6,2)') },
    ],
    data,
  );
}

/** Display width of each line (all characters used here are one column wide). */
const widths = (text: string) => text.split('\n').map((l) => [...l].length);

test('text: names over types in the header, NULL cells, numbers right-aligned, a row count', () => {
  const text = renderText(people(3), { limit: 20 });
  const lines = text.split('\n');
  assert.match(lines[1], /│\s+id │ name\s+│\s+score │/);
  assert.match(lines[2], /│ int │ string\[50\] │ decimal\(6,2\) │/);
  assert.match(text, /│\s+1 │ person 1\s+│\s+NULL │/);
  assert.match(text, /│\s+2 │ person 2\s+│\s+0\.25 │/);
  assert.equal(lines.at(-1), '(3 rows)');
  assert.equal(renderText(people(1), { limit: 20 }).split('\n').at(-1), '(1 row)');
});

test('text: cut at the limit with the total, thousands separated', () => {
  const text = renderText(people(4567), { limit: 20 });
  assert.equal(text.split('\n').at(-1), '(showing 20 of 4,567 rows)');
  assert.equal(text.split('\n').filter((l) => /person/.test(l)).length, 20);
  const big = Dataset.fromRows(
    [{ name: 'n', type: T('int') }],
    Array.from({ length: 1_000_000 }, () => [1]),
  );
  const out = renderText(big, { limit: 2 });
  assert.equal(out.split('\n').at(-1), '(showing 2 of 1,000,000 rows)');
  assert.equal(out.split('\n').filter((l) => /^│\s+1 │$/.test(l)).length, 2);
});

test('text: no ANSI escapes, and control characters never break a row', () => {
  const ds = Dataset.fromRows([{ name: 'doc', type: T('string') }], [['line one\nline two\r\n\tend']]);
  const text = renderText(ds, { limit: 5 });
  assert.ok(!text.includes('\u001b'), 'no escape sequences');
  assert.match(text, /│ line one↵line two↵ end │/);
  assert.equal(text.split('\n').length, 7, 'border, name, type, rule, one row, border, count');
});

test('text: fits the terminal width, cutting long cells with …', () => {
  const long = 'x'.repeat(300);
  const ds = Dataset.fromRows(
    [
      { name: 'id', type: T('int') },
      { name: 'payload', type: T('string') },
      { name: 'other', type: T('string') },
    ],
    [
      [1, long, 'short'],
      [2, 'y'.repeat(90), 'z'.repeat(70)],
    ],
  );
  for (const width of [40, 60, 80, 120]) {
    const text = renderText(ds, { limit: 10, width });
    for (const w of widths(text)) assert.ok(w <= width, `a line of ${w} > ${width}:\n${text}`);
    assert.match(text, /x…/);
    assert.match(text, /│\s+1 │/, 'the narrow id column is never cut');
  }
  const narrow = renderText(Dataset.fromRows([{ name: 'payload', type: T('string') }], [[long]]), {
    limit: 1,
    width: 10,
  });
  for (const w of widths(narrow)) assert.ok(w <= 10, narrow);
  assert.match(narrow, /│ xxxxx… │/);
  const roomy = renderText(people(2), { limit: 10, width: 200 });
  assert.doesNotMatch(roomy, /…/);
});

test('text and html: huge non-ASCII cells are cut before drawing, never inside a surrogate pair', () => {
  const huge = `${'é'.repeat(59)}😀${'ü'.repeat(1_000_000)}`;
  const ds = Dataset.fromRows([{ name: 'doc', type: T('string') }], [[huge]]);
  const text = renderText(ds, { limit: 1, width: 64 });
  for (const w of widths(text)) assert.ok(w <= 64, text);
  assert.doesNotMatch(text, /[\ud800-\udbff](?![\udc00-\udfff])/, 'no lone high surrogate');
  const html = renderHtml(Dataset.fromRows([{ name: 'doc', type: T('string') }], [[`${'a'.repeat(999)}😀tail`]]), {
    limit: 1,
  });
  assert.match(html, /<td>a{999}…<\/td>/);
});

test('text: rows after the first are drawn exactly as cli-table3 draws them (wide, combining and cut cells, both alignments)', () => {
  // A fixed-seed generator: the same 400 tables every run.
  let seed = 0x2545f491;
  const next = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const pieces = ['a', 'Z', '7', ' ', '-', '漢', '字', 'Ａ', '😀', 'e\u0301', '👩‍💻', '↵', 'NULL', '…', 'ß'];
  const cell = () => Array.from({ length: next(14) }, () => pieces[next(pieces.length)]).join('');
  for (let t = 0; t < 400; t++) {
    const columns = 1 + next(4);
    const head = Array.from({ length: columns }, () => `${cell()}\nstring`);
    const body = Array.from({ length: next(12) }, () => Array.from({ length: columns }, cell));
    const aligns = Array.from({ length: columns }, () => (next(2) ? 'right' : 'left'));
    const colWidths = Array.from({ length: columns }, () => 3 + next(16));
    const reference = new Table({ head, colAligns: aligns, colWidths, style: { head: [], border: [], compact: true } });
    reference.push(...body);
    assert.equal(
      drawTable(head, body, aligns, colWidths),
      reference.toString(),
      JSON.stringify({ head, body, aligns, colWidths }),
    );
  }
});

test('text: columns that cannot fit at all are named in a footer', () => {
  const columns = Array.from({ length: 30 }, (_, i) => ({ name: `column_${i}`, type: T('string') }));
  const ds = Dataset.fromRows(columns, [columns.map((_, i) => `value ${i}`)]);
  const text = renderText(ds, { limit: 10, width: 80 });
  for (const w of widths(text)) assert.ok(w <= 80, text);
  const footer = text.split('\n').at(-1) ?? '';
  assert.match(footer, /^\(\d+ more columns not shown: column_\d+, /);
  assert.match(text, /\(1 row\)/);
});

test('text: an empty dataset shows its columns and (0 rows); no columns at all says so', () => {
  const ds = Dataset.fromRows(
    [
      { name: 'id', type: T('long') },
      { name: 'at', type: T('datetime') },
    ],
    [],
  );
  const text = renderText(ds, { limit: 20 });
  assert.match(text, /│\s+id │ at\s+│/);
  assert.match(text, /│ long │ datetime │/);
  assert.equal(text.split('\n').at(-1), '(0 rows)');
  assert.equal(renderText(Dataset.empty(), { limit: 20 }), '(no columns)\n(0 rows)');
});

test('html: escaped names and cells, types in the header, NULL, the row count, cut at the limit', () => {
  const ds = Dataset.fromRows(
    [
      { name: 'a<b>', type: T('string'), description: 'the "a" & b' },
      { name: 'n', type: T('long') },
    ],
    [
      ['x & y <z>', 9007199254740993n],
      [null, 2n],
      ['three', 3n],
    ],
  );
  const html = renderHtml(ds, { limit: 2 });
  assert.match(html, /^<table class="sqlcdc">/);
  assert.match(html, /<th title="the &quot;a&quot; &amp; b">a&lt;b&gt;<br><span[^>]*>string<\/span><\/th>/);
  assert.match(html, /<span[^>]*>long<\/span>/);
  assert.match(html, /<td>x &amp; y &lt;z&gt;<\/td><td style="text-align:right">9007199254740993<\/td>/);
  assert.match(html, /<td><i>NULL<\/i><\/td>/);
  assert.doesNotMatch(html, /three/);
  assert.match(html, /\(showing 2 of 3 rows\)/);
  assert.doesNotMatch(html, /<b>|<z>/);
  assert.match(
    renderHtml(Dataset.fromRows([{ name: 'id', type: T('int') }], []), { limit: 5 }),
    /<th[^>]*>id<br>[\s\S]*\(0 rows\)/,
  );
});

test('json rows keep exact longs and decimals and parse back', () => {
  const ds = Dataset.fromRows(
    [
      { name: 'id', type: T('long') },
      { name: 'price', type: T('decimal') },
      { name: 'when', type: T('datetime') },
      { name: 'ok', type: T('bool') },
      { name: 'blob', type: T('byte[]') },
    ],
    [
      [
        9007199254740993n,
        new Decimal('12345678901234567890.123456789'),
        new Date(Date.UTC(2024, 1, 29, 12)),
        true,
        new Uint8Array([1, 2]),
      ],
      [null, null, null, null, null],
    ],
  );
  const json = toJsonRows(ds);
  assert.equal(
    json,
    '[{"id":9007199254740993,"price":12345678901234567890.123456789,"when":"2024-02-29T12:00:00","ok":true,"blob":"0102"},' +
      '{"id":null,"price":null,"when":null,"ok":null,"blob":null}]',
  );
  assert.equal((JSON.parse(json) as unknown[]).length, 2);
  assert.equal(toJsonRows(Dataset.empty()), '[]');
});

test('csv: RFC 4180 quoting, CRLF, header line, null vs empty string', () => {
  const ds = Dataset.fromRows(
    [
      { name: 'name, full', type: T('string') },
      { name: 'note', type: T('string') },
      { name: 'n', type: T('decimal(5,1)') },
    ],
    [
      ['Smith, "Jo"', 'two\nlines', new Decimal('2')],
      ['', null, null],
    ],
  );
  const csv = toCsv(ds);
  assert.equal(csv, '"name, full",note,n\r\n"Smith, ""Jo""","two\nlines",2.0\r\n"",,\r\n');
  const parsed = Papa.parse<string[]>(csv.trimEnd(), { newline: '\r\n' });
  assert.deepEqual(parsed.data, [
    ['name, full', 'note', 'n'],
    ['Smith, "Jo"', 'two\nlines', '2.0'],
    ['', '', ''],
  ]);
});

test('data resource: Table Schema field types and JSON-safe values', () => {
  const ds = Dataset.fromRows(
    [
      { name: 'id', type: T('long') },
      { name: 'price', type: T('decimal(10,2)') },
      { name: 'ok', type: T('bit') },
      { name: 'at', type: T('DATETIME2') },
      { name: 'g', type: T('guid') },
      { name: 'b', type: T('image') },
      { name: 'x', type: T('REAL') },
    ],
    [
      [
        9007199254740993n,
        new Decimal('1.5'),
        false,
        new Date(Date.UTC(2024, 0, 1)),
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        new Uint8Array([255]),
        Math.fround(0.1),
      ],
      [1n, null, null, null, null, null, null],
    ],
  );
  const resource = toDataResource(ds, 1, ['id']);
  assert.deepEqual(resource.schema, {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'price', type: 'number' },
      { name: 'ok', type: 'boolean' },
      { name: 'at', type: 'datetime' },
      { name: 'g', type: 'string' },
      { name: 'b', type: 'any' },
      { name: 'x', type: 'number' },
    ],
    primaryKey: ['id'],
  });
  assert.deepEqual(resource.data, [
    {
      id: '9007199254740993',
      price: '1.50',
      ok: false,
      at: '2024-01-01T00:00:00',
      g: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      b: 'ff',
      x: 0.1,
    },
  ]);
  assert.doesNotThrow(() => JSON.stringify(resource));
  assert.equal(toDataResource(ds, 10).data.length, 2);
  assert.equal(toDataResource(ds, 10).schema.primaryKey, undefined);
});

test('data resource: a decimal keeps its scale and its digits, as the text of a Table Schema number', () => {
  const ds = Dataset.fromRows(
    [
      { name: 'amount', type: T('decimal(10,2)') },
      { name: 'rate', type: T('decimal(38,20)') },
      { name: 'n', type: T('int') },
    ],
    [
      [new Decimal('230'), new Decimal('0.12345678901234567890'), 230],
      [new Decimal('-0.5'), new Decimal('1'), 0],
    ],
  );
  const resource = toDataResource(ds, 10);
  assert.deepEqual(resource.schema.fields, [
    { name: 'amount', type: 'number' },
    { name: 'rate', type: 'number' },
    { name: 'n', type: 'integer' },
  ]);
  // What a Jupyter client receives is the JSON text of the bundle.
  assert.deepEqual((JSON.parse(JSON.stringify(resource)) as typeof resource).data, [
    { amount: '230.00', rate: '0.12345678901234567890', n: 230 },
    { amount: '-0.50', rate: '1.00000000000000000000', n: 0 },
  ]);
});
