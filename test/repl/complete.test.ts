import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Session } from '../../runtime/session';
import { Dataset } from '../../runtime/dataset/dataset';
import { STRING } from '../../runtime/dataset/types';
import { complete } from '../../runtime/services/complete';
import { tempDir } from './harness';

function session(): Session {
  const dir = tempDir('complete');
  const s = new Session({ workspace: join(dir, 'ws'), cwd: dir });
  s.state.dataset = new Dataset(
    [
      { name: 'OrderId', type: { base: 'long' } },
      { name: 'customer name', type: STRING },
      { name: 'amount', type: { base: 'decimal', precision: 10, scale: 2 } },
    ],
    [],
  );
  s.connections.add({ name: 'Billing API', kind: 'http', baseUrl: 'http://127.0.0.1:1' });
  s.connections.add({ name: 'warehouse', kind: 'sqlite', target: 'w.db' });
  return s;
}

/** Completes at the end of `code`, or at the `|` in it. */
function at(s: Session, code: string) {
  const cursor = code.includes('|') ? code.indexOf('|') : code.length;
  return complete(s, code.replace('|', ''), cursor);
}

test('keywords follow the case the user types', () => {
  const s = session();
  const lower = at(s, 'sel');
  assert.ok(lower.matches.includes('select'), lower.matches.join());
  assert.ok(lower.matches.every((m) => m.startsWith('sel')));
  assert.deepEqual([lower.start, lower.end], [0, 3]);
  assert.ok(at(s, 'SEL').matches.includes('SELECT'));
  assert.ok(at(s, 'Sel').matches.includes('SELECT'));
  const filter = at(s, 'APPLY FIL');
  assert.ok(filter.matches.includes('FILTER'));
  assert.deepEqual([filter.start, filter.end], [6, 9]);
  assert.ok(at(s, 'apply sch').matches.includes('schema'));
  // In the middle of a word the whole word is replaced.
  const middle = at(s, 'SEL|ECT * FROM DRIVE');
  assert.ok(middle.matches.includes('SELECT'));
  assert.deepEqual([middle.start, middle.end], [0, 6]);
});

test('#functions and @functions after their sigil, in code and inside quoted text', () => {
  const s = session();
  const utc = at(s, "PRINT 'now: #utc");
  assert.ok(utc.matches.includes('#utcnow'), utc.matches.join());
  assert.ok(utc.matches.every((m) => m.startsWith('#utc')));
  assert.equal(utc.start, "PRINT 'now: ".length);
  const rnd = at(s, "ADD COLUMN 'x=@rnd");
  assert.deepEqual([...rnd.matches].sort(), ['@rnddouble', '@rndguid', '@rndint']);
  assert.ok(at(s, '#data.c').matches.includes('#data.count'));
  assert.ok(at(s, "PRINT '#TOUP").matches.includes('#toupper'), 'function names match case-insensitively');
});

test('columns of the live dataset inside {{ }}, with an encoding prefix, in column lists and expressions', () => {
  const s = session();
  assert.deepEqual(at(s, "PRINT '{{cu"), { matches: ['customer name'], start: 9, end: 11 });
  assert.deepEqual(at(s, "PRINT '{{cu}}'".replace('}}', '|}}')), { matches: ['customer name'], start: 9, end: 11 });
  assert.deepEqual(at(s, "PRINT '{{base64:ord").matches, ['OrderId']);
  assert.deepEqual(at(s, "PRINT 'it''s {{am").matches, ['amount']);
  const keys = at(s, "CAPTURE 'log' ON KEYS 'OrderId, am");
  assert.deepEqual(keys, { matches: ['amount'], start: keys.end - 2, end: keys.end });
  assert.deepEqual(at(s, "APPLY FILTER REGEX '^a' ON 'cust").matches, ['customer name']);
  assert.deepEqual(at(s, "APPLY FILTER 'amount > 5 AND ord").matches, ['OrderId']);
  // Names that are not plain identifiers are bracketed in expressions.
  assert.deepEqual(at(s, "APPLY FILTER 'cust").matches, ['[customer name]']);
  const bracket = at(s, "APPLY FILTER '[cust|] = 1'");
  assert.deepEqual(bracket, { matches: ['[customer name]'], start: 14, end: 20 });
  assert.deepEqual(at(s, "ADD OR ALTER COLUMN 'am").matches, ['amount']);
  assert.ok(at(s, 'APPLY SCHEMA (\n  long Ord').matches.includes('OrderId'), 'columns complete as identifiers');
});

test('no column completion where a string is not about columns', () => {
  const s = session();
  assert.deepEqual(at(s, "SELECT * FROM DRIVE 'am").matches, []);
  assert.deepEqual(at(s, "ADD COLUMN 'am").matches, [], 'ADD COLUMN names a new column');
  assert.deepEqual(at(s, '-- sel').matches, []);
  assert.deepEqual(at(s, "PRINT '{{amount}} am").matches, []);
});

test('connection names after [', () => {
  const s = session();
  assert.deepEqual(at(s, 'SELECT * FROM HTTP [bil'), { matches: ['Billing API'], start: 20, end: 23 });
  assert.deepEqual(at(s, 'SELECT * FROM HTTP [').matches.sort(), ['Billing API', 'warehouse']);
  const inside = at(s, 'SELECT * FROM HTTP [Billing A|] (GET /x)');
  assert.deepEqual(inside, { matches: ['Billing API'], start: 20, end: 29 });
  assert.deepEqual(at(s, "ADD COLUMN 'string[").matches, [], 'a type size is not a connection');
});

test('magics and their words on % lines at the top of a cell', () => {
  const s = session();
  assert.deepEqual(at(s, '%li'), { matches: ['%limit'], start: 0, end: 3 });
  assert.ok(at(s, '%').matches.includes('%connection'));
  assert.deepEqual(at(s, '%connection r'), { matches: ['remove'], start: 12, end: 13 });
  assert.deepEqual(at(s, '%connection ').matches, ['add', 'list', 'remove']);
  assert.deepEqual(at(s, '%help\n\n%con').matches, ['%connection']);
  assert.ok(!at(s, "PRINT 'x';\n%li").matches.includes('%limit'), 'only leading lines are magics');
});
