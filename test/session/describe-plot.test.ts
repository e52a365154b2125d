import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Result } from '../../runtime/results';
import type { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';

const ORDERS_CSV = [
  'id,region,amount,status,ordered,paid,payload,order date',
  '1,north,10.50,shipped,2024-01-03,true,0a,2024-01-03',
  '2,south,20,pending,2024-01-01,false,0b,2024-01-01',
  '3,north,,shipped,2024-01-02,true,0a,2024-01-02',
  '4,East,7.25,Shipped,,,,',
  '5,north,10.5,cancelled,2024-01-05,true,ff,2024-01-05',
].join('\n');

const SCHEMA = `APPLY SCHEMA (
  int id
  string region
  decimal amount
  string status
  datetime ordered
  bool paid
  byte[] payload
  datetime [order date]
);`;

async function orders(): Promise<Session> {
  const { session } = tempSession({ 'orders.csv': ORDERS_CSV }, 'look');
  await session.run(`SELECT * FROM DRIVE 'orders.csv';\n${SCHEMA}`);
  return session;
}

async function only(session: Session, cell: string): Promise<Result> {
  const results = await session.run(cell);
  assert.equal(results.length, 1, JSON.stringify(results));
  return results[0];
}

/** The profile as { column → { header → cell } }, cells as the table shows them (null stays null). */
async function profile(session: Session, cell = '%describe'): Promise<Record<string, Record<string, unknown>>> {
  const r = await only(session, cell);
  assert.equal(r.kind, 'table');
  if (r.kind !== 'table') return {};
  assert.ok(r.limit >= r.dataset.rowCount, 'the profile shows every column whatever %limit says');
  const headers = r.dataset.columns.map((c) => c.name);
  assert.deepEqual(headers, ['column', 'type', 'nulls', 'distinct', 'min', 'max', 'top']);
  return Object.fromEntries(
    r.dataset.rows().map((row) => [row[0] as string, Object.fromEntries(headers.map((h, i) => [h, row[i]]))] as const),
  );
}

type Display = Extract<Result, { kind: 'display' }>;

/** The parts of a Vega-Lite spec the tests look at; the assertions check their values. */
interface Spec {
  $schema: string;
  mark: unknown;
  title: unknown;
  encoding: Record<string, unknown>;
  data: { values: Record<string, unknown>[] };
}

async function plot(session: Session, cell: string): Promise<{ result: Display; spec: Spec }> {
  const r = await only(session, cell);
  assert.equal(r.kind, 'display');
  const result = r;
  assert.deepEqual(Object.keys(result.data), ['application/vnd.vegalite.v5+json']);
  return { result, spec: result.data['application/vnd.vegalite.v5+json'] as Spec };
}

test('%describe profiles every column: type, nulls, distinct values, min, max and the top values', async () => {
  const p = await profile(await orders());
  assert.deepEqual(p.id, { column: 'id', type: 'int', nulls: 0, distinct: 5, min: '1', max: '5', top: null });
  // Distinct values are exact (East ≠ east would count twice), the order is the language's
  // (case-insensitive: East sorts before north); ties keep the order the values first appear in.
  assert.deepEqual(p.region, {
    column: 'region',
    type: 'string',
    nulls: 0,
    distinct: 3,
    min: 'East',
    max: 'south',
    top: 'north (3), south (1), East (1)',
  });
  // 10.50 and 10.5 are one value; the first one seen is shown, with its scale.
  assert.deepEqual(p.amount, {
    column: 'amount',
    type: 'decimal',
    nulls: 1,
    distinct: 3,
    min: '7.25',
    max: '20',
    top: '10.50 (2), 20 (1), 7.25 (1)',
  });
  assert.deepEqual(p.status, {
    column: 'status',
    type: 'string',
    nulls: 0,
    distinct: 4,
    min: 'cancelled',
    max: 'shipped',
    top: 'shipped (2), pending (1), Shipped (1)',
  });
  assert.deepEqual(p.ordered, {
    column: 'ordered',
    type: 'datetime',
    nulls: 1,
    distinct: 4,
    min: '2024-01-01T00:00:00',
    max: '2024-01-05T00:00:00',
    top: null,
  });
  assert.deepEqual(p.paid, {
    column: 'paid',
    type: 'bool',
    nulls: 1,
    distinct: 2,
    min: 'false',
    max: 'true',
    top: 'true (3), false (1)',
  });
  // Bytes have no order; equal byte arrays are still one value.
  assert.deepEqual(p.payload, {
    column: 'payload',
    type: 'byte[]',
    nulls: 1,
    distinct: 3,
    min: null,
    max: null,
    top: '0a (2), 0b (1), ff (1)',
  });
});

test('%describe names the dataset size in its title, profiles the columns asked for, and ignores %limit', async () => {
  const s = await orders();
  await s.run('%limit 2');
  const r = await only(s, '%describe');
  assert.ok(r.kind === 'table');
  assert.equal(r.title, 'Profile of the pipeline dataset (5 rows, 8 columns)');
  assert.equal(r.dataset.rowCount, 8);
  const p = await profile(s, '%describe STATUS "order date"');
  assert.deepEqual(Object.keys(p), ['status', 'order date']);
  await assert.rejects(s.run('%describe nosuch'), /unknown column 'nosuch' \(columns: id, region/);
});

test('%describe of a filtered dataset profiles the rows the filter kept', async () => {
  const s = await orders();
  await s.run("APPLY FILTER 'region = ''north''';");
  const p = await profile(s, '%describe region amount');
  assert.deepEqual(p.region, {
    column: 'region',
    type: 'string',
    nulls: 0,
    distinct: 1,
    min: 'north',
    max: 'north',
    top: 'north (3)',
  });
  assert.equal(p.amount.nulls, 1);
});

test('%describe of the empty pipeline says there is nothing to profile', async () => {
  const { session } = tempSession({}, 'look');
  assert.deepEqual(await session.run('%describe'), [
    { kind: 'message', text: 'the pipeline dataset has no columns yet: load data first' },
  ]);
});

test('%plot bar: a Vega-Lite spec of the plotted columns, and a sentence saying what it shows', async () => {
  const { result, spec } = await plot(await orders(), '%plot bar x=region y=amount color=status');
  assert.equal(result.text, 'bar chart of amount by region, coloured by status, 5 rows');
  assert.equal(spec.$schema, 'https://vega.github.io/schema/vega-lite/v5.json');
  assert.deepEqual(spec.mark, { type: 'bar', tooltip: true });
  assert.equal(spec.title, 'amount by region');
  assert.deepEqual(spec.encoding, {
    x: { field: 'x', type: 'nominal', title: 'region' },
    y: { field: 'y', type: 'quantitative', title: 'amount' },
    color: { field: 'color', type: 'nominal', title: 'status' },
  });
  assert.deepEqual(spec.data.values, [
    { x: 'north', y: 10.5, color: 'shipped' },
    { x: 'south', y: 20, color: 'pending' },
    { x: 'north', y: null, color: 'shipped' },
    { x: 'East', y: 7.25, color: 'Shipped' },
    { x: 'north', y: 10.5, color: 'cancelled' },
  ]);
});

test('%plot line over dates, counts without y, histograms, and quoted column names', async () => {
  const s = await orders();
  const line = await plot(s, '%plot LINE x="order date" y=id');
  assert.equal(line.result.text, 'line chart of id by order date, 5 rows');
  assert.deepEqual(line.spec.encoding.x, { field: 'x', type: 'temporal', title: 'order date' });
  assert.deepEqual(line.spec.data.values[0], { x: '2024-01-03T00:00:00', y: 1 });

  const counts = await plot(s, '%plot bar x=id');
  assert.equal(counts.result.text, 'bar chart of row count by id, 5 rows');
  // Numbers on a bar chart's x are categories, one bar each.
  assert.deepEqual(counts.spec.encoding, {
    x: { field: 'x', type: 'ordinal', title: 'id' },
    y: { aggregate: 'count', type: 'quantitative', title: 'rows' },
  });

  const histogram = await plot(s, '%plot histogram x=[amount]');
  assert.equal(histogram.result.text, 'histogram of amount, 5 rows');
  assert.deepEqual(histogram.spec.mark, { type: 'bar', tooltip: true });
  assert.deepEqual(histogram.spec.encoding, {
    x: { field: 'x', type: 'quantitative', bin: { maxbins: 30 }, title: 'amount' },
    y: { aggregate: 'count', type: 'quantitative', title: 'rows' },
  });
  assert.deepEqual(histogram.spec.data.values, [{ x: 10.5 }, { x: 20 }, { x: null }, { x: 7.25 }, { x: 10.5 }]);

  const point = await plot(s, "%plot point x=paid y=amount color='order date'");
  assert.deepEqual(point.spec.data.values[1], { x: false, y: 20, color: '2024-01-01T00:00:00' });
});

test('%plot rejects unknown kinds, columns and arguments with the usage', async () => {
  const s = await orders();
  const cases: [string, RegExp][] = [
    ['%plot', /which chart\? usage: %plot <kind> x=<column>/],
    ['%plot pie x=region', /unknown chart kind 'pie' \(kinds: bar, line, point, area, histogram\)/],
    ['%plot bar y=amount', /a chart needs x=<column>/],
    ['%plot bar x=nosuch', /x=nosuch: unknown column 'nosuch' \(columns: id, region, amount/],
    ['%plot bar x=region y=nosuch', /y=nosuch: unknown column 'nosuch'/],
    ['%plot bar x=region size=amount', /'size=amount' is not one of x=, y=, color=/],
    ['%plot bar region', /'region' is not one of x=, y=, color=/],
    ['%plot bar x=region x=id', /x= is given twice/],
    ['%plot bar x=', /x= needs a column name/],
    ['%plot histogram x=amount y=id', /a histogram takes x only/],
    [
      '%plot histogram x=region',
      /a histogram needs a numeric x; 'region' is string \(count its values with %plot bar x=region\)/,
    ],
    ['%plot point x=payload y=id', /x=payload: a byte\[\] column cannot be plotted/],
  ];
  for (const [cell, message] of cases) await assert.rejects(s.run(cell), message, cell);
  const { session } = tempSession({}, 'look');
  await assert.rejects(session.run('%plot bar x=a'), /no columns yet: load data before %plot/);
});

test('%plot embeds at most 5,000 rows: an evenly spaced sample from the first row, and says so', async () => {
  const n = 12_000;
  const csv = ['n,half', ...Array.from({ length: n }, (_, i) => `${i},${i % 2}`)].join('\n');
  const { session } = tempSession({ 'big.csv': csv }, 'look');
  await session.run("SELECT * FROM DRIVE 'big.csv';\nAPPLY SCHEMA (\n  int n\n  int half\n);");
  const { result, spec } = await plot(session, '%plot point x=n y=half');
  assert.equal(result.text, 'point chart of half by n, 5,000 of 12,000 rows (an evenly spaced sample)');
  assert.deepEqual(spec.title, { text: 'half by n', subtitle: '5,000 of 12,000 rows (an evenly spaced sample)' });
  const xs = (spec.data.values as { x: number }[]).map((v) => v.x);
  assert.equal(xs.length, 5000);
  assert.deepEqual(xs.slice(0, 6), [0, 2, 4, 7, 9, 12]);
  assert.equal(xs.at(-1), 11997);
  assert.ok(
    xs.every((x, i) => i === 0 || x > xs[i - 1]),
    'rows stay in their order',
  );

  await session.run("APPLY FILTER 'n < 5000';");
  const all = await plot(session, '%plot point x=n y=half');
  assert.equal(all.result.text, 'point chart of half by n, 5,000 rows');
  assert.equal(all.spec.title, 'half by n');
});

test('an unknown or unplottable column of %plot and %describe is placed at its argument, as docs/session.md says', async () => {
  const s = await orders();
  for (const [cell, word] of [
    ['%plot bar x=nosuch', 'nosuch'],
    ['%plot bar x=region y=nosuch', 'nosuch'],
    ["%plot bar x=region color='no such'", 'no such'],
    ['%plot point x=payload y=id', 'payload'],
    ['%describe id nosuch', 'nosuch'],
  ]) {
    await assert.rejects(s.run(cell), (e: { position?: { line: number; column: number } }) => {
      assert.deepEqual(e.position && [e.position.line, e.position.column], [1, cell.indexOf(word) + 1], cell);
      return true;
    });
  }
});
