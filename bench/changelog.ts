import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type Decimal from 'decimal.js';
import { readChangeLog } from '../runtime/changelog/read';
import { writeChangeLog } from '../runtime/changelog/write';
import { Dataset } from '../runtime/dataset/dataset';
import { decimalText, parseDecimal } from '../runtime/dataset/decimal-scale';
import type { Column, Value } from '../runtime/dataset/types';
import { seededRandom } from './measure';

/**
 * `npm run bench -- changelog`: a 1,000,000-row change log of typed columns (int, long, string,
 * decimal(10,2), datetime, bool), written and read back, beside the same rows as JSON in the same
 * run. Each measurement runs in a child process of its own, so none pays for another's garbage.
 *
 * - write: writeChangeLog (encode, compress, fsync, rename) against JSON.stringify of the rows +
 *   gzip level 1 + a durable file write. Goal: faster.
 * - read: readChangeLog (typed values: bigint, Decimal, Date) against JSON.parse of the rows' JSON
 *   text, in memory and uncompressed (plain strings where we give typed values). Goal: ≥ 1.5x
 *   faster. JSON.parse with the values typed as the dataset holds them is shown too: the like for
 *   like reference.
 *
 * The CPU time of each side (every thread: decompression in the thread pool, the collector's
 * helpers) is shown beside the wall times: on a shared machine it moves far less with the load.
 */

const ROWS = 1_000_000;
const RUNS = 5;

const COLUMNS: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'big', type: { base: 'long' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'price', type: { base: 'decimal', precision: 10, scale: 2 } },
  { name: 'at', type: { base: 'datetime' } },
  { name: 'flag', type: { base: 'bool' } },
];

type Mode = 'write-eds' | 'write-json' | 'read-eds' | 'parse-json' | 'parse-json-typed';

/** The same rows in every child: the generator is seeded. */
function generate(): Dataset {
  const random = seededRandom();
  const data: Value[][] = COLUMNS.map(() => new Array<Value>(ROWS));
  const [id, big, name, price, at, flag] = data;
  for (let i = 0; i < ROWS; i++) {
    id[i] = i;
    big[i] = 9_007_199_254_740_993n + BigInt(i * 7919);
    // Flattened, as a parser leaves its strings (not the rope a template literal makes).
    name[i] = `customer ${Math.floor(random() * 50_000)} of region ${Math.floor(random() * 40)}`.split('').join('');
    price[i] = parseDecimal((random() * 100_000).toFixed(2));
    at[i] = new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * 366 * 86_400) * 1000);
    flag[i] = random() < 0.5;
  }
  return new Dataset(COLUMNS, data, ROWS);
}

interface JsonRow {
  id: number;
  big: string;
  name: string;
  price: string;
  at: string;
  flag: boolean;
}

/** The rows as JSON can carry them: exact longs and decimals as strings, dates as ISO text. */
function jsonRows(ds: Dataset): JsonRow[] {
  const [id, big, name, price, at, flag] = ds.data;
  const rows = new Array<JsonRow>(ROWS);
  for (let i = 0; i < ROWS; i++) {
    rows[i] = {
      id: id[i] as number,
      big: String(big[i]),
      name: name[i] as string,
      price: decimalText(price[i] as Decimal),
      at: (at[i] as Date).toISOString(),
      flag: flag[i] as boolean,
    };
  }
  return rows;
}

function writeDurably(path: string, data: Buffer): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** One measurement: what it does outside the timed part (generating, reading the input) is not counted. */
/** Wall time, and the CPU time of every thread of the process (decompression, the collector's helpers). */
interface Timing {
  ms: number;
  cpu: number;
}

