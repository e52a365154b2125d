import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseScript } from '../../runtime/script/parser';
import { one, textAt, txt } from './helpers';

test('statements are separated by ; and the last one may omit it', () => {
  const s = parseScript("PRINT 'a'; PRINT 'b';\n;; PRINT 'c'").statements;
  assert.deepEqual(
    s.map((x) => x.kind === 'Print' && x.text.value),
    ['a', 'b', 'c'],
  );
  assert.deepEqual(
    s.map((x) => x.source),
    ["PRINT 'a'", "PRINT 'b'", "PRINT 'c'"],
  );
});

test('an empty script or one with only comments has no statements', () => {
  assert.deepEqual(parseScript('').statements, []);
  assert.deepEqual(parseScript('  -- nothing here\n\n-- still nothing;\n').statements, []);
});

test('-- comments run to the end of the line, but not inside strings or blocks', () => {
  const s = parseScript("-- head\nPRINT 'a -- not a comment' -- a comment; PRINT 'x'\n; EXIT").statements;
  assert.equal(s.length, 2);
  const print = s[0];
  assert.equal(print.kind === 'Print' && print.text.value, 'a -- not a comment');
  assert.equal(print.source, "PRINT 'a -- not a comment'");
  const sql = one('SELECT * FROM DB [db] ( select 1 -- keep me\n )', 'SelectDb');
  assert.equal(sql.sql.value, ' select 1 -- keep me\n ');
});

test("'' escapes a quote; strings may span lines and hold ; and --", () => {
  const p = one("PRINT 'it''s; -- fine\nsecond line'", 'Print');
  assert.equal(p.text.value, "it's; -- fine\nsecond line");
  assert.equal(p.text.form, 'quoted');
});

test('keywords are case-insensitive', () => {
  const f = one("apply Filter regex '^a' On 'name' case_insensitive", 'ApplyFilter');
  assert.equal(f.mode, 'REGEX');
  assert.equal(f.keyword, 'APPLY FILTER');
  assert.equal(f.caseInsensitive, true);
});

test('connection names in brackets may contain spaces', () => {
  const s = one('SELECT * FROM HTTP [my api] (GET /items)', 'SelectHttp');
  assert.equal(s.connection?.name, 'my api');
  assert.equal(one('SELECT * FROM DB [ warehouse  eu ] (select 1)', 'SelectDb').connection.name, 'warehouse  eu');
});

test('blocks are kept verbatim: nested parentheses, quotes, ; and {{fields}} inside', () => {
  const h = one("SELECT * FROM HTTP (GET /items?x={{id}}&q=(a;b)&s='it'')s') APPLY TX '$'", 'SelectHttp');
  assert.equal(h.command.verb, 'GET');
  assert.equal(h.command.target.value, "/items?x={{id}}&q=(a;b)&s='it'')s'");
  const p = one('APPLY HTTP (POST /x) PAYLOAD ({ "a": "smile :)", "b": [{{base64:blob}}] })', 'ApplyHttp');
  assert.deepEqual(txt(p.options.payload), ['{ "a": "smile :)", "b": [{{base64:blob}}] }', 'block']);
});

test("a -- comment in a block hides its quotes and parentheses from the search for ')'", () => {
  const e = one("EXEC ON DB [db] ( update t set a = 1 -- don't (yet\n where id = 2 ) PER_ROW", 'ExecOnDb');
  assert.equal(e.sql.value, " update t set a = 1 -- don't (yet\n where id = 2 ");
  assert.equal(e.perRow, true);
  // Not a comment: no space before it, or an XML comment end.
  const x = one('APPLY HTTP (GET /a--b) PAYLOAD (<a><!-- x --></a>)', 'ApplyHttp');
  assert.equal(x.command.target.value, '/a--b');
  assert.equal(x.options.payload?.value, '<a><!-- x --></a>');
});

test('functions nest and take unquoted arguments, in strings and bare', () => {
  assert.deepEqual(txt(one('PRINT #urlencode(#toiso8601(#utcnow()))', 'Print').text), [
    '#urlencode(#toiso8601(#utcnow()))',
    'bare',
  ]);
  assert.deepEqual(txt(one("PRINT '#pick(lamp,fridge,door)'", 'Print').text), ['#pick(lamp,fridge,door)', 'quoted']);
  assert.deepEqual(txt(one("PRINT #format('{0}) x', @name)", 'Print').text), ["#format('{0}) x', @name)", 'bare']);
  assert.deepEqual(txt(one('PRINT @highwatermark', 'Print').text), ['@highwatermark', 'bare']);
  assert.deepEqual(txt(one('PRINT {{base64:field}}', 'Print').text), ['{{base64:field}}', 'bare']);
  const a = one("ADD COLUMN 'x=#data.calc(''Sum(Total)'', ''EmpID = 5'')'", 'AddColumn');
  assert.equal(a.default.value, "#data.calc('Sum(Total)', 'EmpID = 5')");
});

test('positions are 1-based lines and columns of the cell; texts point at their content', () => {
  const text = "PRINT 'a';\n  -- comment\n  APPLY FILTER 'x > 1'\n    ON 'col'";
  const [print, filter] = parseScript(text).statements;
  assert.deepEqual(print.pos, { line: 1, column: 1, offset: 0 });
  assert.deepEqual(filter.pos, { line: 3, column: 3, offset: text.indexOf('APPLY') });
  assert.ok(filter.kind === 'ApplyFilter');
  assert.ok(textAt(text, filter.expression.pos).startsWith('x > 1'));
  assert.ok(textAt(text, filter.on?.pos).startsWith("col'"));
  assert.equal(filter.source, "APPLY FILTER 'x > 1'\n    ON 'col'");
});

test('parsing may start after leading text (magic lines): positions stay in cell coordinates', () => {
  const cell = "%limit 5\n%reset\nPRINT 'a';\n APPLY TX '$'";
  const start = cell.indexOf('PRINT');
  const [print, tx] = parseScript(cell, start).statements;
  assert.deepEqual(print.pos, { line: 3, column: 1, offset: start });
  assert.deepEqual(tx.pos, { line: 4, column: 2, offset: cell.indexOf('APPLY') });
  assert.ok(tx.kind === 'ApplyTx');
  assert.ok(textAt(cell, tx.tx.path.pos).startsWith("$'"));
});

test('CRLF line ends: same statements, positions and block contents without stray carriage returns', () => {
  const text =
    "PRINT 'a';\r\nAPPLY SCHEMA (\r\n  int id\r\n  string name |the name\r\n) STRICT_COLUMNS;\r\nSELECT * FROM HTTP (GET /x\r\n)";
  const [, schema, http] = parseScript(text).statements;
  assert.ok(schema.kind === 'ApplySchema');
  assert.deepEqual(
    schema.columns.map((c) => [c.typeName, c.name, c.description]),
    [
      ['int', 'id', undefined],
      ['string', 'name', 'the name'],
    ],
  );
  assert.deepEqual(schema.pos, { line: 2, column: 1, offset: text.indexOf('APPLY') });
  assert.ok(http.kind === 'SelectHttp');
  assert.equal(http.command.target.value, '/x');
  assert.deepEqual(http.pos, { line: 6, column: 1, offset: text.indexOf('SELECT') });
});
