import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertJupyter, PY_DIR, ROOT, runPython, skipWithoutJupyter, withTempDir, type RunResult } from './jupyter';

/**
 * Every notebooks/*.ipynb is checked documentation: it is committed with its outputs, and the suite
 * runs it again on the kernel through nbclient (test/kernel/py/notebooks.py --check) and fails when
 * an output differs from the stored one, as nbval does. `npm run notebooks` stores new outputs.
 */
const NOTEBOOK_DIR = join(ROOT, 'notebooks');
const NOTEBOOKS = readdirSync(NOTEBOOK_DIR)
  .filter((f) => f.endsWith('.ipynb'))
  .sort();
const MODULES = ['nbclient', 'nbformat', 'jupyter_client'];
const DRIVER = join(PY_DIR, 'notebooks.py');

interface Output {
  output_type: string;
  text?: string | string[];
}

interface Cell {
  cell_type: string;
  execution_count?: number | null;
  metadata?: { tags?: string[] };
  outputs?: Output[];
}

function cellsOf(path: string): Cell[] {
  return (JSON.parse(readFileSync(path, 'utf8')) as { cells: Cell[] }).cells.filter((c) => c.cell_type === 'code');
}

function runDriver(args: string[], limitSeconds?: number): Promise<RunResult> {
  return runPython([DRIVER, ...args], { cwd: ROOT, env: { SQLCDC_NODE: process.execPath }, limitSeconds });
}

/**
 * One `notebooks.py --check` of every notebook, started by the first test that needs it: one Python
 * and one kernelspec install for all of them (each notebook still gets a kernel and a workspace of
 * its own), where a run per notebook spent seconds on each. It names each notebook that matched.
 */
let allChecked: Promise<RunResult> | undefined;
const checkAll = () =>
  (allChecked ??= runDriver(
    ['--check', ...NOTEBOOKS.map((name) => join(NOTEBOOK_DIR, name))],
    // The bound of a hung run, per notebook as when each ran alone.
    300 * NOTEBOOKS.length,
  ));

test('notebooks/ has the getting-started notebook', () => {
  assert.ok(NOTEBOOKS.includes('getting-started.ipynb'));
});

for (const name of NOTEBOOKS) {
  test(
    `notebooks/${name} is committed with its outputs, and a new run gives the same outputs`,
    { skip: skipWithoutJupyter(MODULES) },
    async () => {
      assertJupyter(MODULES);
      const cells = cellsOf(join(NOTEBOOK_DIR, name));
      assert.ok(cells.length > 0, 'a notebook without code cells documents nothing runnable');
      for (const [i, cell] of cells.entries()) {
        assert.equal(
          typeof cell.execution_count,
          'number',
          `code cell ${i + 1} is stored without being run: run npm run notebooks`,
        );
        // A cell tagged raises-exception documents an error (nbclient's tag): it must show one; no other cell may.
        const errors = (cell.outputs ?? []).filter((o) => o.output_type === 'error').length;
        if (cell.metadata?.tags?.includes('raises-exception'))
          assert.equal(errors, 1, `code cell ${i + 1} is tagged raises-exception but is stored without its error`);
        else assert.equal(errors, 0, `code cell ${i + 1} is stored with an error`);
      }
      const r = await checkAll();
      assert.match(
        r.stdout,
        new RegExp(`^notebooks/${name.replace(/\./g, '\\.')}: outputs match$`, 'm'),
        `${r.stdout}${r.stderr}`,
      );
    },
  );
}

const SCRATCH = {
  cells: [
    { cell_type: 'code', execution_count: null, id: 'c1', metadata: {}, outputs: [], source: ["PRINT 'hello';"] },
    {
      cell_type: 'code',
      execution_count: null,
      id: 'c2',
      metadata: {},
      outputs: [],
      source: ["PRINT '#rndguid() #rndguid()';"],
    },
    {
      cell_type: 'code',
      execution_count: null,
      id: 'c3',
      metadata: {},
      outputs: [],
      source: ["SELECT * FROM DRIVE 'items.csv';\n", "ADD COLUMN 'batch=#rndguid()';"],
    },
  ],
  metadata: { kernelspec: { display_name: 'SQL CDC', language: 'sql', name: 'sqlcdc' } },
  nbformat: 4,
  nbformat_minor: 5,
};

test(
  'npm run notebooks stores outputs that a new run matches despite fresh GUIDs; a changed output fails the check with a diff',
  { skip: skipWithoutJupyter(MODULES) },
  async () => {
    assertJupyter(MODULES);
    await withTempDir('notebook-check', async (dir) => {
      const path = join(dir, 'scratch.ipynb');
      writeFileSync(join(dir, 'items.csv'), 'id,name\n1,lamp\n2,door\n');
      writeFileSync(path, JSON.stringify(SCRATCH));

      const unrun = await runDriver(['--check', path]);
      assert.equal(unrun.code, 1, 'a notebook stored without outputs fails the check');
      assert.match(
        unrun.stdout,
        /code cell 1 \(PRINT 'hello';\) differs:\n--- stored outputs\n\+\+\+ outputs of this run\n/,
      );
      assert.match(unrun.stdout, /run `npm run notebooks` to regenerate/);

      const stored = await runDriver([path]);
      assert.equal(stored.code, 0, stored.stdout + stored.stderr);
      assert.match(stored.stdout, /outputs stored/);
      const first = readFileSync(path, 'utf8');
      const cells = cellsOf(path);
      assert.deepEqual(
        cells.map((c) => c.execution_count),
        [1, 2, 3],
      );
      assert.deepEqual(cells[0].outputs, [{ name: 'stdout', output_type: 'stream', text: ['hello\n'] }]);
      assert.match(String(cells[1].outputs?.[0].text), /^[0-9a-f-]{36} [0-9a-f-]{36}\n$/);
      assert.equal(cells[2].outputs?.[0].output_type, 'execute_result');

      // The GUIDs differ on every run; masked, the outputs are the same, so nothing is rewritten.
      assert.equal((await runDriver(['--check', path])).code, 0);
      const again = await runDriver([path]);
      assert.match(again.stdout, /outputs unchanged/);
      assert.equal(readFileSync(path, 'utf8'), first);

      // Two GUIDs that were different must stay different: masking numbers them, it does not merge them.
      const [a, b] = String(cells[1].outputs?.[0].text).trim().split(' ');
      writeFileSync(path, first.replace('hello\\n', 'hullo\\n').replace(`${a} ${b}`, `${a} ${a}`));
      const changed = await runDriver(['--check', path]);
      assert.equal(changed.code, 1);
      assert.match(changed.stdout, /code cell 1 \(PRINT 'hello';\) differs:[^]*\n-hullo\n\+hello\n/);
      assert.match(
        changed.stdout,
        /code cell 2 \(PRINT '#rndguid\(\) #rndguid\(\)';\) differs:[^]*\n-<guid 1> <guid 1>\n\+<guid 1> <guid 2>\n/,
      );
      assert.doesNotMatch(changed.stdout, /code cell 3/);
      assert.match(changed.stdout, /run `npm run notebooks` to regenerate the stored outputs/);
    });
  },
);
