import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertJupyter, installKernelspec, ROOT, runPython, skipWithoutJupyter, withTempDir } from './jupyter';

/**
 * Every notebooks/*.ipynb is runnable documentation: executed as CI would with Debian's nbconvert on
 * the kernelspec installed into a temporary prefix; any cell error fails.
 */
const NOTEBOOK_DIR = join(ROOT, 'notebooks');
const NOTEBOOKS = readdirSync(NOTEBOOK_DIR).filter((f) => f.endsWith('.ipynb')).sort();
const MODULES = ['nbconvert', 'nbclient', 'jupyter_client'];

interface Cell {
  cell_type: string;
  execution_count?: number | null;
  outputs?: { output_type: string; ename?: string; evalue?: string }[];
}

test('notebooks/ has the getting-started notebook', () => {
  assert.ok(NOTEBOOKS.includes('getting-started.ipynb'));
});

for (const name of NOTEBOOKS) {
  test(`notebooks/${name} runs with nbconvert --execute and no cell error`, { skip: skipWithoutJupyter(MODULES) }, async () => {
    assertJupyter(MODULES);
    const spec = installKernelspec();
    try {
      await withTempDir('sqlcdc-notebook-', async (dir) => {
        const r = await runPython(
          ['-m', 'nbconvert', '--to', 'notebook', '--execute', '--ExecutePreprocessor.kernel_name=sqlcdc', '--output-dir', dir, join(NOTEBOOK_DIR, name)],
          { cwd: NOTEBOOK_DIR, env: { JUPYTER_PATH: spec.jupyterPath, JUPYTER_RUNTIME_DIR: dir, SQLCDC_HOME: join(dir, 'workspace') } },
        );
        assert.equal(r.code, 0, r.stderr);
        const cells = (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { cells: Cell[] }).cells.filter((c) => c.cell_type === 'code');
        assert.ok(cells.length > 0, 'a notebook without code cells documents nothing runnable');
        for (const [i, cell] of cells.entries()) {
          assert.equal(typeof cell.execution_count, 'number', `code cell ${i + 1} was not executed`);
          const errors = (cell.outputs ?? []).filter((o) => o.output_type === 'error');
          assert.deepEqual(errors, [], `code cell ${i + 1} failed`);
        }
      });
    } finally {
      spec.cleanup();
    }
  });
}
