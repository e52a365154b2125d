import { test } from 'node:test';
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { converterTo } from '../../runtime/dataset/convert';
import { decimalText } from '../../runtime/dataset/decimal-scale';
import { NumberTextVector } from '../../runtime/dataset/number-text';
import { parseTypeName } from '../../runtime/dataset/type-names';
import type { Value } from '../../runtime/dataset/types';
import { DateVector, DecimalVector, NumberVector, type Vector } from '../../runtime/dataset/vector';
import { tempSession } from '../helpers/session';

/*
 * Loaded text columns whose cells are each the one text of a number (number-text.ts): held as the
 * numbers, read back as the text written, and typed by APPLY SCHEMA exactly as the converter types
 * the text. Each column of numbers has a twin with one odd cell, which is held as text: both must
 * read and convert alike.
 */

const ROWS = 5000;

/** Cell r of each column of numbers; `odd` is a cell that is not the one text of its number. */
const columns: Record<string, { cell: (r: number) => string; odd: string[] }> = {
  i: {
    cell: (r) => String([0, -1, 2147483647, -2147483648, 42, r * 7919 - 20_000_000][r % 6]),
    odd: ['007', '+5', '-0', '2147483648', '1.0', ' 5', '\t'],
  },
  d: {
    cell: (r) =>
      ['0.50', '-12.25', '1234.00', '0.07', '-0.01', '9999999999999.99', `${r}.${r % 100 < 10 ? '0' : ''}${r % 100}`][
        r % 7
      ],
    odd: ['1.5', '-0.00', '.25', '01.25', '1e2', '12345678901234.56'],
  },
  s: {
    cell: (r) => `${r % 1000}.${String(r % 997).padStart(4, '0')}`,
    odd: ['1.00000', '-0.0000'],
  },
  /** Empty cells only (nulls): text, however many rows. */
  e: { cell: () => '', odd: ['x'] },
  t: {
    cell: (r) =>
      [
        '2024-03-05T12:34:56',
        '0001-01-01T00:00:00',
        '9999-12-31T23:59:59.999',
        '1969-12-31T23:59:59.001',
        '2024-02-29T00:00:00.050',
        new Date(Date.UTC(2020, 0, 1) + r * 3_600_017).toISOString().slice(0, 19),
      ][r % 6],
    odd: [
      '2024-01-01T00:00:00.000',
      '2024-02-30T00:00:00',
      '2024-01-01 00:00:00',
      '2024-01-01T00:00:00Z',
      '2024-01-01',
    ],
  },
};

/** The CSV: each column, and its twin `<name>_odd` with one odd cell at `at`; the last row is short (nulls). */
function csv(odd: number, at: number): { text: string; cells: (string | null)[][] } {
  const names = Object.keys(columns);
  const header = names.flatMap((n) => [n, `${n}_odd`]);
  const cells: (string | null)[][] = [];
  for (let r = 0; r < ROWS; r++) {
    cells.push(
      names.flatMap((n) => {
        const { cell, odd: odds } = columns[n];
        // Empty fields here and there: read as null (docs/sources.md), written as nothing by join.
        const text = r % 13 === 4 ? null : cell(r) || null;
        return [text, r === at ? odds[odd % odds.length] : text];
      }),
    );
  }
  cells.push([columns.i.cell(ROWS), ...Array<null>(header.length - 1).fill(null)]);
  const lines = cells.map((row, r) => (r === ROWS ? row[0]! : row.join(',')));
  return { text: `${[header.join(','), ...lines].join('\n')}\n`, cells };
}

async function loaded(odd: number, at: number) {
  const { text, cells } = csv(odd, at);
  const { session } = tempSession({ 'n.csv': text }, 'numtext');
  await session.run("SELECT * FROM DRIVE 'n.csv';");
  return { session, cells, ds: session.dataset };
}

