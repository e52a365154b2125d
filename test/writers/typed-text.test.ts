import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { Dataset } from '../../runtime/dataset/dataset';
import { parseDecimal } from '../../runtime/dataset/decimal-scale';
import { formatValue } from '../../runtime/dataset/format-value';
import { parseTypeName } from '../../runtime/dataset/type-names';
import type { Column, Value } from '../../runtime/dataset/types';
import { BigIntVector, DateVector, DecimalVector, ValuesVector } from '../../runtime/dataset/vector';
import type { DocFormat } from '../../runtime/script/ast';
import { datasetText, documentChunks, documentWriter, writerOptions, type WriterOptions } from '../../runtime/writers';
import { tempSession } from '../helpers/session';

/**
 * The writers read typed datetimes and decimals as text straight from their storage (vector.ts
 * `textView`): the documents must be byte for byte those written from the same cells held as plain
 * Date and Decimal values.
 */

let seed = 7;
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}

const T = parseTypeName;
const columns: Column[] = [
  { name: 'id', type: T('int') },
  { name: 'ts', type: T('datetime') },
  { name: 'amount', type: T('decimal(12, 2)') },
  { name: 'price', type: T('decimal') },
  { name: 'wide', type: T('decimal(18, 4)') },
  { name: 'narrow', type: T('decimal(10, 1)') },
];

/** Instants across and beyond years 0000–9999 (whole seconds, milliseconds, leap days, before 1970). */
function instant(): Date | null {
  const r = random();
  if (r < 0.05) return null;
  if (r < 0.1) return new Date(Date.UTC(2024, 1, 29, 23, 59, 59, Math.floor(random() * 2) * 7));
  if (r < 0.13) return new Date(Date.UTC(10_500, 0, 1));
  if (r < 0.16) return new Date(Date.UTC(-50, 5, 1, 12));
  if (r < 0.18) return new Date(random() < 0.5 ? -62_167_219_200_000 : 253_402_300_799_999); // 0000-01-01, 9999's last ms
  const ms = Math.floor((random() - 0.3) * 2e14);
  return new Date(random() < 0.5 ? ms - (ms % 1000) : ms);
}

/** Decimal text with 0 to `maxScale` decimals, sometimes negative, sometimes zero. */
function decimalText(maxScale: number): string {
  const scale = Math.floor(random() * (maxScale + 1));
  const integer = random() < 0.2 ? 0 : Math.floor(random() * 10 ** Math.floor(random() * 9));
  const fraction = scale === 0 ? '' : `.${String(Math.floor(random() * 10 ** scale)).padStart(scale, '0')}`;
  return `${random() < 0.3 && (integer > 0 || /[1-9]/.test(fraction)) ? '-' : ''}${integer}${fraction}`;
}

function rows(n: number): Value[][] {
  const out: Value[][] = [];
  for (let i = 0; i < n; i++) {
    const d = (maxScale: number) => (random() < 0.05 ? null : parseDecimal(decimalText(maxScale)));
    const amount = d(2);
    out.push([i, instant(), amount === null ? null : parseDecimal(amount.toFixed(2), 2), d(6), d(3), d(3)]);
  }
  return out;
}

/** The same cells, typed (as sources and APPLY SCHEMA store them) and as plain values. */
function both(n: number): { typed: Dataset; plain: Dataset } {
  const data = rows(n);
  const typed = Dataset.fromRows(columns, data);
  const plain = new Dataset(
    columns,
    columns.map((_, c) => data.map((row) => row[c])),
  );
  return { typed, plain };
}

const FORMATS: DocFormat[] = ['CSV', 'JSON', 'XML'];
const OPTIONS: Partial<WriterOptions>[] = [
  {},
  { header: true, quoting: 'always' },
  { delimiter: '.', trim: true },
  { date: 'yyyy/MM/dd HH:mm' },
];

