import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { removeTempDir, tempDir } from '../helpers/temp';
import { writeItems } from './items';

/**
 * What the Jupyter tests share: Debian's Python with the Jupyter packages, the kernelspec installed
 * into a temporary prefix (never the user's), and a runner for the Python driver scripts.
 */

/** Debian's interpreter: the `python3` on PATH may be another one without the Jupyter packages. */
export const PYTHON = '/usr/bin/python3';
export const ROOT = resolve(__dirname, '..', '..', '..');
export const PY_DIR = join(ROOT, 'test', 'kernel', 'py');
export const INSTALL_HINT =
  'apt-get install -y python3-jupyter-client jupyter-client jupyter-console python3-nbclient jupyter-nbconvert python3-jupyter-kernel-test python3-ipykernel';

function missing(modules: string[]): string | undefined {
  const r = spawnSync(PYTHON, ['-c', `import ${modules.join(', ')}`], { encoding: 'utf8' });
  if (r.status === 0) return undefined;
  return `needs ${modules.join(', ')} under ${PYTHON}; install them with: ${INSTALL_HINT}`;
}

/**
 * For `test(name, { skip: skipWithoutJupyter([...]) }, …)`: a skip message when the packages are
 * missing, except in CI (CI set), where the test runs and `assertJupyter` fails it.
 */
export function skipWithoutJupyter(modules: string[]): string | false {
  const why = missing(modules);
  return why && !process.env.CI ? why : false;
}

export function assertJupyter(modules: string[]): void {
  const why = missing(modules);
  assert.ok(!why, why);
}

export interface Kernelspec {
  /** JUPYTER_PATH value that makes the kernelspec visible. */
  jupyterPath: string;
  dir: string;
  cleanup(): void;
}

/** `node install.js --prefix <tmp>`: the test sees our kernelspec, and only through JUPYTER_PATH. */
export function installKernelspec(): Kernelspec {
  const dir = tempDir('kernelspec');
  const env = { ...process.env };
  delete env.npm_lifecycle_event;
  const r = spawnSync(process.execPath, [join(ROOT, 'install.js'), '--prefix', dir], { encoding: 'utf8', env });
  assert.equal(r.status, 0, `install.js failed: ${r.stderr}`);
  return {
    jupyterPath: join(dir, 'share', 'jupyter'),
    dir,
    cleanup: () => removeTempDir(dir),
  };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs Debian's Python on a driver script with the kernelspec visible and a fresh workspace.
 * `limitSeconds` only bounds a hung run (a kernel that never answers); it is not a timing check.
 */
export function runPython(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; limitSeconds?: number } = {},
): Promise<RunResult> {
  return new Promise((done) => {
    const child = spawn(PYTHON, args, {
      cwd: options.cwd ?? PY_DIR,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const limit = setTimeout(
      () => {
        stderr += `\n[killed after ${options.limitSeconds ?? 300} s]`;
        child.kill('SIGKILL');
      },
      (options.limitSeconds ?? 300) * 1000,
    );
    child.on('close', (code) => {
      clearTimeout(limit);
      done({ code, stdout, stderr });
    });
  });
}

/** A temporary folder (`sqlcdc-<area>-…`) removed when `fn` ends. */
export async function withTempDir<T>(area: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = tempDir(area);
  try {
    return await fn(dir);
  } finally {
    removeTempDir(dir);
  }
}

/**
 * Runs a unittest module of test/kernel/py against our kernelspec, in a fresh folder holding
 * items.csv with the workspace inside it; the kernelspec and the folder are removed afterwards.
 */
export async function runKernelSuite(module: string): Promise<RunResult> {
  const spec = installKernelspec();
  try {
    return await withTempDir(module, (dir) => {
      writeItems(dir);
      return runPython(['-m', 'unittest', '-v', module], {
        cwd: dir,
        env: {
          JUPYTER_PATH: spec.jupyterPath,
          JUPYTER_RUNTIME_DIR: dir,
          SQLCDC_HOME: join(dir, 'workspace'),
          PYTHONPATH: PY_DIR,
          SQLCDC_ROOT: ROOT,
          SQLCDC_NODE: process.execPath,
        },
      });
    });
  } finally {
    spec.cleanup();
  }
}
