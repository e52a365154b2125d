import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Decimal from 'decimal.js';
import { Dataset } from '../runtime/dataset/dataset';
import type { Column, Value } from '../runtime/dataset/types';
import { parquetWriterLib } from '../runtime/parquet/library';
import { Session } from '../runtime/session';
import { best, seededRandom } from './measure';

/**
 * `npm run bench -- parquet`: SINK INTO DRIVE FORMAT PARQUET of 1,000,000 rows × 7 typed columns (int,
 * long, double, bool, string, datetime, decimal(12,2)) through Session.run — the statement with its
 * conversions (decimals to unscaled integers), row groups of 100,000 and the staged, fsynced publish —
 * beside hyparquet-writer writing the same columns directly (the same schema and row groups, values
 * already in the library's form, decimals as unscaled bigints: its best case), best of 3, same run.
 * Also: SELECT * FROM DRIVE of the file back into a dataset.
 */

const ROWS = 1_000_000;
const RUNS = 3;
const GROUP = 100_000;

const COLUMNS: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'serial', type: { base: 'long' } },
  { name: 'ratio', type: { base: 'double' } },
  { name: 'active', type: { base: 'bool' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'created', type: { base: 'datetime' } },
  { name: 'amount', type: { base: 'decimal', precision: 12, scale: 2 } },
];

function generate(): Value[][] {
  const random = seededRandom();
  const data: Value[][] = COLUMNS.map(() => new Array<Value>(ROWS));
  const start = Date.UTC(2024, 0, 1);
  for (let i = 0; i < ROWS; i++) {
    data[0][i] = i;
    data[1][i] = 9_007_199_254_740_993n + BigInt(i);
    data[2][i] = Math.round(random() * 1e6) / 100;
    data[3][i] = random() < 0.5;
    data[4][i] = `customer ${i % 5000}`;
    data[5][i] = new Date(start + Math.floor(random() * 365 * 86400) * 1000);
    data[6][i] = new Decimal((Math.floor(random() * 1e8) / 100).toFixed(2));
  }
  return data;
}

/** The same columns as hyparquet-writer takes them, converted outside the timing. */
function libraryColumns(data: Value[][]) {
  const amounts = (data[6] as Decimal[]).map((d) => BigInt(d.toFixed(2).replace('.', '')));
  return [
    { name: 'id', data: data[0], type: 'INT32' },
    { name: 'serial', data: data[1], type: 'INT64' },
    { name: 'ratio', data: data[2], type: 'DOUBLE' },
    { name: 'active', data: data[3], type: 'BOOLEAN' },
    { name: 'name', data: data[4], type: 'STRING' },
    { name: 'created', data: data[5], type: 'TIMESTAMP' },
    { name: 'amount', data: amounts },
  ];
}

export async function runParquetBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-parquet-'));
  try {
    const data = generate();
    const session = new Session({ workspace: join(dir, 'ws'), cwd: dir });
    session.setDataset(new Dataset(COLUMNS, data, ROWS));
    const ours = await best(
      RUNS,
      () => session.run("SINK INTO DRIVE FORMAT PARQUET FILE 'ours.parquet';"),
      () => undefined,
    );
    const lib = parquetWriterLib();
    const columnData = libraryColumns(data);
    const schema = lib.schemaFromColumnData({
      columnData: columnData as never,
      schemaOverrides: {
        amount: {
          name: 'amount',
          type: 'INT64',
          converted_type: 'DECIMAL',
          precision: 12,
          scale: 2,
          repetition_type: 'OPTIONAL',
        } as never,
      },
    });
    // The library takes either types on the columns or a schema: the schema made from them here.
    const untyped = columnData.map(({ name, data }) => ({ name, data }));
    const direct = await best(
      RUNS,
      () =>
        lib.parquetWriteFile({
          filename: join(dir, 'direct.parquet'),
          columnData: untyped,
          schema,
          rowGroupSize: GROUP,
        }),
      () => undefined,
    );
    const read = await best(
      RUNS,
      () => session.run("SELECT * FROM DRIVE 'ours.parquet';"),
      () => {
        if (session.dataset.rowCount !== ROWS) throw new Error('rows lost');
      },
    );
    const rate = (s: number) => `${Math.round(ROWS / s).toLocaleString('en-US')} rows/s`;
    const size = (f: string) => `${(statSync(join(dir, f)).size / 1e6).toFixed(1)} MB`;
    console.log(`parquet: ${ROWS.toLocaleString('en-US')} rows × ${COLUMNS.length} typed columns, best of ${RUNS}`);
    console.log(`  SINK INTO DRIVE FORMAT PARQUET   ${ours.toFixed(2)} s  ${rate(ours)}  (${size('ours.parquet')})`);
    console.log(
      `  hyparquet-writer directly        ${direct.toFixed(2)} s  ${rate(direct)}  (${size('direct.parquet')})`,
    );
    console.log(`  ratio (ours / library rows/s)    ${(direct / ours).toFixed(2)}x`);
    console.log(`  SELECT * FROM DRIVE (read back)  ${read.toFixed(2)} s  ${rate(read)}`);
    await session.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