test('typed datetimes and decimals are written byte for byte as the same values held as objects', () => {
  const { typed, plain } = both(4000);
  for (const name of ['ts']) assert.ok(typed.vector(typed.indexOf(name)) instanceof DateVector, `${name} is typed`);
  for (const name of ['amount', 'price', 'wide', 'narrow'])
    assert.ok(typed.vector(typed.indexOf(name)) instanceof DecimalVector, `${name} is typed`);
  for (let c = 0; c < columns.length; c++) assert.ok(plain.vector(c) instanceof ValuesVector);
  for (const format of FORMATS) {
    for (const options of OPTIONS) {
      const o = writerOptions(options);
      assert.equal(
        datasetText(typed, format, o),
        datasetText(plain, format, o),
        `${format} ${JSON.stringify(options)}`,
      );
    }
  }
  const json = JSON.parse(datasetText(typed, 'JSON', writerOptions({}))) as Record<string, unknown>[];
  assert.equal(json.length, 4000, 'the JSON is valid');
});

test('a selection and a subset of fields are written from text views as from values', () => {
  const { typed, plain } = both(500);
  const every = Uint32Array.from({ length: 200 }, (_, k) => (k * 7) % 500);
  const fields = [5, 1, 3];
  for (const format of FORMATS) {
    const writer = documentWriter(format, columns, fields, writerOptions({}));
    const text = (ds: Dataset) => [...documentChunks(ds.pick(every), writer, 1000)].join('');
    assert.equal(text(typed), text(plain), format);
  }
});

test('a decimal column whose scale is below its values rounds them as the Decimal does', () => {
  const type = T('decimal(10, 1)');
  const values = ['1.25', '-1.25', '0.05', '2.349', '7', '-0.04'].map((t) => parseDecimal(t));
  const typed = Dataset.encoded([{ name: 'x', type }], [values]);
  assert.ok(typed.vector(0) instanceof DecimalVector);
  assert.equal(datasetText(typed, 'CSV', writerOptions({})), values.map((v) => `${v.toFixed(1)}\r\n`).join(''));
  assert.equal(
    datasetText(typed, 'JSON', writerOptions({})),
    `[${values.map((v) => `{"x":${new Decimal(v).toFixed(1)}}`).join(',')}]`,
  );
});

test('a loaded and typed CSV sinks the same JSON and CSV as the file it was read from, through the session', async () => {
  const lines = ['id,ts,amount'];
  for (let i = 0; i < 300; i++) {
    let ms = Math.floor(random() * 4e12) - 1e12;
    if (i % 3 === 0) ms -= ms % 1000;
    const iso = new Date(ms).toISOString();
    lines.push(
      `${i},${i % 11 === 0 ? '' : ms % 1000 === 0 ? iso.slice(0, 19) : iso.slice(0, 23)},${i % 13 === 0 ? '' : decimalText(2)}`,
    );
  }
  const { session, dir } = tempSession({ 'in.csv': `${lines.join('\r\n')}\r\n` }, 'typed-text');
  await session.run(
    `SELECT * FROM DRIVE 'in.csv';
     APPLY SCHEMA (
       int id
       datetime ts
       decimal amount
     );
     SINK INTO DRIVE FORMAT JSON FILE 'out.json';
     SINK INTO DRIVE FORMAT CSV FILE 'out.csv';`,
  );
  const typed = session.dataset;
  assert.ok(typed.vector(1) instanceof DateVector && typed.vector(2) instanceof DecimalVector);
  const json = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as {
    id: number;
    ts: string | null;
    amount: number | null;
  }[];
  const csv = readFileSync(join(dir, 'out.csv'), 'utf8').split('\r\n'); // no header by default
  for (let i = 0; i < 300; i++) {
    const [id, ts, amount] = lines[i + 1].split(',');
    assert.deepEqual(json[i].ts, ts === '' ? null : ts, `row ${i} ts`);
    assert.equal(csv[i], `${id},${ts},${amount}`, `row ${i} CSV`);
  }
});

