import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `npm run bench -- kernel`: start-to-ready and execute-to-idle latency of the sqlcdc kernel and of
 * Debian's ipykernel, both driven by jupyter_client in the same run (bench/kernel.py).
 * Goals: execute-to-idle p50 at most half of ipykernel's; ready within 1 s.
 */

const ROOT = resolve(__dirname, '..', '..');
const PYTHON = '/usr/bin/python3';
const STARTS = 5;
const EXECUTES = 100;

interface Figures {
  ready: number[];
  first: number[];
  execute: number[];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function measure(kernel: string, code: string, env: NodeJS.ProcessEnv): Promise<Figures> {
  return new Promise((done, fail) => {
    const child = spawn(PYTHON, [join(ROOT, 'bench', 'kernel.py'), kernel, code, String(STARTS), String(EXECUTES)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (status) => (status === 0 ? done(JSON.parse(out) as Figures) : fail(new Error(`${kernel}: ${err}`))));
  });
}

const ms = (s: number) => `${(s * 1000).toFixed(1)} ms`;

export async function runKernelBench(): Promise<void> {
  const prefix = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-'));
  try {
    const install = spawn(process.execPath, [join(ROOT, 'install.js'), '--prefix', prefix], { stdio: 'ignore' });
    await new Promise((r) => install.on('close', r));
    const env = { ...process.env, JUPYTER_PATH: join(prefix, 'share', 'jupyter'), JUPYTER_RUNTIME_DIR: prefix, SQLCDC_HOME: join(prefix, 'workspace') };
    const ours = await measure('sqlcdc', "PRINT 'x';", env);
    const ipy = await measure('python3', 'x = 1', env);

    const rows: [string, (f: Figures) => number][] = [
      ['start → ready, p50', (f) => percentile(f.ready, 50)],
      ['start → ready, max', (f) => Math.max(...f.ready)],
      ['first cell after ready, p50', (f) => percentile(f.first, 50)],
      [`execute → idle, p50 (${EXECUTES})`, (f) => percentile(f.execute, 50)],
      [`execute → idle, p95 (${EXECUTES})`, (f) => percentile(f.execute, 95)],
    ];
    console.log(`kernel latency through jupyter_client (${STARTS} starts, ${EXECUTES} trivial executes)`);
    console.log(`${'figure'.padEnd(32)}${'sqlcdc'.padStart(12)}${'ipykernel'.padStart(12)}${'ratio'.padStart(8)}`);
    for (const [name, of] of rows) {
      const a = of(ours);
      const b = of(ipy);
      console.log(`${name.padEnd(32)}${ms(a).padStart(12)}${ms(b).padStart(12)}${(a / b).toFixed(2).padStart(8)}`);
    }
    const p50 = percentile(ours.execute, 50) / percentile(ipy.execute, 50);
    const ready = Math.max(...ours.ready);
    console.log(`goals: execute p50 ≤ 0.5 × ipykernel: ${p50 <= 0.5 ? 'met' : 'NOT met'} (${p50.toFixed(2)}); ready within 1 s: ${ready <= 1 ? 'met' : 'NOT met'} (${ms(ready)})`);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runKernelBench().catch((e) => {
    console.error((e as Error).message);
    process.exit(1);
  });
}
