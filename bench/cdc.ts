import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { captureDiff, type CaptureDiff } from '../runtime/cdc/diff';
import { handedOver } from '../runtime/cdc/diff-thread';
import type { CaptureOptions } from '../runtime/cdc/options';
import { readState, writeState, type CdcState } from '../runtime/cdc/state';
import type Decimal from 'decimal.js';
import { Dataset } from '../runtime/dataset/dataset';
import { decimalText, parseDecimal } from '../runtime/dataset/decimal-scale';
import type { Column, Value } from '../runtime/dataset/types';
import { atOnce } from '../runtime/util/turn';
import { best, collectGarbage, seededRandom } from './measure';

/**
 * `npm run bench -- cdc`: the CAPTURE diff of 1,000,000 rows × 8 typed columns (int key, two
 * strings, decimal(18,2), int, double, datetime, bool) against the state of the previous run's
 * 1,000,000 rows, of which 10% were updated (one column each), 5% deleted and 5% inserted at random
 * places. Reference: DuckDB (in-process, its default 2 threads on this machine) computing the same
 * change set, by a full outer join on the key between the current table and a previous (key, row
 * hash) table, into a temp table; both tables are loaded first and only that query is timed, in
 * turns with our diff so both see the same (shared) machine. Goal: the diff within 2x of DuckDB.
 * Timed on our side, with the state already in memory like DuckDB's table: key encoding, row
 * hashing, matching, and the upsert/delete streams, on the machine's two cores as DuckDB's (a worker
 * thread matches the keys and hashes the typed columns, runtime/cdc/diff-thread.ts; the bench says
 * in how many timed diffs it took part). Building the next state is not part of the diff
 * (CAPTURE builds it when it commits it, after the change log); it is timed beside DuckDB keeping
 * its own next state, the (key, row hash) table, before the join. Also shown: the diff with the
 * state read from its file, on input rows in another order than the state's, the state's commit
 * (write + fsync + rename), the state file's size per million keys, and the memory one diff
 * allocates (in a child process).
 */

const ROWS = 1_000_000;
const RUNS = 5;
const DATA_DIR = resolve(__dirname, '..', '..', 'bench', '.data');

const COLUMNS: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'email', type: { base: 'string' } },
  { name: 'amount', type: { base: 'decimal', precision: 18, scale: 2 } },
  { name: 'qty', type: { base: 'int' } },
  { name: 'price', type: { base: 'double' } },
  { name: 'updated', type: { base: 'datetime' } },
  { name: 'active', type: { base: 'bool' } },
];

const OPTIONS: CaptureOptions = {
  keys: ['id'],
  inserts: true,
  updates: true,
  deletes: true,
  ignoreDups: false,
  initOnFirstRun: false,
};

export interface Workload {
  previous: Dataset;
  current: Dataset;
  expected: { inserted: number; updated: number; deleted: number };
}

/**
 * The parts as one string as readers make them (CSV, JSON): a flat sequence of characters. `a + b`
 * or a template literal of 13 characters or more is a rope (V8's ConsString), slower to read.
 */
function flat(...parts: string[]): string {
  return parts.join('');
}

function record(id: number, random: () => number): Value[] {
  return [
    id,
    flat('customer ', String(Math.floor(random() * 50000))),
    flat('user', String(id), '@example.com'),
    parseDecimal((random() * 10000).toFixed(2)),
    Math.floor(random() * 100),
    Math.round(random() * 100000) / 100,
    new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * 365 * 86400) * 1000),
    random() < 0.5,
  ];
}

/** The previous run's rows, and this run's: the same order, with the changes spread at random. */
export function workload(): Workload {
  const random = seededRandom(7);
  const previous: Value[][] = [];
  for (let i = 0; i < ROWS; i++) previous.push(record(i + 1, random));
  const current: Value[][] = [];
  const expected = { inserted: 0, updated: 0, deleted: 0 };
  let nextId = ROWS + 1;
  for (const row of previous) {
    const dice = random();
    if (dice < 0.05) expected.deleted++;
    else if (dice < 0.15) {
      const changed = [...row];
      const c = 1 + (expected.updated % 7);
      changed[c] = changedValue(c, row[c]);
      current.push(changed);
      expected.updated++;
    } else current.push(row);
    if (random() < 0.05) {
      current.push(record(nextId++, random));
      expected.inserted++;
    }
  }
  return { previous: Dataset.fromRows(COLUMNS, previous), current: Dataset.fromRows(COLUMNS, current), expected };
}