test('ADD COLUMN … FORMAT writes typed fields as it writes the same values held as objects, WHEN reading one of them', async () => {
  const { typed, plain } = both(600);
  const statements = [
    "ADD COLUMN 'doc' FORMAT JSON",
    "ADD COLUMN 'doc' FORMAT CSV INCLUDE 'narrow,ts,amount' OPTIONS 'delimiter:.'",
    "ADD COLUMN 'doc' FORMAT XML INCLUDE 'ts,price'",
    "ADD COLUMN 'doc=none' FORMAT JSON INCLUDE 'id,ts,amount' WHEN 'amount > 0 AND ts > #2000-01-01#'",
  ];
  for (const statement of statements) {
    const docs = async (ds: Dataset) => {
      const { session } = tempSession({}, 'typed-text');
      session.setDataset(ds);
      await session.run(statement);
      return session.dataset.column(session.dataset.indexOf('doc'));
    };
    const fromTyped = await docs(typed);
    assert.deepEqual(fromTyped, await docs(plain), statement);
    assert.ok(new Set(fromTyped).size > 100, `${statement}: the fragments differ from row to row`);
  }
});

test('JSON writes typed decimals and longs with their exact digits, wherever they sit among the fields', () => {
  const wide: Column[] = [
    { name: 'first', type: T('decimal(12, 2)') },
    { name: 'name', type: T('string') },
    { name: 'serial', type: T('long') },
    { name: 'scaled', type: T('decimal(10, 4)') },
    { name: 'price', type: T('decimal') },
    { name: 'when', type: T('datetime') },
    { name: 'whole', type: T('decimal(8, 0)') },
  ];
  const longs = [0n, -1n, 2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n, 9_007_199_254_740_991n, 42n];
  const texts = ['0', '-0.5', '12.5', '-1234.0625', '0.001', '7', '999999.9999'];
  const data: Value[][] = [];
  for (let i = 0; i < 3000; i++) {
    /** A decimal from the list (with `scale` decimals when given), null one time in ten. */
    const decimal = (k: number, scale?: number) => {
      if (random() < 0.1) return null;
      const text = texts[(i + k) % texts.length];
      return parseDecimal(scale === undefined ? text : parseDecimal(text).toFixed(scale));
    };
    data.push([
      decimal(0, 2),
      random() < 0.1 ? null : `n "${i}"\u2028`,
      random() < 0.1 ? null : longs[i % longs.length],
      decimal(2, 4),
      decimal(4),
      instant(),
      decimal(5, 0),
    ]);
  }
  // Rows 2^53 and below only, so the longs fit the serialized object; then all rows.
  const small = data.filter(
    (row) => row[2] === null || ((row[2] as bigint) <= 2n ** 53n && (row[2] as bigint) >= -(2n ** 53n)),
  );
  for (const rows of [small, data]) {
    const typed = Dataset.fromRows(wide, rows);
    for (const name of ['first', 'scaled', 'price', 'whole'])
      assert.ok(typed.vector(typed.indexOf(name)) instanceof DecimalVector, `${name} is typed`);
    assert.ok(typed.vector(typed.indexOf('serial')) instanceof BigIntVector, 'serial is typed');
    // The JSON of each cell as the type's text (formatValue): a decimal's digits, a long's, a string quoted.
    const expected = `[${rows
      .map(
        (row) =>
          `{${wide
            .map((c, k) => {
              const v = row[k];
              const text = v === null ? 'null' : formatValue(v, c.type);
              const quoted = typeof v === 'string' || v instanceof Date;
              return `${JSON.stringify(c.name)}:${quoted ? JSON.stringify(text) : text}`;
            })
            .join(',')}}`,
      )
      .join(',')}]`;
    assert.equal(datasetText(typed, 'JSON', writerOptions({})), expected);
    // Fields chosen and ordered so decimals come first, last and next to each other.
    for (const fields of [
      [6, 0],
      [3, 4, 1],
      [2, 6],
    ]) {
      const writer = documentWriter('JSON', wide, fields, writerOptions({}));
      const plainRows = new Dataset(
        wide,
        wide.map((_, c) => rows.map((row) => row[c])),
      );
      assert.equal(
        [...documentChunks(typed, writer, 5000)].join(''),
        [...documentChunks(plainRows, writer)].join(''),
        `fields ${fields.join(',')}`,
      );
    }
  }
});
