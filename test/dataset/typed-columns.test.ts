import { test } from 'node:test';
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { converterTo } from '../../runtime/dataset/convert';
import { Dataset } from '../../runtime/dataset/dataset';
import { decimalText } from '../../runtime/dataset/decimal-scale';
import { PackedTextVector } from '../../runtime/dataset/text-vector';
import { parseTypeName } from '../../runtime/dataset/type-names';
import type { Value } from '../../runtime/dataset/types';
import {
  BigIntVector,
  BoolVector,
  DateVector,
  DecimalVector,
  DictionaryVector,
  NumberVector,
  ValuesVector,
} from '../../runtime/dataset/vector';
import { ScriptError } from '../../runtime/errors';
import { compileFilter } from '../../runtime/expr';
import { tempSession } from '../helpers/session';

/**
 * Typed column storage (docs/sources.md, "Typed columns"): what a CSV load and APPLY SCHEMA store,
 * that every cell reads back as the value the row-by-row conversion gives, and that APPLY FILTER's
 * column-at-a-time evaluation keeps exactly the rows the row-by-row predicate keeps.
 */

let seed = 11;
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

const CITIES = ['Paris', 'Oslo', 'São Paulo', 'Montréal', 'east', 'Eastern', ''];

/** A CSV of `rows` rows with every kind of column, nulls (empty fields) sprinkled in; the empty city is `""`. */
function csv(rows: number): string {
  const lines = ['id,name,city,amount,price,ts,flag,big,ratio,code'];
  for (let i = 0; i < rows; i++) {
    const blank = (text: string) => (random() < 0.05 ? '' : text);
    const amount = `${random() < 0.5 ? '-' : ''}${Math.floor(random() * 1000)}.${String(Math.floor(random() * 100)).padStart(2, '0')}`;
    const price = pick(['1.5', '1.50', '2', '0.125', '-3.1', '7.000', '1e2']);
    const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
    const ts = `2024-0${1 + Math.floor(random() * 9)}-${day}T${String(Math.floor(random() * 24)).padStart(2, '0')}:15:00.${Math.floor(random() * 1000)}`;
    lines.push(
      [
        blank(String(i - 50)),
        `customer ${i} “quoted” ünïcödé`,
        blank(pick(CITIES) || '""'),
        blank(amount),
        blank(price),
        blank(ts),
        blank(pick(['true', 'false', 'yes', '0'])),
        blank(String(BigInt(i) * 9_000_000_000_000n)),
        blank(String(random() * 100)),
        blank(pick(['1', '2', '3', 'x'])),
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

const SCHEMA = `APPLY SCHEMA (
  int id
  string name
  string city
  decimal(10, 2) amount
  decimal price
  datetime ts
  bool flag
  long big
  double ratio
  string code
);`;

async function loaded(rows: number) {
  const { session } = tempSession({ 'data.csv': csv(rows) }, 'typed');
  await session.run(`SELECT * FROM DRIVE 'data.csv';`);
  const text = session.dataset;
  await session.run(SCHEMA);
  return { session, text, typed: session.dataset };
}

/** A cell compared by what it holds: the text of a decimal (digits and scale), the instant of a date. */
function shown(v: Value): unknown {
  if (Decimal.isDecimal(v)) return `decimal ${decimalText(v)}`;
  if (v instanceof Date) return `date ${v.getTime()}`;
  return v;
}

test('a CSV load stores text packed or as a dictionary and reads every cell back as it was written', async () => {
  const rows = 12_000;
  const { text } = await loaded(rows);
  const names = text.vector(text.indexOf('name'));
  const cities = text.vector(text.indexOf('city'));
  assert.ok(names instanceof PackedTextVector, 'unique text is packed');
  assert.ok(cities instanceof DictionaryVector, 'repeated text is a dictionary');
  assert.equal(text.cell(0, text.indexOf('name')), 'customer 0 “quoted” ünïcödé');
  assert.equal(text.cell(rows - 1, text.indexOf('name')), `customer ${rows - 1} “quoted” ünïcödé`);
  const seen = new Set(text.column(text.indexOf('city')));
  assert.deepEqual(seen, new Set([...CITIES, null]), 'an empty field is null, `""` an empty string');
});

test('APPLY SCHEMA stores each type in its typed storage, and each cell is what the converter gives its text', async () => {
  const { text, typed } = await loaded(3000);
  const storage: Record<string, unknown> = {
    id: NumberVector,
    amount: DecimalVector,
    price: DecimalVector,
    ts: DateVector,
    flag: BoolVector,
    big: BigIntVector,
    ratio: NumberVector,
    code: DictionaryVector,
  };
  for (const [name, kind] of Object.entries(storage)) {
    assert.ok(typed.vector(typed.indexOf(name)) instanceof (kind as new () => unknown), `${name} storage`);
  }
  const amount = typed.vector(typed.indexOf('amount')) as DecimalVector;
  assert.equal(amount.scale, 2, 'decimal(10, 2): one scale for the column');
  assert.ok(
    (typed.vector(typed.indexOf('price')) as DecimalVector).scale instanceof Uint8Array,
    'decimal: a scale a cell',
  );
  let nulls = 0;
  for (const column of typed.columns) {
    const c = typed.indexOf(column.name);
    const convert = converterTo(column.type);
    for (let r = 0; r < typed.rowCount; r++) {
      const source = text.cell(r, text.indexOf(column.name)) as string | null;
      const expected =
        source === null || (source.trim() === '' && column.type.base !== 'string') ? null : convert(source);
      if (expected === null) nulls++;
      assert.deepEqual(shown(typed.cell(r, c)), shown(expected), `${column.name} row ${r}: '${source}'`);
    }
  }
  assert.ok(nulls > 100, 'nulls are stored too');
});

test('decimals that do not fit 15 digits, or a negative zero, keep their Decimal objects and exact digits', async () => {
  const { session } = tempSession({ 'd.csv': 'a,b\n12345678901234567890.5,-0.00\n1.25,1.5\n,2\n' }, 'typed');
  await session.run(`SELECT * FROM DRIVE 'd.csv';`);
  await session.run('APPLY SCHEMA (\n  decimal a\n  decimal(4, 2) b\n);');
  const ds = session.dataset;
  assert.ok(ds.vector(0) instanceof ValuesVector);
  assert.ok(ds.vector(1) instanceof ValuesVector);
  assert.deepEqual(ds.column(0).map(shown), ['decimal 12345678901234567890.5', 'decimal 1.25', null]);
  assert.deepEqual(ds.column(1).map(shown), ['decimal 0.00', 'decimal 1.50', 'decimal 2.00']);
  assert.ok((ds.cell(0, 1) as Decimal).isNeg(), 'the negative zero keeps its sign');
});

test('decimal text is read into its storage exactly as the converter reads it, precision errors included', async () => {
  const texts = ['0', '+0.5', '5.', '.25', '007.10', '-12.3', '999.99', '99999999.99', '123456789012345', '0.001'];
  const { session } = tempSession({ 'd.csv': `v\n${texts.join('\n')}\n` }, 'typed');
  await session.run(`SELECT * FROM DRIVE 'd.csv';`);
  const input = session.dataset;
  for (const type of ['decimal', 'decimal(10, 2)', 'decimal(18, 3)']) {
    session.setDataset(input);
    await session.run(`APPLY SCHEMA (\n  ${type} v\n) CONTINUE_ON_ERROR;`);
    const convert = converterTo(parseTypeName(type));
    const expected = texts.map((t) => {
      try {
        return shown(convert(t));
      } catch {
        return null;
      }
    });
    assert.deepEqual(session.dataset.column(0).map(shown), expected, type);
  }
  session.setDataset(input);
  await assert.rejects(
    session.run('APPLY SCHEMA (\n  decimal(5, 2) v\n);'),
    /row 8: .*more than 5 digits of precision/,
  );
});

/** The rows the filter keeps evaluated row by row on whole rows: the reference for the column path. */
function rowByRow(filter: string, ds: Dataset): number[] {
  const keep = compileFilter(filter).bind(ds.columns, undefined, ds);
  const read = ds.reader();
  const kept: number[] = [];
  for (let r = 0; r < ds.rowCount; r++) if (keep(read(r))) kept.push(r);
  return kept;
}

test('APPLY FILTER over typed columns keeps exactly the rows the row-by-row predicate keeps', async () => {
  const { session, typed } = await loaded(4000);
  const filters = [
    'amount > 500',
    '500 < amount',
    'amount >= 500.005',
    'amount < -0.5 OR amount > 999.5',
    'amount = 12.345',
    'amount <> 12.345',
    'amount = 0.5',
    'price > 1.5',
    'price = 1.5',
    'id >= 10 AND id < 20',
    'id <> 7',
    'id = 7.5',
    'ratio > 50.5 AND ratio <= 70',
    'ts >= #2024-05-01# AND ts < #2024-06-01 12:00#',
    "city = 'EAST' OR city LIKE 'o*'",
    "city LIKE '*o' AND amount > 0",
    'city IS NULL OR flag IS NULL',
    'flag = true AND big > 9000000000000',
    "code <> 'x' AND CONVERT(code, 'System.Int32') >= 2",
    "name LIKE '*1?3 “quoted”*' OR id IN (1, 2, 3)",
    "amount > 500 AND (city = 'Paris' OR ratio < 10) AND id > 100",
    'NOT (amount > 500)',
    'LEN(city) > 4',
    'id = id',
    '1 = 1 AND amount > 999',
    '1 = 0 OR amount > 999',
    // Long OR lists run as one condition.
    Array.from({ length: 12 }, (_, i) => `id = ${i * 7}`).join(' OR '),
    `${['1', '3', 'x', '9', '1', '3', 'x', '9', '2'].map((c) => `code = '${c}'`).join(' OR ')} OR city = 'Oslo'`,
  ];
  let total = 0;
  for (const filter of filters) {
    const expected = rowByRow(filter, typed);
    total += expected.length;
    session.setDataset(typed);
    await session.run(`APPLY FILTER '${filter.replace(/'/g, "''")}';`);
    const got = session.dataset;
    assert.equal(got.rowCount, expected.length, filter);
    const id = got.indexOf('id');
    assert.deepEqual(
      got.column(id),
      expected.map((r) => typed.cell(r, id)),
      filter,
    );
  }
  assert.ok(total > 10_000, 'the filters keep rows');
  // A few by hand, so the reference itself is checked.
  session.setDataset(typed);
  await session.run("APPLY FILTER 'id >= 10 AND id < 13';");
  assert.deepEqual(session.dataset.column(0), [10, 11, 12]);
});

test('a conversion failing in a row a filter keeps is an error naming the expression; in a dropped row it is not', async () => {
  const { session, typed } = await loaded(500);
  session.setDataset(typed);
  await assert.rejects(
    session.run("APPLY FILTER 'id > 0 AND CONVERT(code, ''System.Int32'') > 1';"),
    (e: unknown) => e instanceof ScriptError && /cannot convert 'x' to int/.test(e.message),
  );
  session.setDataset(typed);
  await session.run("APPLY FILTER 'code <> ''x'' AND CONVERT(code, ''System.Int32'') > 1';");
  assert.ok(session.dataset.rowCount > 0);
});

test('the rows of a filtered typed dataset keep their storage and values', async () => {
  const { session, typed } = await loaded(2000);
  session.setDataset(typed);
  await session.run("APPLY FILTER 'amount > 0';");
  const filtered = session.dataset;
  const kept = rowByRow('amount > 0', typed);
  for (const column of typed.columns) {
    const c = typed.indexOf(column.name);
    assert.equal(filtered.vector(c).constructor, typed.vector(c).constructor, `${column.name} storage`);
    assert.deepEqual(
      filtered.column(c).map(shown),
      kept.map((r) => shown(typed.cell(r, c))),
      column.name,
    );
  }
});