/** A different value for column c, of the same representation. */
function changedValue(c: number, v: Value): Value {
  switch (COLUMNS[c].type.base) {
    case 'string':
      return flat(v as string, ' (changed)');
    case 'decimal':
      return (v as Decimal).plus(1);
    case 'int':
      return (v as number) + 1;
    case 'double':
      return (v as number) + 0.5;
    case 'datetime':
      return new Date((v as Date).getTime() + 1000);
    default:
      return !(v as boolean);
  }
}

/**
 * The rows of `ds` in another order, as a source would return them: each row's cells are new
 * values made in the new order (a selection of `ds` would reach its cells in scattered order,
 * which no reader produces).
 */
function shuffled(ds: Dataset): Dataset {
  const random = seededRandom(11);
  const order = Int32Array.from({ length: ds.rowCount }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return Dataset.fromRows(
    COLUMNS,
    Array.from(order, (r) => ds.row(r).map(freshValue)),
  );
}

function freshValue(v: Value): Value {
  if (typeof v === 'string') return Buffer.from(v).toString();
  if (typeof v === 'number') return Number(String(v));
  if (v instanceof Date) return new Date(v.getTime());
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) return parseDecimal(decimalText(v));
  return v;
}

function check(diff: CaptureDiff, expected: Workload['expected']): void {
  const { inserted, updated, deleted } = diff.counts;
  if (inserted !== expected.inserted || updated !== expected.updated || deleted !== expected.deleted) {
    throw new Error(`diff found ${JSON.stringify(diff.counts)}, expected ${JSON.stringify(expected)}`);
  }
  if (diff.upserts.rowCount !== inserted + updated || diff.deletes.rowCount !== deleted)
    throw new Error('streams disagree with counts');
}

// ----------------------------------------------------------------------------- DuckDB

