import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startKernel } from '../kernel/process';
import { SQLCDC, tempDir } from './harness';

// The REPL in a real pseudo-terminal (Python's pty module drives it): what piped tests cannot see —
// the prompt, Tab completion, Ctrl-C on a half-typed statement, Ctrl-D.
const DRIVER = join(__dirname, '..', '..', '..', 'test', 'repl', 'py', 'tty_driver.py');

type Step = ['send' | 'expect' | 'post', string];

/** Runs `sqlcdc <args>` in a pseudo-terminal through the steps. */
function drive(steps: Step[], args: string[] = []): { status: number | null; transcript: string } {
  const dir = tempDir('tty');
  writeFileSync(join(dir, 'items.csv'), 'id,name\n1,lamp\n');
  const stepsFile = join(dir, 'steps.json');
  writeFileSync(stepsFile, JSON.stringify(steps));
  const r = spawnSync('/usr/bin/python3', [DRIVER, stepsFile, '--', process.execPath, SQLCDC, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, SQLCDC_HOME: join(dir, 'ws'), NO_COLOR: '1', TERM: 'xterm', COLUMNS: '100' },
    timeout: 60_000,
  });
  return { status: r.status, transcript: r.stdout + r.stderr };
}

test(
  'in a terminal: banner and prompt, Tab completes a keyword, a column and a .command, Ctrl-C drops a line, Ctrl-D exits',
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
      // A REPL command completes as node's REPL completes its own.
      ['send', '.he\t'],
      ['expect', '\\.help'],
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

/**
 * The screen a transcript leaves, one string per row: a small terminal model of what readline and
 * the REPL send (text, CR/LF, cursor to column, up/down/left/right, erase to end of line or screen).
 */
function screen(transcript: string): string[] {
  const rows: string[] = [''];
  let row = 0;
  let col = 0;
  const put = (ch: string) => {
    const line = rows[row].padEnd(col, ' ');
    rows[row] = line.slice(0, col) + ch + line.slice(col + 1);
    col++;
  };
  const ESC = String.fromCharCode(27);
  for (const m of transcript.matchAll(new RegExp(`${ESC}\\[(\\d*)([A-Za-z])|${ESC}[^[]|[^${ESC}]`, 'g'))) {
    if (m[2] === undefined) {
      if (m[0] === '\r') col = 0;
      else if (m[0] === '\n') {
        row++;
        if (row === rows.length) rows.push('');
      } else if (m[0].length === 1 && m[0] >= ' ') put(m[0]);
      continue;
    }
    const n = m[1] === '' ? 1 : Number(m[1]);
    if (m[2] === 'G') col = n - 1;
    else if (m[2] === 'A') row = Math.max(0, row - n);
    else if (m[2] === 'B') row = Math.min(rows.length - 1, row + n);
    else if (m[2] === 'C') col += n;
    else if (m[2] === 'D') col = Math.max(0, col - n);
    else if (m[2] === 'K') rows[row] = rows[row].slice(0, col);
    else if (m[2] === 'J') {
      rows[row] = rows[row].slice(0, col);
      rows.length = row + 1;
    }
  }
  return rows.map((r) => r.trimEnd());
}

/** A call arriving while a line is typed: shown above the prompt, the typed line redrawn intact below it. */
function callWhileTyping(args: string[] = []): void {
  const { status, transcript } = drive(
    [
      ['expect', 'sqlcdc> '],
      ['send', '%webhook start --no-auth\r'],
      ['expect', 'webhook listening: .*sqlcdc> '],
      ['send', "PRINT 'typed"],
      ['expect', "PRINT 'typed"],
      ['post', '[{"id": 41}]'],
      ['expect', "webhook call 1 .*41.*sqlcdc> .*PRINT 'typed"],
      ['send', " on'; \r"],
      ['expect', 'typed on'],
      ['send', '%webhook stop\r'],
      ['expect', 'stopped after 1 call'],
      ['send', '\x04'],
    ],
    args,
  );
  assert.equal(status, 0, transcript);
  const rows = screen(transcript);
  const arrived = rows.findIndex((r) => r.startsWith('webhook call 1 (POST, 1 row)'));
  assert.ok(arrived > 0, rows.join('\n'));
  assert.ok(
    rows.slice(0, arrived).every((r) => !r.includes("PRINT 'typed")),
    `the half-typed line is not left above the call:\n${rows.join('\n')}`,
  );
  assert.ok(rows.slice(arrived).some((r) => /│ +41 │/.test(r)));
  assert.ok(rows.slice(arrived).includes("sqlcdc> PRINT 'typed on';"), rows.join('\n'));
  assert.ok(rows.slice(arrived).includes('typed on'), rows.join('\n'));
}

test(
  'in a terminal: a webhook call arriving while a line is typed shows above the prompt, and the typed line stays intact',
  { timeout: 90_000 },
  () => callWhileTyping(),
);

test(
  'attached to a kernel (repl --existing): a call to a listener it started shows above the prompt, the typed line intact',
  { timeout: 90_000 },
  async (t) => {
    const dir = tempDir('tty-attach');
    const { file } = await startKernel(t, { dir, cwd: dir, env: { SQLCDC_HOME: join(dir, 'ws') } });
    callWhileTyping(['repl', '--existing', file]);
  },
);

/** A call arriving while a statement goes on over lines: all of its lines go below the call, none stays above. */
function callDuringAStatement(args: string[] = []): void {
  const { status, transcript } = drive(
    [
      ['expect', 'sqlcdc> '],
      ['send', '%webhook start --no-auth\r'],
      ['expect', 'webhook listening: .*sqlcdc> '],
      ['send', 'SELECT *\r'],
      ['expect', '\\.\\.\\.> '],
      ['send', 'FROM DRIVE\r'],
      ['expect', 'FROM DRIVE.*\\.\\.\\.> '],
      ['send', "'items"],
      ['expect', "'items"],
      ['post', '[{"id": 41}]'],
      ['expect', "webhook call 1 .*41.*'items"],
      ['send', ".csv';\r"],
      ['expect', 'lamp'],
      ['send', '%webhook stop\r'],
      ['expect', 'stopped after 1 call'],
      ['send', '\x04'],
    ],
    args,
  );
  assert.equal(status, 0, transcript);
  const rows = screen(transcript);
  const arrived = rows.findIndex((r) => r.startsWith('webhook call 1 (POST, 1 row)'));
  assert.ok(arrived > 0, rows.join('\n'));
  assert.ok(
    rows.slice(0, arrived).every((r) => !/SELECT \*|FROM DRIVE|'items/.test(r)),
    `no line of the statement is left above the call:\n${rows.join('\n')}`,
  );
  const select = rows.indexOf('sqlcdc> SELECT *', arrived);
  assert.ok(select > arrived, rows.join('\n'));
  assert.deepEqual(rows.slice(select, select + 3), ['sqlcdc> SELECT *', '   ...> FROM DRIVE', "   ...> 'items.csv';"]);
  assert.ok(
    rows.slice(select).some((r) => /│ lamp/.test(r)),
    rows.join('\n'),
  );
}

test(
  'in a terminal: a webhook call arriving while a statement goes on over lines shows above all of its lines',
  { timeout: 90_000 },
  () => callDuringAStatement(),
);

test(
  'attached to a kernel (repl --existing): a call arriving while a statement goes on over lines shows above all of its lines',
  { timeout: 90_000 },
  async (t) => {
    const dir = tempDir('tty-attach');
    // The kernel reads the file from its own folder.
    writeFileSync(join(dir, 'items.csv'), 'id,name\n1,lamp\n');
    const { file } = await startKernel(t, { dir, cwd: dir, env: { SQLCDC_HOME: join(dir, 'ws') } });
    callDuringAStatement(['repl', '--existing', file]);
  },
);

test(
  'in a terminal: webhook calls arriving while a statement draws its progress line show on lines of their own',
  { timeout: 90_000 },
  () => {
    const { status, transcript } = drive([
      ['expect', 'sqlcdc> '],
      ['send', '%webhook start --no-auth\r'],
      ['expect', 'webhook listening: .*sqlcdc> '],
      ['post', '[{"id": 1}, {"id": 2}, {"id": 3}]'],
      ['expect', 'webhook call 1 .*sqlcdc> '],
      ['send', '%webhook take\r'],
      ['expect', 'is the pipeline dataset.*sqlcdc> '],
      // The session pushes each row to its own listener: calls 2 to 4 arrive during the push.
      ['send', 'PUSH INTO HTTP ON_UPSERT (POST {{@webhookurl}}) PAYLOAD ({"id": {{id}}});\r'],
      ['expect', 'PUSH INTO HTTP: 3 calls made.*sqlcdc> '],
      ['send', '\x04'],
    ]);
    assert.equal(status, 0, transcript);
    const rows = screen(transcript);
    // Each arrival's title starts a row: none is glued to the progress line it interrupted.
    assert.deepEqual(
      rows.filter((r) => /webhook call \d+ \(POST/.test(r)),
      [
        'webhook call 1 (POST, 3 rows)',
        'webhook call 2 (POST, 1 row)',
        'webhook call 3 (POST, 1 row)',
        'webhook call 4 (POST, 1 row)',
      ],
      rows.join('\n'),
    );
    assert.ok(
      rows.some((r) => /^PUSH INTO HTTP: 3 \/ 3 rows, 3 calls, 0 retries, [\d,]+ rows\/s$/.test(r)),
      rows.join('\n'),
    );
  },
);
