import { Dataset } from '../runtime/dataset/dataset';
import type { Column, Value } from '../runtime/dataset/types';
import { compileValue } from '../runtime/functions/evaluate';
import { Session } from '../runtime/session';
import { tempDir } from '../test/helpers/temp';

/**
 * `npm run bench -- functions`: column defaults evaluated over 1,000,000 rows through
 * compileValue/bind, beside hand-written JavaScript computing the same values in the same run
 * (best of 3). Goal: within 3x of the hand-written code.
 *   @toupper({{name}})             vs  row[1].toUpperCase()
 *   @format('{0:N2}', {{amount}})  vs  toFixed(2) with a precompiled grouping regex
 */
const ROWS = 1_000_000;
const RUNS = 3;

const columns: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'amount', type: { base: 'double' } },
];

function generate(): Value[][] {
  let seed = 7;
  const rows = new Array<Value[]>(ROWS);
  for (let i = 0; i < ROWS; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    rows[i] = [i, `customer ${i % 5000}`, Math.round((seed / 2147483648) * 200000000) / 100];
  }
  return rows;
}

function best(fn: () => Value[]): { ms: number; out: Value[] } {
  let ms = Infinity;
  let out: Value[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = process.hrtime.bigint();
    out = fn();
    ms = Math.min(ms, Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { ms, out };
}

function overRows(rows: Value[][], f: (row: Value[], i: number) => Value): Value[] {
  const out = new Array<Value>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = f(rows[i], i);
  return out;
}

export async function runFunctionsBench(): Promise<void> {
  const rows = generate();
  const ds = Dataset.fromRows(columns, rows);
  const state = new Session({ workspace: tempDir('bench-functions') }).scope(ds);
  const group = /\B(?=(\d{3})+(?!\d))/g;
  const cases: [string, (row: Value[]) => Value][] = [
    ['@toupper({{name}})', (row) => (row[1] as string).toUpperCase()],
    ["@format('{0:N2}', {{amount}})", (row) => (row[2] as number).toFixed(2).replace(group, ',')],
  ];
  console.log(`functions: ${ROWS.toLocaleString('en-US')} rows, best of ${RUNS}`);
  for (const [text, hand] of cases) {
    const ours = best(() => overRows(rows, compileValue(text).bind(state, ds)));
    const ref = best(() => overRows(rows, hand));
    for (const i of [0, 1, 12345, ROWS - 1]) {
      if (ours.out[i] !== ref.out[i])
        throw new Error(`${text}: row ${i} gives ${String(ours.out[i])}, hand-written ${String(ref.out[i])}`);
    }
    const ratio = ours.ms / ref.ms;
    console.log(
      `  ${text.padEnd(32)} ${ours.ms.toFixed(0).padStart(6)} ms  (${(((ROWS / ours.ms) * 1000) / 1e6).toFixed(2)}M rows/s)` +
        `  hand-written JS ${ref.ms.toFixed(0).padStart(5)} ms  ratio ${ratio.toFixed(2)}x  ${ratio <= 3 ? 'ok' : 'OVER'} (goal: within 3x)`,
    );
  }
}

if (require.main === module) {
  runFunctionsBench().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
