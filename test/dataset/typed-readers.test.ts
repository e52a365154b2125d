import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Dataset } from '../../runtime/dataset/dataset';
import { parseDecimal } from '../../runtime/dataset/decimal-scale';
import { renderHtml, renderText, toDataResource } from '../../runtime/dataset/render';
import { parseTypeName } from '../../runtime/dataset/type-names';
import type { Column, Value } from '../../runtime/dataset/types';
import { DateVector, DecimalVector, DictionaryVector, NumberVector, ValuesVector } from '../../runtime/dataset/vector';
import { tempSession } from '../helpers/session';

/*
 * Readers of typed storage (ORDER BY, the table renderings) must give what they give for the same
 * cells held as plain values, whose reading is the reference.
 */

let seed = 5;
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

const T = parseTypeName;
const columns: Column[] = [
  { name: 'n', type: T('int') },
  { name: 'ts', type: T('datetime') },
  { name: 'amount', type: T('decimal(10, 2)') },
  { name: 'mixed', type: T('decimal') },
  { name: 'city', type: T('string') },
  { name: 'x', type: T('double') },
];

function rows(count: number): Value[][] {
  const out: Value[][] = [];
  for (let i = 0; i < count; i++) {
    const maybe = <V>(v: V): V | null => (random() < 0.08 ? null : v);
    out.push([
      maybe(Math.floor(random() * 20) - 10),
      maybe(new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * 5) * 86_400_000 - 3e11 * Math.floor(random() * 2))),
      maybe(parseDecimal((Math.floor(random() * 2000 - 1000) / 100).toFixed(2))),
      maybe(parseDecimal(pick(['1', '1.0', '1.50', '-2.25', '0.001', '10']))),
      maybe(pick(['Oslo', 'oslo', 'OSLO', 'Paris', 'lima', 'Lima', 'é', 'e', 'Zürich', ''])),
      maybe(pick([0.5, -1, 3.25, 1e10, -0.001])),
    ]);
  }
  return out;
}

function both(count: number): { typed: Dataset; plain: Dataset } {
  const data = rows(count);
  const typed = Dataset.fromRows(columns, data);
  const plain = new Dataset(
    columns,
    columns.map((_, c) => data.map((row) => row[c])),
  );
  return { typed, plain };
}

test('ORDER BY over typed storage orders rows as it orders the same values held as objects', async () => {
  const { typed, plain } = both(3000);
  assert.ok(typed.vector(0) instanceof NumberVector && typed.vector(1) instanceof DateVector);
  assert.ok(typed.vector(2) instanceof DecimalVector && typed.vector(4) instanceof DictionaryVector);
  for (let c = 0; c < columns.length; c++) assert.ok(plain.vector(c) instanceof ValuesVector);
  const { session } = tempSession({}, 'typed-readers');
  const orders = ['n', 'ts DESC, n', 'amount, city DESC', 'city, amount DESC', 'mixed DESC, ts', 'x, city, n DESC'];
  for (const order of orders) {
    const sortedRows = async (ds: Dataset, filter: string) => {
      session.setDataset(ds);
      await session.run(`APPLY FILTER '${filter}' ORDER BY '${order}';`);
      // Cells compared by their text: a Decimal's digits, a Date's instant.
      return session.dataset.rows().map((row) => row.map((v) => (v === null ? null : String(v))));
    };
    for (const filter of ['', 'n > -5']) {
      const expected = await sortedRows(plain, filter);
      assert.equal(expected.length > 1000, true);
      assert.deepEqual(await sortedRows(typed, filter), expected, `${filter} ORDER BY ${order}`);
    }
  }
});

test('text, HTML and data resource renderings read typed storage as they read the values, of a selection too', () => {
  const { typed, plain } = both(300);
  const rowsPicked = Uint32Array.from({ length: 100 }, (_, k) => (k * 37) % 300);
  for (const [a, b] of [
    [typed, plain],
    [typed.pick(rowsPicked), plain.pick(rowsPicked)],
  ]) {
    assert.equal(renderText(a, { limit: 40, width: 200 }), renderText(b, { limit: 40, width: 200 }));
    assert.equal(renderHtml(a, { limit: 40 }), renderHtml(b, { limit: 40 }));
    assert.deepEqual(toDataResource(a, 40), toDataResource(b, 40));
  }
  const text = renderText(typed, { limit: 300, width: 200 });
  assert.match(text, /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/, 'datetimes shown as text');
});

test('Min and Max over typed storage are the values they are over the same cells held as objects', async () => {
  const { typed, plain } = both(2000);
  const { session } = tempSession({}, 'typed-readers');
  const filters = [
    'n = Min(n) OR x = Max(x)',
    'ts = Max(ts)',
    'ts = Min(ts) OR amount = Max(amount)',
    'amount = Min(amount)',
    'mixed = Max(mixed) OR mixed = Min(mixed)',
    'Max(n) - n = 3',
  ];
  for (const filter of filters) {
    const kept = async (ds: Dataset) => {
      session.setDataset(ds);
      await session.run(`APPLY FILTER '${filter}';`);
      return session.dataset.rows().map((row) => row.map((v) => (v === null ? null : String(v))));
    };
    const expected = await kept(plain);
    assert.ok(expected.length > 0, filter);
    assert.deepEqual(await kept(typed), expected, filter);
  }
  // Only nulls: no extreme.
  const nulls = Dataset.fromRows(columns, [columns.map(() => null)]);
  assert.ok(nulls.vector(0) instanceof NumberVector);
  session.setDataset(nulls);
  await session.run("ADD COLUMN 'm=@sql(IsNull(Max(n), -1))';");
  assert.equal(session.dataset.cell(0, columns.length), '-1');
});