/** The array of numbers of a typed vector. */
function numbersOf(vector: Vector | undefined): unknown {
  if (vector instanceof NumberVector) return vector.data;
  if (vector instanceof DateVector) return vector.ms;
  if (vector instanceof DecimalVector) return vector.unscaled;
  return undefined;
}

/** A cell compared by what it holds: the digits and scale of a decimal, the instant of a date. */
function shown(v: Value): unknown {
  if (Decimal.isDecimal(v)) return `decimal ${decimalText(v)}`;
  if (v instanceof Date) return `date ${v.getTime()}`;
  return v;
}

test('text columns of numbers (blanks among them) are held as the numbers and read back as the text written; an odd cell keeps text', async () => {
  for (let odd = 0; odd < 7; odd++) {
    // The odd cell first, in the middle of a block, and near the end.
    for (const at of [0, 1500 + odd, ROWS - 1]) {
      const { ds, cells } = await loaded(odd, at);
      for (const [c, column] of ds.columns.entries()) {
        const vector = ds.vector(c);
        const numbers = !column.name.endsWith('_odd') && column.name !== 'e';
        assert.equal(vector instanceof NumberTextVector, numbers, `${column.name}: held as numbers`);
        assert.deepEqual(
          ds.column(c),
          cells.map((row) => row[c]),
          `${column.name} (odd cell ${odd} at ${at})`,
        );
      }
      const rows = [ROWS, at, 0, 1023, 1024, ROWS - 1];
      assert.deepEqual(
        ds.pick(rows).rows(),
        rows.map((r) => cells[r]),
      );
    }
  }
});

const TYPES = [
  'int',
  'long',
  'double',
  'string',
  'decimal',
  'decimal(16, 2)',
  'decimal(20, 6)',
  'decimal(5, 2)',
  'datetime',
];

test('APPLY SCHEMA on a column held as numbers gives what the converter gives its text, sharing the numbers of its own type', async () => {
  const { session, ds: input, cells } = await loaded(0, 2500);
  for (const name of Object.keys(columns)) {
    for (const typeName of TYPES) {
      session.setDataset(input);
      const schema = `APPLY SCHEMA (\n  ${typeName} ${name}\n  ${typeName} ${name}_odd\n) CONTINUE_ON_ERROR;`;
      await session.run(schema);
      const ds = session.dataset;
      const type = parseTypeName(typeName);
      const convert = converterTo(type);
      for (const target of [name, `${name}_odd`]) {
        const c = input.indexOf(target);
        const expected = cells.map((row) => {
          const text = row[c];
          try {
            // Blank text is null to any type but text (apply-schema's `trimmed`).
            return shown(text === null || (text.trim() === '' && type.base !== 'string') ? null : convert(text));
          } catch {
            return null;
          }
        });
        assert.deepEqual(ds.column(ds.indexOf(target)).map(shown), expected, `${typeName} ${target}`);
      }
      const held = input.vector(input.indexOf(name));
      const typed = ds.vector(ds.indexOf(name));
      const own =
        (name === 'i' && typeName === 'int') ||
        (name === 't' && typeName === 'datetime') ||
        (name === 'd' && (typeName === 'decimal' || typeName === 'decimal(16, 2)')) ||
        (name === 's' && typeName === 'decimal');
      assert.equal(
        held instanceof NumberTextVector && numbersOf(typed) === numbersOf(held.typed),
        own,
        `${typeName} ${name}: the numbers shared`,
      );
      if (own) assert.ok(typed.get(4) === null, 'a blank cell is null');
      if (name === 's' && typeName === 'decimal(20, 6)') {
        assert.ok(typed instanceof DecimalVector && typed.scale === 6, 'scaled up in decimal storage');
      }
    }
  }
});

test('APPLY SCHEMA to a decimal too narrow for a column held as numbers fails at the first row that does not fit', async () => {
  const { session } = await loaded(0, 0);
  await assert.rejects(session.run('APPLY SCHEMA (\n  decimal(5, 2) d\n);'), /column 'd', row 3: .*precision/);
});
