import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Decimal from 'decimal.js';
import { Dataset } from '../runtime/dataset/dataset';
import { decimalText } from '../runtime/dataset/decimal-scale';
import type { Column, Value } from '../runtime/dataset/types';
import { Session } from '../runtime/session';
import { best, seededRandom } from './measure';

/**
 * `npm run bench -- schema`: APPLY SCHEMA typing 1,000,000 rows of text cells (what SELECT * FROM
 * DRIVE leaves) as int, long, decimal(10,2), datetime and bool, beside hand-written JS doing the same
 * conversions in the same run (parseInt / BigInt / new Decimal / Date.parse per cell, one new array
 * per converted column, the others shared, as the dataset stores them). Goal: within 2x of the hand-written reference. Each column alone is measured too, which
 * shows where the time goes.
 *
 * The rows are generated in memory rather than read from bench/load.ts's CSV: that file has no
 * bool or beyond-int column, and loading it would add 2 s per run that is not the statement's.
 */

const ROWS = 1_000_000;
const RUNS = 3;
const SAMPLE = 9973;

const columns: Column[] = ['id', 'big', 'price', 'at', 'flag', 'name'].map((name) => ({
  name,
  type: { base: 'string' },
}));

function generate(): Value[][] {
  const random = seededRandom();
  const two = (n: number) => String(n).padStart(2, '0');
  const rows = new Array<Value[]>(ROWS);
  for (let i = 0; i < ROWS; i++) {
    const at = `2024-${two(1 + Math.floor(random() * 12))}-${two(1 + Math.floor(random() * 28))}T${two(Math.floor(random() * 24))}:${two(Math.floor(random() * 60))}:${two(Math.floor(random() * 60))}`;
    rows[i] = [
      String(i),
      String(5_000_000_000 + i * 7919),
      (random() * 100_000).toFixed(2),
      at,
      random() < 0.5 ? 'true' : 'false',
      `customer ${i % 5000}`,
    ];
  }
  return rows;
}

type Cell = (s: string) => Value;

/** The hand-written conversion of each column, the reference APPLY SCHEMA is measured against. */
const HAND: Record<string, Cell> = {
  id: (s) => parseInt(s, 10),
  big: (s) => BigInt(s),
  price: (s) => new Decimal(s),
  at: (s) => new Date(Date.parse(`${s}Z`)),
  flag: (s) => s === 'true',
};

const SCHEMA: Record<string, string> = {
  id: 'int id',
  big: 'long big',
  price: 'decimal(10, 2) price',
  at: 'datetime at',
  flag: 'bool flag',
};

/** Converts the named columns into new column arrays and shares the others, as APPLY SCHEMA does. */
function handWritten(data: Value[][], names: string[]): Value[][] {
  const out = data.slice();
  for (const n of names) {
    const ordinal = columns.findIndex((c) => c.name === n);
    const cell = HAND[n];
    const from = data[ordinal];
    const to = new Array<Value>(from.length);
    for (let r = 0; r < from.length; r++) to[r] = cell(from[r] as string);
    out[ordinal] = to;
  }
  return out;
}

/** Cells compared as text, so an int and a Decimal or Date and its reference agree on content. */
function same(a: Value, b: Value): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Decimal.isDecimal(a) && Decimal.isDecimal(b))
    return decimalText(a).replace(/\.?0+$/, '') === b.toFixed().replace(/\.?0+$/, '');
  return a === b;
}

const ms = (s: number) => `${(s * 1000).toFixed(0).padStart(6)} ms`;
const rate = (s: number) => `${(ROWS / s / 1e6).toFixed(2)}M rows/s`;

export async function runSchemaBench(): Promise<void> {
  const rows = generate();
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-schema-'));
  const session = new Session({ workspace: join(dir, '.sqlcdc'), cwd: dir });
  // Datasets are never modified, so every run can start from the same one.
  const input = Dataset.fromRows(columns, rows);
  const applySchema = async (names: string[]) => {
    session.setDataset(input);
    await session.run(`APPLY SCHEMA (\n${names.map((n) => `  ${SCHEMA[n]}`).join('\n')}\n);`);
    const out = session.dataset;
    // Neither side keeps its result alive while the next run is measured: the live heap is the same for both.
    session.setDataset(Dataset.empty());
    return out;
  };
  // Every SAMPLE-th row of APPLY SCHEMA's output against the reference's.
  const agrees = (names: string[], reference: Value[][]) => (d: Dataset) => {
    for (let k = 0; k < reference.length; k++) {
      for (const n of names) {
        const got = d.data[d.indexOf(n)][k * SAMPLE];
        const want = reference[k][columns.findIndex((c) => c.name === n)];
        if (!same(got, want))
          throw new Error(`APPLY SCHEMA ${n} row ${k * SAMPLE}: ${String(got)}, reference ${String(want)}`);
      }
    }
  };
  console.log(`schema: APPLY SCHEMA on ${ROWS.toLocaleString('en-US')} rows of text cells, best of ${RUNS}`);
  try {
    const cases: [string, string[]][] = [
      ...Object.keys(SCHEMA).map((n): [string, string[]] => [SCHEMA[n], [n]]),
      ['all five together', Object.keys(SCHEMA)],
    ];
    for (const [label, names] of cases) {
      let reference: Value[][] = [];
      const hand = await best(
        RUNS,
        () => handWritten(input.data, names),
        (out) => {
          reference = [];
          for (let r = 0; r < ROWS; r += SAMPLE) reference.push(out.map((values) => values[r]));
        },
      );
      const schema = await best(RUNS, () => applySchema(names), agrees(names, reference));
      reference = [];
      const ratio = schema / hand;
      const goal = names.length > 1 ? `  (goal ≤ 2x: ${ratio <= 2 ? 'met' : 'MISSED'})` : '';
      console.log(
        `  ${label.padEnd(22)} ${ms(schema)}  ${rate(schema)}   hand-written JS: ${ms(hand).trim()}  ${rate(hand)}   ratio ${ratio.toFixed(2)}x${goal}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runSchemaBench().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
