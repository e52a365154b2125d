import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { basename, join, resolve } from 'node:path';
import Papa from 'papaparse';
import { NARROW_SCHEMA, narrowFile } from './narrow-data';

/**
 * `npm run bench -- scale`: 10,000,000 generated rows of `id,name,amount,ts` (issue 14), loaded,
 * typed, filtered and formatted in one session, in a child process whose peak RSS is read after each
 * statement; beside papaparse parsing the same file to arrays in another child. Goals: the pipeline
 * runs (this machine has no swap: a run that does not fit fails instead of swapping), with a peak
 * RSS growth within 2x the file size through the typed load and within half the machine's memory
 * overall. `SCALE_ROWS` changes the row count.
 */
const ROWS = Number(process.env.SCALE_ROWS ?? 10_000_000);
const DATA_DIR = resolve(__dirname, '..', '..', 'bench', '.data');
const FILTER = "APPLY FILTER 'amount > 500 AND name LIKE ''name 1*''';";
const FORMAT = "ADD COLUMN 'doc' FORMAT JSON;";

interface Step {
  label: string;
  ms: number;
  rows: number;
  /** Peak RSS of the process so far. */
  peakRss: number;
}

interface ChildResult {
  baseRss: number;
  steps: Step[];
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

async function child(mode: string, path: string): Promise<void> {
  const steps: Step[] = [];
  // After the modules are loaded: the baseline is the process before reading.
  const { Session } = await import('../runtime/session');
  const baseRss = process.memoryUsage().rss;
  const timed = async (label: string, run: () => Promise<number> | number) => {
    const start = process.hrtime.bigint();
    const rows = await run();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    steps.push({ label, ms, rows, peakRss: process.resourceUsage().maxRSS * 1024 });
  };
  if (mode === 'papaparse') {
    await timed('papaparse to arrays', () => Papa.parse<string[]>(readFileSync(path, 'utf8')).data.length - 1);
  } else {
    const workspace = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-scale-'));
    const session = new Session({ cwd: DATA_DIR, workspace });
    const statement = (label: string, script: string) =>
      timed(label, async () => {
        await session.run(script);
        return session.dataset.rowCount;
      });
    try {
      await statement('SELECT * FROM DRIVE', `SELECT * FROM DRIVE '${basename(path)}';`);
      await statement('APPLY SCHEMA', NARROW_SCHEMA);
      await statement(FILTER, FILTER);
      await statement(FORMAT, FORMAT);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }
  const result: ChildResult = { baseRss, steps };
  process.stdout.write(JSON.stringify(result));
}

function measure(mode: string, path: string): ChildResult {
  const out = execFileSync(process.execPath, [__filename, '--child', mode, path], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out) as ChildResult;
}

export async function runScaleBench(): Promise<void> {
  const path = await narrowFile(join(DATA_DIR, `narrow-${ROWS / 1e6}m.csv`), ROWS);
  const size = statSync(path).size;
  console.log(
    `scale: ${ROWS.toLocaleString('en-US')} rows of id,name,amount,ts, ${mb(size)} CSV, one child process each`,
  );
  const reference = measure('papaparse', path);
  const papa = reference.steps[0];
  const ours = measure('sqlcdc', path);
  let total = 0;
  for (const step of ours.steps) {
    total += step.ms;
    console.log(
      `  ${step.label.padEnd(58)} ${step.ms.toFixed(0).padStart(7)} ms  ${step.rows.toLocaleString('en-US').padStart(11)} rows  peak RSS ${mb(step.peakRss)}`,
    );
  }
  const [load, schema] = ours.steps;
  const typedGrowth = schema.peakRss - ours.baseRss;
  const peak = ours.steps[ours.steps.length - 1].peakRss;
  console.log(
    `  papaparse to arrays (reference)${' '.repeat(27)} ${papa.ms.toFixed(0).padStart(7)} ms  peak RSS ${mb(papa.peakRss)}`,
  );
  console.log(
    `  load + APPLY SCHEMA ${(load.ms + schema.ms).toFixed(0)} ms = ${((load.ms + schema.ms) / papa.ms).toFixed(2)}x papaparse; whole pipeline ${(total / 1000).toFixed(1)} s`,
  );
  const ratio = typedGrowth / size;
  console.log(
    `  memory: peak RSS growth through the typed load ${mb(typedGrowth)} = ${ratio.toFixed(2)}x the file size (goal ≤ 2x): ${ratio <= 2 ? 'met' : 'MISSED'}; papaparse alone ${((papa.peakRss - reference.baseRss) / size).toFixed(2)}x`,
  );
  console.log(
    `  memory: peak RSS of the whole pipeline ${mb(peak)} of ${mb(totalmem())} (goal ≤ half): ${peak <= totalmem() / 2 ? 'met' : 'MISSED'}`,
  );
}

if (require.main === module) {
  const [flag, mode, path] = process.argv.slice(2);
  const main = flag === '--child' ? child(mode, path) : runScaleBench();
  main.catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
