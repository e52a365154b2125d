import Decimal from 'decimal.js';
import Papa from 'papaparse';
import { Dataset } from '../runtime/dataset/dataset';
import { formatValue } from '../runtime/dataset/format-value';
import type { Column, Value } from '../runtime/dataset/types';
import { toCsv, toJsonRows } from '../runtime/dataset/render';
import { documentChunks, documentWriter, writerOptions } from '../runtime/writers';
import { best, seededRandom } from './measure';

/**
 * `npm run bench -- writers`: the CSV and JSON writers over a 1,000,000-row dataset of seven typed
 * columns (int, string with some commas and quotes, decimal(10,2), datetime, long, bool, double),
 * best of 5, each beside a reference given the same rows as plain JS values (dates, longs and
 * decimals already turned into strings or numbers, outside the timing):
 * - CSV of every row (what `--output csv` and SINK … FORMAT CSV write) vs Papa.unparse;
 * - the same CSV streamed in 64K pieces (what a SINK holds at a time) vs the one-shot text;
 * - JSON rows vs JSON.stringify of the rows as objects.
 */

const ROWS = 1_000_000;
const RUNS = 5;

const columns: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'amount', type: { base: 'decimal', precision: 10, scale: 2 } },
  { name: 'created', type: { base: 'datetime' } },
  { name: 'serial', type: { base: 'long' } },
  { name: 'active', type: { base: 'bool' } },
  { name: 'ratio', type: { base: 'double' } },
];

function generate(): Value[][] {
  const random = seededRandom();
  const rows = new Array<Value[]>(ROWS);
  const start = Date.UTC(2024, 0, 1);
  for (let i = 0; i < ROWS; i++) {
    const name = i % 10 === 0 ? `Smith, "J${i % 997}"` : `customer ${i % 5000}`;
    rows[i] = [
      i,
      name,
      new Decimal(Math.round(random() * 2_000_000)).div(100),
      new Date(start + Math.floor(random() * 3e10)),
      9_007_199_254_740_993n + BigInt(i),
      i % 3 === 0,
      i % 50 === 0 ? null : Math.round(random() * 1e6) / 1e3,
    ];
  }
  return rows;
}

const ms = (s: number) => `${(s * 1000).toFixed(0).padStart(6)} ms`;
const rate = (s: number) => `${(ROWS / s / 1e6).toFixed(2)}M rows/s`;

function line(label: string, seconds: number, reference: { label: string; seconds: number }): void {
  const ratio = (seconds / reference.seconds).toFixed(2);
  console.log(
    `  ${label.padEnd(36)} ${ms(seconds)}  ${rate(seconds)}   ${reference.label}: ${ms(reference.seconds).trim()}  ratio ${ratio}x`,
  );
}

export async function runWritersBench(): Promise<void> {
  const rows = generate();
  const input = Dataset.fromRows(columns, rows);
  // The references get each cell as the plain value JSON.stringify / Papa.unparse would take.
  const plain = rows.map((row) =>
    row.map((v, c) =>
      v === null || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string'
        ? v
        : formatValue(v, columns[c].type),
    ),
  );
  const names = columns.map((c) => c.name);
  const objects = plain.map((row) => Object.fromEntries(names.map((n, c) => [n, row[c]])));
  console.log(`writers: ${ROWS.toLocaleString('en-US')} rows × ${columns.length} columns, best of ${RUNS}`);

  const lines = (text: string) => {
    if (!text.startsWith('id,name,') || text.split('\r\n', 12).length !== 12)
      throw new Error(`unexpected CSV: ${text.slice(0, 80)}`);
  };
  const papa = await best(RUNS, () => Papa.unparse({ fields: names, data: plain }, { newline: '\r\n' }), lines);
  const csv = await best(RUNS, () => toCsv(input), lines);
  line('CSV of every row', csv, { label: 'Papa.unparse', seconds: papa });
  const writer = documentWriter(
    'CSV',
    columns,
    columns.map((_, i) => i),
    writerOptions({ header: true }),
  );
  const streamed = await best(
    RUNS,
    () => {
      let first = '';
      let size = 0;
      for (const piece of documentChunks(input, writer)) {
        first ||= piece;
        size += piece.length;
      }
      return { first, size };
    },
    ({ first, size }) => {
      lines(first);
      if (size < ROWS * 40) throw new Error(`streamed CSV too short: ${size} characters`);
    },
  );
  line('CSV streamed in 64K pieces', streamed, { label: 'CSV of every row', seconds: csv });

  const array = (text: string) => {
    if (!text.startsWith('[{"id":0,') || !text.endsWith('}]')) throw new Error(`unexpected JSON: ${text.slice(0, 80)}`);
  };
  const stringify = await best(RUNS, () => JSON.stringify(objects), array);
  const json = await best(RUNS, () => toJsonRows(input), array);
  line('JSON rows', json, { label: 'JSON.stringify', seconds: stringify });
}

if (require.main === module) {
  runWritersBench().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