async function child(mode: Mode, dir: string): Promise<Timing> {
  const eds = join(dir, 'bench.eds');
  const gz = join(dir, 'bench.json.gz');
  const time = async (run: () => unknown) => {
    const cpuBefore = process.cpuUsage();
    const start = process.hrtime.bigint();
    const result = await run();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const used = process.cpuUsage(cpuBefore);
    return { ms, cpu: (used.user + used.system) / 1000, result };
  };
  switch (mode) {
    case 'write-eds': {
      const ds = generate();
      const meta = {
        executionId: '1700000000000',
        pipeline: 'bench',
        name: 'bench',
        keys: ['id'],
        inserts: ROWS,
        updates: 0,
      };
      return await time(() => writeChangeLog(eds, ds, Dataset.empty(), meta));
    }
    case 'write-json': {
      const rows = jsonRows(generate());
      return await time(() => writeDurably(gz, gzipSync(JSON.stringify(rows), { level: 1 })));
    }
    case 'read-eds': {
      const timing = await time(() => readChangeLog(eds));
      const log = timing.result as Awaited<ReturnType<typeof readChangeLog>>;
      const last = ROWS - 1;
      if (log.upserts.rowCount !== ROWS || log.upserts.cell(last, 1) !== 9_007_199_254_740_993n + BigInt(last * 7919))
        throw new Error('the log read back differs');
      return timing;
    }
    case 'parse-json':
    case 'parse-json-typed': {
      const text = gunzipSync(readFileSync(gz)).toString('utf8');
      const typed = mode === 'parse-json-typed';
      const timing = await time(() => {
        const rows = JSON.parse(text) as JsonRow[];
        if (!typed) return rows;
        // As a dataset holds them: column arrays of typed values.
        const columns: Value[][] = COLUMNS.map(() => new Array<Value>(rows.length));
        for (let i = 0; i < rows.length; i++) {
          const r = rows[i];
          columns[0][i] = r.id;
          columns[1][i] = BigInt(r.big);
          columns[2][i] = r.name;
          columns[3][i] = parseDecimal(r.price);
          columns[4][i] = new Date(r.at);
          columns[5][i] = r.flag;
        }
        return columns;
      });
      if ((timing.result as unknown[]).length !== (typed ? COLUMNS.length : ROWS)) throw new Error('JSON rows missing');
      return timing;
    }
  }
}

function measure(mode: Mode, dir: string): Timing {
  return JSON.parse(
    execFileSync(process.execPath, [__filename, '--child', mode, dir], { encoding: 'utf8', maxBuffer: 1 << 20 }),
  ) as Timing;
}

const ms = (t: number) => `${t.toFixed(0).padStart(6)} ms`;
const rate = (t: number) => `${(ROWS / t / 1e3).toFixed(2)}M rows/s`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export async function runChangeLogBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-changelog-'));
  try {
    console.log(
      `changelog: ${ROWS.toLocaleString('en-US')} rows (int, long, string, decimal(10,2), datetime, bool), best of ${RUNS}, one child process each`,
    );
    const all: Mode[] = ['write-eds', 'write-json', 'read-eds', 'parse-json', 'parse-json-typed'];
    const best = Object.fromEntries(all.map((m) => [m, Infinity])) as Record<Mode, number>;
    const bestCpu = { ...best };
    // Writes first: the reads read what they wrote. Modes alternate, so a busy moment hits both sides.
    for (const modes of [
      ['write-eds', 'write-json'],
      ['read-eds', 'parse-json', 'parse-json-typed'],
    ] as Mode[][]) {
      for (let i = 0; i < RUNS; i++) {
        for (const mode of modes) {
          const t = measure(mode, dir);
          best[mode] = Math.min(best[mode], t.ms);
          bestCpu[mode] = Math.min(bestCpu[mode], t.cpu);
        }
      }
    }
    const size = (f: string) => statSync(join(dir, f)).size;
    const write = best['write-json'] / best['write-eds'];
    console.log(
      `  write  .eds ${ms(best['write-eds'])}  ${rate(best['write-eds'])}  ${mb(size('bench.eds'))}   ` +
        `JSON.stringify + gzip -1: ${ms(best['write-json']).trim()}  ${mb(size('bench.json.gz'))}   ${write.toFixed(2)}x faster (goal > 1x: ${write > 1 ? 'met' : 'MISSED'})`,
    );
    const read = best['parse-json'] / best['read-eds'];
    console.log(
      `  read   .eds ${ms(best['read-eds'])}  ${rate(best['read-eds'])}   JSON.parse: ${ms(best['parse-json']).trim()}   ${read.toFixed(2)}x faster (goal ≥ 1.5x: ${read >= 1.5 ? 'met' : 'MISSED'})   ` +
        `JSON.parse typing the values: ${ms(best['parse-json-typed']).trim()} (${(best['parse-json-typed'] / best['read-eds']).toFixed(2)}x)`,
    );
    console.log(
      `  CPU time of every thread (less sensitive to the machine's load than wall time): write .eds ${ms(bestCpu['write-eds']).trim()}, ` +
        `JSON ${ms(bestCpu['write-json']).trim()}; read .eds ${ms(bestCpu['read-eds']).trim()}, JSON.parse ${ms(bestCpu['parse-json']).trim()} ` +
        `(${(bestCpu['parse-json'] / bestCpu['read-eds']).toFixed(2)}x)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const [flag, mode, dir] = process.argv.slice(2);
  const main =
    flag === '--child'
      ? child(mode as Mode, dir).then((t) => process.stdout.write(JSON.stringify({ ms: t.ms, cpu: t.cpu })))
      : runChangeLogBench();
  main.catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
