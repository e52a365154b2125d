import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cellStatus, splitCell } from '../../runtime/script/cell';

const status = (text: string) => cellStatus(text).status;

test('complete: empty, only comments, or ending with ; outside strings and blocks', () => {
  for (const text of [
    '',
    '   \n',
    '-- just a note',
    "PRINT 'a';",
    "PRINT 'a';  -- done\n",
    "PRINT 'a'; PRINT 'b';",
    'APPLY PIPELINE (PRINT 1; PRINT 2);'.replace(/PRINT (\d)/g, "PRINT '$1'"),
  ]) {
    assert.equal(status(text), 'complete', text);
  }
});

test('incomplete: an open string, block or {{, or no ; yet', () => {
  assert.deepEqual(cellStatus("PRINT 'it''s"), { status: 'incomplete', indent: '' });
  assert.deepEqual(cellStatus("PRINT 'a;"), { status: 'incomplete', indent: '' });
  assert.deepEqual(cellStatus('  SELECT * FROM DB [d] (\n    select 1;'), { status: 'incomplete', indent: '      ' });
  assert.deepEqual(cellStatus("APPLY PIPELINE (\n  PRINT 'a';"), { status: 'incomplete', indent: '    ' });
  assert.deepEqual(cellStatus('PRINT {{name'), { status: 'incomplete', indent: '' });
  assert.deepEqual(cellStatus("SELECT * FROM HTTP (GET /a)\n  APPLY TX '$'"), { status: 'incomplete', indent: '    ' });
  assert.equal(status("PRINT 'a'"), 'incomplete');
  assert.equal(status("PRINT 'a'; APPLY"), 'incomplete');
  assert.equal(status('SELECT * FROM'), 'incomplete');
  assert.equal(status("PRINT 'a' -- no semicolon yet"), 'incomplete');
});

test('invalid: no continuation can make it parse', () => {
  assert.equal(status("PRINT 'a'; )"), 'invalid');
  assert.equal(status('SELECT * FROM HTTP [my api'), 'invalid');
  assert.equal(status('FETCH everything'), 'invalid');
  assert.equal(status('APPLY FOO'), 'invalid');
  assert.equal(status("APPLY FILTER 'a' FOO;"), 'invalid');
  assert.equal(status("FOO; PRINT 'a'"), 'invalid');
});

test('leading magic lines are complete; the statements after them decide', () => {
  assert.equal(status('%limit 5'), 'complete');
  assert.equal(status('%limit 5\n-- a note\n%help\n'), 'complete');
  assert.equal(status("%limit 5\nPRINT 'a';"), 'complete');
  assert.deepEqual(cellStatus('%limit 5\nSELECT * FROM DB [d] (\n  select 1;'), {
    status: 'incomplete',
    indent: '    ',
  });
  assert.equal(status("%limit 5\nPRINT 'a'; )"), 'invalid');
  // a % line after a statement is not a magic line
  assert.equal(status("PRINT 'a';\n%limit 5"), 'invalid');
});

test('a cell magic (%%job) is complete once its last line is empty, as in IPython, whatever its body', () => {
  assert.deepEqual(cellStatus('%%job nightly writer'), { status: 'incomplete', indent: '' });
  assert.equal(status("%%job nightly writer\nPRINT 'a';"), 'incomplete');
  // jupyter console asks with the line being typed last: after a newline, an empty one.
  assert.equal(status("%%job nightly writer\nPRINT 'a';\n"), 'complete');
  assert.equal(status("%%job nightly writer\nPRINT 'a\n  "), 'complete', 'the body is saved, not parsed');
  assert.equal(status('%%job nightly writer\n'), 'complete', 'an empty cell magic ends too (and says so when run)');
});

test('splitCell: magic lines, and the body in the cell coordinates', () => {
  const cell = "%limit 5\n\n  %connection   list\n-- note\nPRINT 'a';";
  const { magics, body, bodyOffset, magicsEnd } = splitCell(cell);
  assert.deepEqual(magics, [
    { name: 'limit', args: '5', line: 1, column: 1, offset: 0, argsColumn: 8 },
    { name: 'connection', args: 'list', line: 3, column: 3, offset: 12, argsColumn: 17 },
  ]);
  assert.equal(cell.slice(magics[1].offset, magics[1].offset + 11), '%connection');
  assert.equal(body, "PRINT 'a';");
  assert.equal(cell.slice(bodyOffset), body);
  assert.equal(cell.slice(0, magicsEnd), '%limit 5\n\n  %connection   list\n');
  assert.deepEqual(splitCell("PRINT 'a';"), { magics: [], body: "PRINT 'a';", bodyOffset: 0, magicsEnd: 0 });
});
