import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { globToRegExp, History } from '../../kernel/history';
import { tempDir } from '../helpers/temp';

const dir = tempDir('history');
let n = 0;
const file = () => join(dir, `h${n++}.jsonl`);

test('tail returns the last n cells in order, with (input, output) pairs when output is asked', () => {
  const h = new History(file());
  ['a;', 'b;', 'c;'].forEach((code, i) => h.add(i + 1, code));
  assert.deepEqual(h.query({ hist_access_type: 'tail', n: 2 }), [
    [1, 2, 'b;'],
    [1, 3, 'c;'],
  ]);
  assert.deepEqual(h.query({ hist_access_type: 'tail', n: 1, output: true }), [[1, 3, ['c;', null]]]);
});

test('a new kernel on the same workspace continues the file in a new session', async () => {
  const path = file();
  const first = new History(path);
  first.add(1, "PRINT 'one';");
  await first.flushed();
  const second = new History(path);
  assert.equal(second.session, first.session + 1);
  second.add(1, "PRINT 'two';");
  assert.deepEqual(
    second.query({ hist_access_type: 'tail', n: 5 }).map((r) => r[0]),
    [1, 2],
  );
  // range of the current session (0) and of the previous one (-1)
  assert.deepEqual(second.query({ hist_access_type: 'range', session: 0, start: 1 }), [[2, 1, "PRINT 'two';"]]);
  assert.deepEqual(second.query({ hist_access_type: 'range', session: -1, start: 1, stop: 2 }), [
    [1, 1, "PRINT 'one';"],
  ]);
});

test('cells are appended in order, in the background', async () => {
  const path = file();
  const h = new History(path);
  for (let i = 1; i <= 50; i++) h.add(i, `c${i};`);
  await h.flushed();
  const lines = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { line: number }).line);
  assert.deepEqual(
    lines,
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
});

test('range stops before stop', () => {
  const h = new History(file());
  for (let i = 1; i <= 5; i++) h.add(i, `c${i};`);
  assert.deepEqual(
    h.query({ hist_access_type: 'range', session: h.session, start: 2, stop: 4 }).map((r) => r[2]),
    ['c2;', 'c3;'],
  );
});

test('search matches the whole input against a glob; unique keeps the latest of each; n the last n', () => {
  const h = new History(file());
  ['%help', '%connection list', '%help', 'PRINT 1;', '%help'].forEach((c, i) => h.add(i + 1, c));
  assert.deepEqual(
    h.query({ hist_access_type: 'search', pattern: '%h*' }).map((r) => r[1]),
    [1, 3, 5],
  );
  assert.deepEqual(
    h.query({ hist_access_type: 'search', pattern: '%*', unique: true }).map((r) => r[1]),
    [2, 5],
  );
  assert.deepEqual(
    h.query({ hist_access_type: 'search', pattern: '%h*', n: 2 }).map((r) => r[1]),
    [3, 5],
  );
  assert.deepEqual(h.query({ hist_access_type: 'search', pattern: 'help' }), []);
  assert.deepEqual(h.query({ hist_access_type: 'search', pattern: '[z-a]*' }), [], 'an invalid glob finds nothing');
});

test('glob: * ? and character classes, regex characters taken literally', () => {
  assert.ok(globToRegExp('a?c').test('abc'));
  assert.ok(!globToRegExp('a?c').test('abbc'));
  assert.ok(globToRegExp('[ab]x*').test('bx(1+2).'));
  assert.ok(globToRegExp('[^a]x').test('bx'));
  assert.ok(!globToRegExp('[^a]x').test('ax'));
  assert.ok(globToRegExp('1+2*').test('1+23'));
  assert.ok(!globToRegExp('1+2*').test('112'));
  assert.ok(globToRegExp('*').test('multi\nline'));
});

test('a line cut by a crash is skipped, the rest of the file is kept', () => {
  const path = file();
  writeFileSync(path, JSON.stringify({ session: 1, line: 1, input: 'ok;' }) + '\n');
  appendFileSync(path, '{"session":1,"li');
  const h = new History(path);
  assert.deepEqual(h.query({ hist_access_type: 'tail', n: 10 }), [[1, 1, 'ok;']]);
});

test('an oversized file is cut to its newest half when a kernel opens it', () => {
  const path = file();
  const lines: string[] = [];
  for (let i = 1; i <= 10_001; i++) lines.push(JSON.stringify({ session: 1, line: i, input: `c${i};` }));
  writeFileSync(path, lines.join('\n') + '\n');
  const h = new History(path);
  const rows = h.query({ hist_access_type: 'tail' });
  assert.equal(rows.length, 5000);
  assert.equal(rows[rows.length - 1][2], 'c10001;');
  assert.equal(readFileSync(path, 'utf8').trim().split('\n').length, 5000);
});

test('the first cell creates the workspace folder when the session has not yet', async () => {
  const path = join(dir, 'not-yet', 'kernel_history.jsonl');
  const h = new History(path);
  h.add(1, 'PRINT 1;');
  await h.flushed();
  assert.equal(new History(path).query({ hist_access_type: 'tail' }).length, 1);
});

test('a history file holding cells with secrets (an older version wrote them) is rewritten without them', () => {
  const path = file();
  writeFileSync(
    path,
    [
      { session: 1, line: 1, input: "PRINT 'kept';" },
      { session: 2, line: 1, input: '%connection add api http://127.0.0.1:9 --bearer s3cret' },
    ]
      .map((e) => JSON.stringify(e) + '\n')
      .join(''),
  );
  const h = new History(path);
  assert.equal(h.session, 3, 'numbered after every session the file had');
  assert.deepEqual(h.query({ hist_access_type: 'tail', n: 5 }), [[1, 1, "PRINT 'kept';"]]);
  assert.doesNotMatch(readFileSync(path, 'utf8'), /s3cret/);
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test('a cell whose magic line, however misspelt, gives --bearer, --basic, --apikey or --header is left out of the file', async () => {
  const path = file();
  const h = new History(path);
  const cells = [
    '%conection add api http://127.0.0.1:9 --bearer s3cret1',
    '%connections add api http://127.0.0.1:9 --basic bob:s3cret2',
    '  %%connection add api http://127.0.0.1:9 --apikey "X-Key: s3cret3"',
    '%Connection add api http://127.0.0.1:9 --header=X-Key:s3cret4',
  ];
  cells.forEach((cell, i) => h.add(i + 1, cell));
  h.add(cells.length + 1, "PRINT '--bearer is a word';");
  await h.flushed();
  assert.doesNotMatch(readFileSync(path, 'utf8'), /s3cret/);
  assert.deepEqual(new History(path).query({ hist_access_type: 'tail', n: 10 }).length, 1);
});