async function csv(path: string, ds: Dataset): Promise<void> {
  const out = createWriteStream(path);
  const cols = COLUMNS.map((_, c) => ds.column(c));
  const text = (c: number, r: number) => String(cols[c][r]);
  let chunk = '';
  for (let r = 0; r < ds.rowCount; r++) {
    const d = cols[6][r] as Date;
    chunk += `${text(0, r)},${text(1, r)},${text(2, r)},${decimalText(cols[3][r] as Decimal)},${text(4, r)},${text(5, r)},${d.toISOString().slice(0, 19).replace('T', ' ')},${text(7, r)}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((done) => out.once('drain', () => done()));
      chunk = '';
    }
  }
  await new Promise<void>((done) => out.end(chunk, () => done()));
}

interface DuckDiff {
  /** Runs the diff query once; `withNext` first keeps the (key, row hash) table a next run would compare with. */
  run(withNext: boolean): Promise<unknown>;
  /** The number of changes of each kind the last run found. */
  counts(): Promise<Record<string, number>>;
  close(): void;
}

/** DuckDB with the current rows and the previous (key, row hash) table loaded, ready to diff. */
async function duckdb(load: Workload, dir: string): Promise<DuckDiff> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DuckDBInstance } = require('@duckdb/node-api') as typeof import('@duckdb/node-api');
  await csv(join(dir, 'previous.csv'), load.previous);
  await csv(join(dir, 'current.csv'), load.current);
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  const types = `{'id': 'INTEGER', 'name': 'VARCHAR', 'email': 'VARCHAR', 'amount': 'DECIMAL(18,2)', 'qty': 'INTEGER', 'price': 'DOUBLE', 'updated': 'TIMESTAMP', 'active': 'BOOLEAN'}`;
  const read = (file: string) => `read_csv('${join(dir, file)}', header = false, columns = ${types})`;
  const rowHash = 'hash(name, email, amount, qty, price, updated, active)';
  await db.run(`CREATE TABLE current AS SELECT * FROM ${read('current.csv')}`);
  await db.run(`CREATE TABLE previous AS SELECT id, ${rowHash} AS h FROM ${read('previous.csv')}`);
  const changes = (hashed: string) =>
    `CREATE OR REPLACE TEMP TABLE changes AS
     SELECT coalesce(c.id, p.id) AS id, CASE WHEN p.id IS NULL THEN 'I' WHEN c.id IS NULL THEN 'D' ELSE 'U' END AS kind
     FROM ${hashed} c FULL OUTER JOIN previous p ON c.id = p.id
     WHERE p.id IS NULL OR c.id IS NULL OR c.h <> p.h`;
  return {
    run: async (withNext) => {
      if (!withNext) return db.run(changes(`(SELECT id, ${rowHash} AS h FROM current)`));
      await db.run(`CREATE OR REPLACE TEMP TABLE next AS SELECT id, ${rowHash} AS h FROM current`);
      return db.run(changes('next'));
    },
    counts: async () => {
      const rows = (await db.runAndReadAll('SELECT kind, count(*)::INTEGER FROM changes GROUP BY kind')).getRows();
      return Object.fromEntries(rows.map(([kind, n]) => [String(kind), Number(n)]));
    },
    close: () => instance.closeSync(),
  };
}

// ----------------------------------------------------------------------------- memory (child)

interface Memory {
  /** RSS once the rows and the state exist (after a full collection). */
  baseRss: number;
  /** The highest RSS seen during the diff and the building of the next state. */
  peakRss: number;
}

/**
 * In a child with --expose-gc, so that the figures are one diff's: a worker thread samples the
 * process's RSS every millisecond while the main thread runs the diff.
 */
async function memoryChild(): Promise<void> {
  const load = workload();
  const state = atOnce(captureDiff(load.previous, OPTIONS, undefined, 'bench').next!());
  (globalThis as { gc?: () => void }).gc!();
  const shared = new Int32Array(new SharedArrayBuffer(8));
  const peak = new Float64Array(new SharedArrayBuffer(8));
  const sampler = new Worker(
    `const { workerData: [flag, peak] } = require('node:worker_threads');
     while (Atomics.load(flag, 0) === 0) { peak[0] = Math.max(peak[0], process.memoryUsage.rss()); Atomics.wait(flag, 1, 0, 1); }`,
    { eval: true, workerData: [shared, peak] },
  );
  await new Promise((online) => sampler.once('online', online));
  const baseRss = process.memoryUsage.rss();
  const diff = captureDiff(load.current, OPTIONS, state, 'bench');
  const next = atOnce(diff.next!());
  Atomics.store(shared, 0, 1);
  await sampler.terminate();
  check(diff, load.expected);
  if (next.hashes.length !== 2 * load.current.rowCount) throw new Error('the next state lacks records');
  const result: Memory = { baseRss, peakRss: Math.max(peak[0], process.memoryUsage.rss()) };
  process.stdout.write(JSON.stringify(result));
}

// ----------------------------------------------------------------------------- report

const ms = (s: number) => `${(s * 1000).toFixed(0).padStart(6)} ms`;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

export async function runCdcBench(): Promise<void> {
  console.log(
    `cdc: CAPTURE diff, ${ROWS.toLocaleString('en-US')} rows × ${COLUMNS.length} columns against a ${ROWS.toLocaleString('en-US')}-key state (best of ${RUNS})`,
  );
  const load = workload();
  const { expected } = load;
  console.log(`  changes: ${expected.updated} updated, ${expected.inserted} inserted, ${expected.deleted} deleted`);
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-cdc-'));
  try {
    const first = captureDiff(load.previous, OPTIONS, undefined, 'bench');
    const state: CdcState = atOnce(first.next!());
    const file = join(dir, 'state', 'bench.state');
    const commit = await best(
      RUNS,
      () => writeState(file, state),
      () => undefined,
    );
    const size = statSync(file).size;

    mkdirSync(DATA_DIR, { recursive: true });
    const duck = await duckdb(load, dir);
    // Taken in turns, so that both see the same machine (it is shared): best of each. Each of ours
    // starts after a full garbage collection, so that none pays for the garbage of the one before.
    const fastest = { diff: Infinity, duck: Infinity, diffNext: Infinity, duckNext: Infinity };
    const turn = async <T>(which: keyof typeof fastest, run: () => T | Promise<T>, verify: (result: T) => void) => {
      fastest[which] = Math.min(fastest[which], await best(1, run, verify, collectGarbage));
    };
    const jobs = handedOver();
    for (let i = 0; i < RUNS; i++) {
      await turn(
        'diff',
        () => captureDiff(load.current, OPTIONS, state, file),
        (d: CaptureDiff) => check(d, expected),
      );
      await turn(
        'duck',
        () => duck.run(false),
        () => undefined,
      );
      await turn(
        'diffNext',
        () => {
          const diff = captureDiff(load.current, OPTIONS, state, file);
          return { diff, next: atOnce(diff.next!()) };
        },
        ({ diff, next }: { diff: CaptureDiff; next: CdcState }) => {
          check(diff, expected);
          if (next.hashes.length !== 2 * load.current.rowCount) throw new Error('the next state lacks records');
        },
      );
      await turn(
        'duckNext',
        () => duck.run(true),
        () => undefined,
      );
    }
    const threaded = handedOver() - jobs;
    const inMemory = fastest.diff;
    const duckSeconds = fastest.duck;
    const want = { D: expected.deleted, I: expected.inserted, U: expected.updated };
    const found = await duck.counts();
    duck.close();
    if (found.D !== want.D || found.I !== want.I || found.U !== want.U)
      throw new Error(`DuckDB found ${JSON.stringify(found)}, expected ${JSON.stringify(want)}`);

    const fromFile = await best(
      RUNS,
      async () => captureDiff(load.current, OPTIONS, await readState(file), file),
      (d) => check(d, expected),
      collectGarbage,
    );
    const other = shuffled(load.current);
    const reordered = await best(
      RUNS,
      () => captureDiff(other, OPTIONS, state, file),
      (d) => check(d, expected),
      collectGarbage,
    );
    const memory = JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', __filename, '--memory'], { encoding: 'utf8', maxBuffer: 1 << 20 }),
    ) as Memory;

    const ratio = inMemory / duckSeconds;
    const line = (label: string, seconds: number, note = '') =>
      console.log(`  ${label.padEnd(46)} ${ms(seconds)}  ${(ROWS / seconds / 1e6).toFixed(2)}M rows/s${note}`);
    line('DuckDB full outer join + row hash', duckSeconds);
    line(
      'captureDiff, state in memory',
      inMemory,
      `   ratio ${ratio.toFixed(2)}x (goal ≤ 2x): ${ratio <= 2 ? 'met' : 'MISSED'}`,
    );
    line('DuckDB, keeping (key, row hash) as next state', fastest.duckNext);
    line(
      'captureDiff + building the next state',
      fastest.diffNext,
      `   ratio ${(fastest.diffNext / fastest.duckNext).toFixed(2)}x`,
    );
    line('readState + captureDiff', fromFile, `   ratio ${(fromFile / duckSeconds).toFixed(2)}x`);
    line(
      'captureDiff, input shuffled against the state',
      reordered,
      `   ratio ${(reordered / duckSeconds).toFixed(2)}x`,
    );
    line('commit the next state (write, fsync, rename)', commit);
    console.log(`  the worker thread matched keys and hashed typed columns in ${threaded} of ${2 * RUNS} timed diffs`);
    console.log(
      `  state file: ${mb(size)} for ${ROWS.toLocaleString('en-US')} keys = ${mb(size / (ROWS / 1e6))} per million keys (${(size / ROWS).toFixed(1)} bytes a key)`,
    );
    console.log(
      `  memory of one diff (child process): RSS ${mb(memory.baseRss)} with the rows and the state loaded, ` +
        `peak ${mb(memory.peakRss)} during the diff and the next state (+${mb(memory.peakRss - memory.baseRss)})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module && process.argv[2] === '--memory') void memoryChild();
