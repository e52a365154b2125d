import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `npm run bench -- kernel`: start-to-ready, execute-to-idle and interrupt latency of the sqlcdc
 * kernel and of Debian's ipykernel, both driven by jupyter_client in the same run (bench/kernel.py).
 * The interrupted cell waits on an HTTP server that never answers, in both kernels.
 * Goals: execute-to-idle p50 at most half of ipykernel's; ready within 1 s; interrupt under 100 ms.
 */

const ROOT = resolve(__dirname, '..', '..');
const PYTHON = '/usr/bin/python3';
const STARTS = 5;
const EXECUTES = 100;
const INTERRUPTS = 5;

/**
 * The trivial cells, by name; each kernel's cell of a name does the same work, so that both send the
 * same IOPub messages: `printed` writes one line (busy, execute_input, stream, idle), `quiet` nothing
 * (busy, execute_input, idle). SQL CDC has no statement without output but a comment: its quiet
 * cell is one, parsed and run through the whole execute path.
 */
const TRIVIAL = ['printed', 'quiet'] as const;
type Trivial = (typeof TRIVIAL)[number];

interface KernelCase {
  kernel: string;
  trivial: Record<Trivial, string>;
  setup: string;
  long: string;
}

const SQLCDC: KernelCase = {
  kernel: 'sqlcdc',
  trivial: { printed: "PRINT 'x';", quiet: '-- nothing to do' },
  setup: '%connection add hang http://127.0.0.1:{port}',
  long: 'SELECT * FROM HTTP [hang] (GET /never);',
};
const IPYKERNEL: KernelCase = {
  kernel: 'python3',
  trivial: { printed: "print('x')", quiet: 'x = 1' },
  setup: "import urllib.request; URL = 'http://127.0.0.1:{port}/never'",
  long: 'urllib.request.urlopen(URL)',
};

interface Figures {
  ready: number[];
  first: number[];
  execute: Record<Trivial, number[]>;
  interrupt: number[];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Both kernels in one run of bench/kernel.py, measured in turns so that they share the machine's load. */
function measure(cases: KernelCase[], env: NodeJS.ProcessEnv): Promise<Record<string, Figures>> {
  const config = JSON.stringify({ kernels: cases, starts: STARTS, executes: EXECUTES, interrupts: INTERRUPTS });
  return new Promise((done, fail) => {
    const child = spawn(PYTHON, [join(ROOT, 'bench', 'kernel.py'), config], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (status) =>
      status === 0 ? done(JSON.parse(out) as Record<string, Figures>) : fail(new Error(err)),
    );
  });
}

const ms = (s: number) => `${(s * 1000).toFixed(1)} ms`;

export async function runKernelBench(): Promise<void> {
  const prefix = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-'));
  try {
    const install = spawn(process.execPath, [join(ROOT, 'install.js'), '--prefix', prefix], { stdio: 'ignore' });
    await new Promise((r) => install.on('close', r));
    const env = {
      ...process.env,
      JUPYTER_PATH: join(prefix, 'share', 'jupyter'),
      JUPYTER_RUNTIME_DIR: prefix,
      SQLCDC_HOME: join(prefix, 'workspace'),
    };
    const figures = await measure([SQLCDC, IPYKERNEL], env);
    const ours = figures[SQLCDC.kernel];
    const ipy = figures[IPYKERNEL.kernel];

    const rows: [string, (f: Figures) => number][] = [
      ['start → ready, p50', (f) => percentile(f.ready, 50)],
      ['start → ready, max', (f) => Math.max(...f.ready)],
      ['first cell after ready, p50', (f) => percentile(f.first, 50)],
      ...TRIVIAL.flatMap((name): [string, (f: Figures) => number][] => [
        [`execute → idle, ${name}, p50`, (f) => percentile(f.execute[name], 50)],
        [`execute → idle, ${name}, p95`, (f) => percentile(f.execute[name], 95)],
      ]),
      [`interrupt → reply, max (${INTERRUPTS})`, (f) => Math.max(...f.interrupt)],
    ];
    console.log(
      `kernel latency through jupyter_client (${STARTS} starts, ${EXECUTES} executes of each trivial cell, ${INTERRUPTS} interrupts)`,
    );
    for (const c of [SQLCDC, IPYKERNEL])
      console.log(`  ${c.kernel.padEnd(9)} ${TRIVIAL.map((name) => `${name}: ${c.trivial[name]}`).join('   ')}`);
    console.log(`${'figure'.padEnd(32)}${'sqlcdc'.padStart(12)}${'ipykernel'.padStart(12)}${'ratio'.padStart(8)}`);
    for (const [name, of] of rows) {
      const a = of(ours);
      const b = of(ipy);
      console.log(`${name.padEnd(32)}${ms(a).padStart(12)}${ms(b).padStart(12)}${(a / b).toFixed(2).padStart(8)}`);
    }
    const p50 = Math.max(
      ...TRIVIAL.map((name) => percentile(ours.execute[name], 50) / percentile(ipy.execute[name], 50)),
    );
    const ready = Math.max(...ours.ready);
    const first = percentile(ours.first, 50) / percentile(ipy.first, 50);
    const interrupt = Math.max(...ours.interrupt);
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    console.log(
      `goals: execute p50 ≤ 0.5 × ipykernel (the larger ratio of the two cells): ${met(p50 <= 0.5)} (${p50.toFixed(2)}); ready within 1 s: ${met(ready <= 1)} (${ms(ready)}); ` +
        `first cell after ready p50 ≤ 2 × ipykernel (issue 16): ${met(first <= 2)} (${first.toFixed(2)}); ` +
        `interrupt under 100 ms: ${met(interrupt < 0.1)} (${ms(interrupt)})`,
    );
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
