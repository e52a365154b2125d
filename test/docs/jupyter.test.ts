import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli';
import { tempDir, tempSession } from '../helpers/session';
import { startKernel } from '../kernel/process';
import { columnOf, DocPage, runOk } from './harness';

/** docs/jupyter.md's cell runs in a session beside the notebooks' data folder, as a cell would. */
const page = new DocPage('jupyter.md');
const { session, dir } = tempSession({}, 'docs-jupyter');
mkdirSync(join(dir, 'data'));
copyFileSync(resolve(__dirname, '../../../notebooks/data/orders.json'), join(dir, 'data/orders.json'));
after(() => session.close());

test('a cell: the orders read and filtered to the shipped ones', async () => {
  const block = page.take("SELECT * FROM DRIVE 'data/orders.json'");
  await runOk(session, block.code, `jupyter.md:${block.line}`);
  assert.deepEqual(columnOf(session, 'id'), ['1001', '1003', '1005']);
});

test("the kernel's first log line, and a terminal attached to it with repl --existing, as the page shows them", async (t) => {
  const log = page.take('[sqlcdc kernel] workspace', 'text');
  const project = tempDir('docs-jupyter-project');
  mkdirSync(join(project, '.sqlcdc'));
  mkdirSync(join(project, 'notebooks', 'data'), { recursive: true });
  copyFileSync(resolve(__dirname, '../../../notebooks/data/orders.json'), join(project, 'notebooks/data/orders.json'));
  // A notebook of project/notebooks/: the kernel runs in its folder and finds project/.sqlcdc.
  const { file, firstLine } = await startKernel(t, {
    dir: tempDir('docs-jupyter-kernel'),
    cwd: join(project, 'notebooks'),
    env: { SQLCDC_HOME: undefined },
  });
  assert.equal(firstLine, log.code.trim().replace('/home/me/project', project));
  // The notebook's cell loads the orders; then the page's terminal session.
  const cell = "SELECT * FROM DRIVE 'data/orders.json' FORMAT JSON APPLY TX '$.orders';\n";
  assert.equal((await runCli(project, ['repl', '--existing', file], { input: cell })).code, 0);
  const transcript = page.take('$ sqlcdc repl --existing', 'text').code.trimEnd().split('\n').slice(1);
  const typed = transcript.filter((l) => l.startsWith('sqlcdc> ')).map((l) => l.slice('sqlcdc> '.length));
  const r = await runCli(project, ['repl', '--existing', file], { input: `${typed.join('\n')}\n` });
  assert.deepEqual(
    r.stdout.trimEnd().split('\n'),
    transcript.filter((l) => !l.startsWith('sqlcdc> ')),
  );
});

test('every example of docs/jupyter.md ran', () => page.assertEveryExampleRan());
