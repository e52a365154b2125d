import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli as sqlcdc } from '../helpers/cli';
import { tempDir } from '../helpers/session';
import { DocPage } from './harness';

/**
 * docs/repl.md's sessions replay: what is typed at its prompts is piped into `sqlcdc`, which then
 * prints the page's output lines (no prompts or banner without a terminal); with -i, the banner.
 */
const page = new DocPage('repl.md');
const PROMPT = /^(sqlcdc>| {3}\.\.\.>) ?/;

/** The typed lines of a transcript, and the lines printed after the first prompt. */
function split(transcript: string): { typed: string; printed: string[] } {
  const lines = transcript.replace(/\n$/, '').split('\n');
  const first = lines.findIndex((l) => PROMPT.test(l));
  const after = lines.slice(first);
  return {
    typed: `${after
      .filter((l) => PROMPT.test(l))
      .map((l) => l.replace(PROMPT, ''))
      .join('\n')}\n`,
    printed: after.filter((l) => !PROMPT.test(l)),
  };
}

function folder(): string {
  const project = tempDir('docs-repl');
  mkdirSync(join(project, '.sqlcdc'));
  mkdirSync(join(project, 'pipelines'));
  writeFileSync(join(project, 'pipelines', 'items.csv'), 'id,name,amount\n1,lamp,12.50\n2,fridge,499.99\n3,door,80\n');
  return project;
}

for (const start of ['$ cd ~/project/pipelines && sqlcdc', "sqlcdc> PRINT 'ok';"]) {
  test(`the session "${start}" prints what the page shows`, async () => {
    const block = page.take(start, 'text');
    const { typed, printed } = split(block.code);
    const project = folder();
    const r = await sqlcdc(join(project, 'pipelines'), [], { input: typed });
    assert.deepEqual(`${r.stdout}${r.stderr}`.replace(/\n$/, '').split('\n'), printed);
  });
}

test('the banner names the workspace found in a parent folder', async () => {
  const block = page.take('$ cd ~/project/pipelines && sqlcdc', 'text');
  const project = folder();
  const r = await sqlcdc(join(project, 'pipelines'), ['-i'], { input: '' });
  const banner = block.code.split('\n').slice(1, 3).join('\n').replace('/home/me/project', project);
  assert.ok(r.stdout.startsWith(banner), r.stdout);
});
