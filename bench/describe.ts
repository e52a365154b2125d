import { DuckDBInstance } from '@duckdb/node-api';
import Decimal from 'decimal.js';
import { Dataset } from '../runtime/dataset/dataset';
import type { Column, Value } from '../runtime/dataset/types';
import { describeDataset } from '../runtime/magics/describe';
import { vegaLiteChart } from '../runtime/dataset/vega-lite';
import { best, seededRandom } from './measure';

/**
 * `npm run bench -- describe`: `%describe` of 1,000,000 generated rows in 6 columns (unique ints,
 * 200,000 names, doubles, 4 regions and nulls, 50,000 dates, 10,000 decimals), beside DuckDB computing
 * the same figures (nulls, exact distinct count, min, max, top 3 by a GROUP BY) on a table of the
 * same shape, in the same run; goal: under 1 s. Also `%plot point` of those rows (a 5,000-row sample).
 */

const ROWS = 1_000_000;
const RUNS = 3;
const REGIONS = ['north', 'south', 'east', 'west', null];

const columns: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'amount', type: { base: 'double' } },
  { name: 'region', type: { base: 'string' } },
  { name: 'ordered', type: { base: 'datetime' } },
  { name: 'price', type: { base: 'decimal', precision: 10, scale: 2 } },
];

function generate(): Dataset {
  const random = seededRandom();
  const data: Value[][] = columns.map(() => new Array<Value>(ROWS));
  const start = Date.UTC(2024, 0, 1);
  for (let r = 0; r < ROWS; r++) {
    data[0][r] = r;
    data[1][r] = `customer ${r % 200_000}`;
    data[2][r] = Math.round(random() * 100_000) / 100;
    data[3][r] = REGIONS[r % REGIONS.length];
    data[4][r] = new Date(start + (r % 50_000) * 60_000);
    data[5][r] = new Decimal(r % 10_000).div(100);
  }
  return new Dataset(columns, data, ROWS);
}

const DUCKDB_TABLE = `CREATE TABLE t AS SELECT
  range::INTEGER AS id,
  'customer ' || (range % 200000) AS name,
  round(random() * 1000, 2) AS amount,
  CASE WHEN range % 5 = 4 THEN NULL ELSE ['north', 'south', 'east', 'west'][range % 5 + 1] END AS region,
  TIMESTAMP '2024-01-01' + to_minutes((range % 50000)::BIGINT) AS ordered,
  ((range % 10000) / 100)::DECIMAL(10, 2) AS price
FROM range(${ROWS})`;

const ms = (s: number) => `${(s * 1000).toFixed(0).padStart(6)} ms`;

export async function runDescribeBench(): Promise<void> {
  const ds = generate();
  console.log(`describe: ${ROWS.toLocaleString('en-US')} rows, ${columns.length} columns, best of ${RUNS}`);
  const profile = await best(
    RUNS,
    () => describeDataset(ds, []),
    (r) => {
      if (r.kind !== 'table' || r.dataset.rowCount !== columns.length)
        throw new Error('the profile has one row per column');
    },
  );

  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  await db.run(DUCKDB_TABLE);
  const threads = (await db.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0];
  const duckdb = await best(
    RUNS,
    async () => {
      const out = [];
      for (const { name } of columns) {
        const stats = await db.runAndReadAll(
          `SELECT count(*) - count(${name}), count(DISTINCT ${name}), min(${name}), max(${name}) FROM t`,
        );
        const top = await db.runAndReadAll(
          `SELECT ${name}, count(*) AS n FROM t WHERE ${name} IS NOT NULL GROUP BY ${name} ORDER BY n DESC LIMIT 3`,
        );
        out.push([stats.getRows()[0], top.getRows()]);
      }
      return out;
    },
    (r) => {
      if (r.length !== columns.length) throw new Error('DuckDB profiled every column');
    },
  );
  db.closeSync();
  instance.closeSync();
  console.log(
    `  %describe                ${ms(profile)}   DuckDB (${String(threads)} threads): ${ms(duckdb).trim()}  ratio ${(profile / duckdb).toFixed(2)}x  (goal: < 1 s)`,
  );

  const plot = await best(
    RUNS,
    () => JSON.stringify(vegaLiteChart(ds, { kind: 'point', x: 'ordered', y: 'amount', color: 'region' }).spec),
    (json) => {
      if (!json.includes('"subtitle"')) throw new Error('a 1M-row chart is sampled');
    },
  );
  console.log(`  %plot point (5,000 rows)  ${ms(plot)}   (the spec as JSON, sampled from every row)`);
}
