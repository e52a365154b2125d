import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQLCDC, tempDir } from './harness';

// The REPL in a real pseudo-terminal (Python's pty module drives it): what piped tests cannot see —
// the prompt, Tab completion, Ctrl-C on a half-typed statement, Ctrl-D.
const DRIVER = join(__dirname, '..', '..', '..', 'test', 'repl', 'py', 'tty_driver.py');

type Step = ['send' | 'expect', string];

function drive(steps: Step[]): { status: number | null; transcript: string } {
  const dir = tempDir('tty');
  writeFileSync(join(dir, 'items.csv'), 'id,name\n1,lamp\n');
  const stepsFile = join(dir, 'steps.json');
  writeFileSync(stepsFile, JSON.stringify(steps));
  const r = spawnSync('/usr/bin/python3', [DRIVER, stepsFile, '--', process.execPath, SQLCDC], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, SQLCDC_HOME: join(dir, 'ws'), NO_COLOR: '1', TERM: 'xterm', COLUMNS: '100' },
    timeout: 60_000,
  });
  return { status: r.status, transcript: r.stdout + r.stderr };
}

test(
  'in a terminal: banner and prompt, Tab completes a keyword and a column, Ctrl-C drops a line, Ctrl-D exits',
  { timeout: 90_000 },
  () => {
    const { status, transcript } = drive([
      ['expect', 'sqlcdc> '],
      ['send', "SELECT * FROM DRIVE 'items.csv';\r"],
      ['expect', 'lamp.*sqlcdc> '],
      ['send', 'APPLY FILT\t'],
      ['expect', 'APPLY FILTER'],
      ['send', " 'na\t"],
      ['expect', "'name"],
      ['send', '\x03'],
      ['expect', 'sqlcdc> '],
      ['send', "PRINT 'after ctrl-c';\r"],
      ['expect', 'after ctrl-c'],
      ['send', '\x04'],
    ]);
    assert.equal(status, 0, transcript);
    assert.match(transcript, /SQL CDC REPL/);
  },
);

test(
  'in a terminal: .help describes .editor for SQL CDC, and .editor runs what was typed as one cell on Ctrl-D',
  { timeout: 90_000 },
  () => {
    const { status, transcript } = drive([
      ['expect', 'sqlcdc> '],
      ['send', '.help\r'],
      ['expect', '\\.editor +Type or paste several statements; Ctrl-D runs them as one cell'],
      ['expect', 'sqlcdc> '],
      ['send', '.editor\r'],
      ['send', "SELECT * FROM DRIVE 'items.csv';\rPRINT 'in one cell: #data.count() row';\r"],
      ['send', '\x04'],
      ['expect', 'in one cell: 1 row.*lamp.*sqlcdc> '],
      ['send', '\x04'],
    ]);
    assert.equal(status, 0, transcript);
    assert.doesNotMatch(transcript, /JavaScript|\bJS\b/);
  },
);
