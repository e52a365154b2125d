import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run bench -- cli`: what a terminal user waits for. Start-up: `sqlcdc run` of one PRINT,
 * `sqlcdc job list` and `sqlcdc --version`, beside `node -e 0` (Node's own start) in the same run.
 * Printing: `sqlcdc run` of a SELECT of 160,000 CSV rows printed as a table, beside `column -t` laying
 * out the same file. Best wall time of several runs each; goals: start-up under 5× Node's own,
 * printing under 3× `column`.
 */

const SQLCDC = join(__dirname, '..', 'bin', 'sqlcdc.js');
const RUNS = 7;
const ROWS = 160_000;

function bestOf(runs: number, command: string, args: string[], cwd: string): number {
  let fastest = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (r.status !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${r.status}: ${String(r.stderr)}`);
    fastest = Math.min(fastest, seconds);
  }
  return fastest;
}

const ms = (s: number) => `${(s * 1000).toFixed(0).padStart(6)} ms`;
const verdict = (ratio: number, goal: number) =>
  `${ratio.toFixed(1)}× (goal ≤ ${goal}×)${ratio <= goal ? '' : '  ABOVE GOAL'}`;

export async function runCliBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-cli-'));
  try {
    mkdirSync(join(dir, 'scripts'));
    writeFileSync(join(dir, 'scripts', 'print.sql'), "PRINT 'hi';\n");
    writeFileSync(join(dir, 'scripts', 'table.sql'), "SELECT * FROM DRIVE 'rows.csv';\n");
    const lines = ['n,label'];
    for (let i = 0; i < ROWS; i++) lines.push(`${i},row${i}`);
    writeFileSync(join(dir, 'rows.csv'), `${lines.join('\n')}\n`);
    const cli = (...args: string[]) => bestOf(RUNS, process.execPath, [SQLCDC, ...args, '--workspace', 'ws'], dir);
    cli('--version'); // makes the workspace-free warm-up: the first run pays the file cache

    const node = bestOf(RUNS, process.execPath, ['-e', '0'], dir);
    console.log(`cli: start-up and printing, best of ${RUNS}`);
    console.log(`  node -e 0 (Node's own start)    ${ms(node)}`);
    for (const [label, args] of [
      ['sqlcdc --version', ['--version']],
      ['sqlcdc run (one PRINT)', ['run', 'scripts/print.sql']],
      ['sqlcdc job list', ['job', 'list']],
    ] as const) {
      const t = cli(...args);
      console.log(`  ${label.padEnd(31)} ${ms(t)}   ${verdict(t / node, 5)}`);
    }
    const column = bestOf(3, 'column', ['-t', '-s', ',', 'rows.csv'], dir);
    const table = bestOf(3, process.execPath, [SQLCDC, 'run', 'scripts/table.sql', '--workspace', 'ws'], dir);
    console.log(`  column -t of ${ROWS.toLocaleString('en-US')} rows           ${ms(column)}`);
    console.log(`  sqlcdc run printing them        ${ms(table)}   ${verdict(table / column, 3)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
