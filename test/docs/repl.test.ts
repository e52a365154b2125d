import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { runCli as sqlcdc } from '../helpers/cli';
import { tempDir } from '../helpers/session';
import { SQLCDC } from '../repl/harness';
import { DOCS, DocPage } from './harness';
import { codeSpans, tableOf } from './tables';

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

/** The commands `.help` lists, from what the REPL printed. */
function helpCommands(printed: string): string[] {
  const lines = printed.split('\n');
  const from = lines.indexOf('REPL commands:') + 1;
  return lines.slice(from, lines.indexOf('', from)).map((l) => /^ {2}\.(\S+)/.exec(l)![1]);
}

const TTY_DRIVER = resolve(__dirname, '../../../test/repl/py/tty_driver.py');
const commandRows = tableOf(readFileSync(resolve(DOCS, 'repl.md'), 'utf8'), ['command', 'what it does']);
const commandOf = (row: string[]) => /^\.(\w+)/.exec(codeSpans(row[0])[0])![1];

/** What `.help` prints in a pseudo-terminal (test/repl/py/tty_driver.py drives it), line ends as `\n`. */
function helpInTerminal(): string {
  const dir = tempDir('docs-repl-tty');
  const steps = join(dir, 'steps.json');
  writeFileSync(
    steps,
    JSON.stringify([
      ['expect', 'sqlcdc> '],
      ['send', '.help\r'],
      ['expect', 'Documentation:[\\s\\S]*sqlcdc> '],
      ['send', '\x04'],
    ]),
  );
  const r = spawnSync('/usr/bin/python3', [TTY_DRIVER, steps, '--', process.execPath, SQLCDC], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, SQLCDC_HOME: join(dir, 'ws'), NO_COLOR: '1', TERM: 'xterm', COLUMNS: '200' },
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return r.stdout.replace(/\r\n?/g, '\n');
}

test("repl.md's table of REPL commands is the REPL's, as .help lists them in a terminal and on a pipe", async () => {
  assert.deepEqual(commandRows.map(commandOf).sort(), helpCommands(helpInTerminal()));
  // `.editor` is node's, made in a terminal only; the rows say which.
  const inTerminal = commandRows.filter((row) => row[1].startsWith('(in a terminal)')).map(commandOf);
  const r = await sqlcdc(folder(), [], { input: '.help\n' });
  assert.deepEqual(
    commandRows
      .map(commandOf)
      .filter((c) => !inTerminal.includes(c))
      .sort(),
    helpCommands(r.stdout),
  );
});

test('each REPL command does what its row says', async () => {
  const project = folder();
  const typed = [
    '.help',
    '%connection add shop https://127.0.0.1:9/api --bearer tok',
    "SELECT * FROM DRIVE 'items.csv';",
    '.doc APPLY FILTER',
    '.doc #utcnow',
    '.doc amount',
    '.doc %var',
    '.doc [shop]',
    '.save saved.sql',
    "SELECT * FROM DRIVE 'items.csv'",
    '.break',
    '.clear',
    "PRINT 'after .clear: #data.count() rows';",
    '.load saved.sql',
    "PRINT 'after .load: #data.count() rows';",
    '.hepl',
    '.exit',
    "PRINT 'after .exit';",
  ];
  const r = await sqlcdc(join(project, 'pipelines'), [], { input: `${typed.join('\n')}\n` });
  const out = r.stdout;
  for (const part of ['REPL commands:', 'Magics:', 'Keys:', 'Documentation:'])
    assert.ok(out.includes(`\n${part}\n`) || out.startsWith(part) || out.includes(`\n${part} `), part);
  assert.match(out, /\nAPPLY FILTER\nAPPLY FILTER \{ SQL/);
  assert.match(out, /\n#utcnow\(\[format\]\)\n/);
  assert.match(out, /\namount: string\ncolumn 3 of 3 of the pipeline dataset \(3 rows\)\n/);
  assert.match(out, /\n%var\n%var \[list\] \| /);
  assert.match(out, /\[shop\]/);
  assert.doesNotMatch(out, /tok\b/);
  // .save: the statement that ran, not the magic line (which may carry a secret).
  assert.equal(readFileSync(join(project, 'pipelines', 'saved.sql'), 'utf8'), "SELECT * FROM DRIVE 'items.csv';\n");
  assert.match(out, /\npipeline reset: empty dataset\nafter \.clear: 0 rows\n/);
  assert.match(out, /\nafter \.load: 3 rows\n/);
  assert.match(out, /\nunknown REPL command \.hepl: \.help lists them; did you mean \.help\?\n/);
  assert.doesNotMatch(out, /after \.exit/);
});
