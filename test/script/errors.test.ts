import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeError, ScriptError } from '../../runtime/errors';
import { commands, parseScript, statementDocs } from '../../runtime/script/parser';
import { parseError, textAt } from './helpers';

interface Expect {
  kind: 'syntax' | 'semantic';
  statement?: string;
  line: number;
  column: number;
  message: string | RegExp;
}

function check(text: string, expect: Expect): void {
  const e = parseError(text);
  assert.equal(e.kind, expect.kind, `kind for ${text}: ${e.message}`);
  assert.equal(e.statement, expect.statement, `statement for ${text}`);
  assert.deepEqual(
    [e.position?.line, e.position?.column],
    [expect.line, expect.column],
    `position for ${text}: ${e.message}`,
  );
  textAt(text, e.position);
  if (typeof expect.message === 'string') assert.equal(e.message, expect.message);
  else assert.match(e.message, expect.message);
  // Nothing of chevrotain's own vocabulary leaks out.
  assert.doesNotMatch(e.message, /Expecting|-->|<--|EOF|Token|StringLit|NumberLit|Identifier|\bBlock\b|Bracket/);
}

test('unterminated string: points at its opening quote', () => {
  check("PRINT 'a';\nPRINT 'never closed;\nEXIT", {
    kind: 'syntax',
    statement: 'PRINT',
    line: 2,
    column: 7,
    message: "unterminated string: the closing quote (') is missing",
  });
});

test("missing ')': points at the '(' it should close", () => {
  check('SELECT * FROM DB [wh]\n  ( select * from t where (a = 1)\n;', {
    kind: 'syntax',
    statement: 'SELECT FROM DB',
    line: 2,
    column: 3,
    message: "missing ')' to close this '('",
  });
  check("APPLY HTTP (POST /x) PAYLOAD (<n>O'Brien</n>)", {
    kind: 'syntax',
    statement: 'APPLY HTTP',
    line: 1,
    column: 30,
    message: "missing ')' to close this '(': the quote at line 1, column 35 inside it is never closed",
  });
});

test("a ')' without '('", () => {
  check("PRINT 'a'\n  )", {
    kind: 'syntax',
    statement: 'PRINT',
    line: 2,
    column: 3,
    message: "')' without a matching '('",
  });
});

test("a connection name without ']'", () => {
  check('SELECT * FROM HTTP [my api (GET /x)', {
    kind: 'syntax',
    statement: 'SELECT FROM HTTP',
    line: 1,
    column: 20,
    message: "missing ']' to close the connection name",
  });
});

test('unknown command lists the commands', () => {
  check("PRINT 'ok';\n\n  FETCH 'x'", {
    kind: 'syntax',
    statement: undefined,
    line: 3,
    column: 3,
    message:
      "unknown command 'FETCH': a statement starts with SELECT, LOAD, APPLY, ADD, ZIP, EXEC, CAPTURE, PUSH, SINK, MERGE, PRINT or EXIT",
  });
  check("'x'", { kind: 'syntax', line: 1, column: 1, message: /^expected a command but found 'x'/ });
  // A typo of one is answered with it.
  check("SELEKT * FROM DRIVE 'a.csv'", {
    kind: 'syntax',
    line: 1,
    column: 1,
    message:
      "unknown command 'SELEKT': a statement starts with SELECT, LOAD, APPLY, ADD, ZIP, EXEC, CAPTURE, PUSH, SINK, MERGE, PRINT or EXIT; did you mean SELECT?",
  });
});

test('a %magic line after a statement says that magics go at the top of the cell', () => {
  check("PRINT 'a';\n%limit 5\nPRINT 'b';", {
    kind: 'syntax',
    line: 2,
    column: 1,
    message: "a %magic line must come before the cell's statements: put %limit at the top, or in a cell of its own",
  });
});

test('an incomplete or wrong command head says what may follow', () => {
  check('APPLY FOO', {
    kind: 'syntax',
    statement: 'APPLY',
    line: 1,
    column: 7,
    message: "expected TX, SCHEMA, PIPELINE, HTTP or FILTER after APPLY but found 'FOO'",
  });
  check('SELECT * FROM', {
    kind: 'syntax',
    statement: 'SELECT',
    line: 1,
    column: 14,
    message: 'expected HTTP, DB or DRIVE after FROM but found the end of the statement',
  });
  check("ADD 'x'", {
    kind: 'syntax',
    statement: 'ADD',
    line: 1,
    column: 5,
    message: "expected COLUMN or OR after ADD but found 'x'",
  });
});

test('unknown option names the statement and its options', () => {
  check("APPLY FILTER 'a > 1'\n  FOO", {
    kind: 'semantic',
    statement: 'APPLY FILTER',
    line: 2,
    column: 3,
    message:
      "expected ';' or an option of APPLY FILTER (ON, LIMIT, ORDER BY, KEEP_EMPTY, KEEP_INVALID, CASE_INSENSITIVE, SINGLE_LINE) but found 'FOO'",
  });
  check("APPLY FILTER 'a' PER_ROW", {
    kind: 'semantic',
    statement: 'APPLY FILTER',
    line: 1,
    column: 18,
    message: /^expected ';' or an option of APPLY FILTER .* but found 'PER_ROW'$/,
  });
  check('PUSH INTO HTTP ON_UPSERT (POST /a) LIMIT 3', {
    kind: 'semantic',
    statement: 'PUSH INTO HTTP',
    line: 1,
    column: 36,
    message: /an option of PUSH INTO HTTP \(ON_UPSERT, ON_DELETE, DISCARD_ON_SUCCESS/,
  });
});

test("a missing ';' between statements: the caret right after the statement before, named with its line", () => {
  const missing = (statement: string, line: number, column: number, startLine = 1) =>
    ({
      kind: 'syntax',
      statement,
      line,
      column,
      message: `expected ';' after ${statement} (line ${startLine})`,
    }) as const;
  check("PRINT 'a'\nPRINT 'b'", missing('PRINT', 1, 10));
  check("PRINT 'a' PRINT 'b'", missing('PRINT', 1, 10));
  check("APPLY TX '$'\nAPPLY FILTER 'x'", missing('APPLY TX', 1, 13));
  check("SELECT * FROM DRIVE 'd.csv'\nAPPLY FILTER 'id > 1';", missing('SELECT FROM DRIVE', 1, 28));
  check("EXIT\n\n  LOAD FROM 'orders'", missing('EXIT', 1, 5));
  // A head that starts no clause of the statement, on the same line: SELECT's clauses are APPLY TX and APPLY PIPELINE.
  check("SELECT * FROM DRIVE 'd.csv' APPLY FILTER 'id > 1'", missing('SELECT FROM DRIVE', 1, 28));
  // A statement over several lines: the caret after its last token, the message names its first line.
  check(
    "PRINT 'x';\nSELECT * FROM HTTP (GET /x)\n    APPLY TX '$.items'\n    APPLY PIPELINE (PRINT 'p')\nLOAD FROM 'orders'",
    missing('SELECT FROM HTTP', 4, 31, 2),
  );
  // A clause the statement already has, or one whose options only fit the statement on its own line.
  check("SELECT * FROM HTTP (GET /x) APPLY TX '$.a'\nAPPLY TX (..docs)", missing('SELECT FROM HTTP', 1, 43));
  check("SELECT * FROM DRIVE 'd.csv'\n  APPLY TX (..docs) ON 'payload'", missing('SELECT FROM DRIVE', 1, 28));
  // The next statement's head is not complete yet.
  check("PRINT 'a'\nSELECT * FROM", missing('PRINT', 1, 10));
  check("PRINT 'a'\nAPPLY FOO", missing('PRINT', 1, 10));
  // Inside a pipeline block, in cell coordinates.
  check("APPLY PIPELINE (\n  PRINT 'a'\n  PRINT 'b'\n)", missing('PRINT', 2, 12, 2));
});

test("a word that may continue the statement on its line keeps the grammar's message", () => {
  check("SELECT * FROM DRIVE 'd.csv'\nAPPLY TX '$' FOO", {
    kind: 'semantic',
    statement: 'SELECT FROM DRIVE',
    line: 2,
    column: 14,
    message: /^expected ';' or an option of SELECT FROM DRIVE \(FORMAT, .*\) but found 'FOO'$/,
  });
  check("SELECT * FROM DRIVE 'd.csv' APPLY TX (..docs) ON 'payload'", {
    kind: 'semantic',
    statement: 'SELECT FROM DRIVE',
    line: 1,
    column: 47,
    message: /^expected ';' or an option of SELECT FROM DRIVE .* but found 'ON'$/,
  });
  check("SELECT * FROM DRIVE 'd.csv'\nAPPLY TX", {
    kind: 'syntax',
    statement: 'SELECT FROM DRIVE',
    line: 2,
    column: 9,
    message: "expected a quoted string ('…') after TX but found the end of the statement",
  });
  check("APPLY FILTER\nPRINT 'x'", {
    kind: 'syntax',
    statement: 'APPLY FILTER',
    line: 2,
    column: 1,
    message: "expected a quoted string ('…') after FILTER but found 'PRINT'",
  });
  // A missing TABLE is not reported before the word the statement cannot take (a missing ';' or TABLE).
  check("SINK INTO DB [x]\nPRINT 'a'", {
    kind: 'syntax',
    statement: 'SINK INTO DB',
    line: 2,
    column: 1,
    message: /^expected ';' or an option of SINK INTO DB \(TABLE, .*\) but found 'PRINT'$/,
  });
});

test('a clause the grammar chose by looking ahead fails where the words stop fitting it', () => {
  check("SELECT * FROM DRIVE 'd.csv' APPLY FOO", {
    kind: 'syntax',
    statement: 'SELECT FROM DRIVE',
    line: 1,
    column: 35,
    message: "expected TX or PIPELINE after APPLY but found 'FOO'",
  });
  check("SELECT * FROM DRIVE 'd.csv' APPLY", {
    kind: 'syntax',
    statement: 'SELECT FROM DRIVE',
    line: 1,
    column: 34,
    message: 'expected TX or PIPELINE after APPLY but found the end of the statement',
  });
});

test("every statement kind followed by every other without ';' between them", () => {
  const firsts = statementDocs.map((d) => parseScript(d.example).statements[0]);
  for (const a of firsts) {
    const clauses = commands()
      .find((c) => c.keyword === a.keyword)!
      .options.options.map((o) => o.name);
    for (const b of firsts) {
      const text = `${a.source}\n${b.source}`;
      let e: ScriptError;
      try {
        const { statements } = parseScript(text);
        // The only way to parse: the next statement is a clause of the first (SELECT … APPLY PIPELINE).
        assert.equal(statements.length, 1, text);
        assert.ok(clauses.includes(b.keyword), `${b.keyword} is a clause of ${a.keyword}`);
        continue;
      } catch (caught) {
        assert.ok(caught instanceof ScriptError, String(caught));
        e = caught;
      }
      assert.equal(e.message, `expected ';' after ${a.keyword} (line 1)`, text);
      assert.equal(e.statement, a.keyword);
      assert.equal(textAt(text, e.position), `\n${b.source}`, text);
    }
  }
});

test('a value of the wrong kind after an option', () => {
  check("APPLY FILTER 'a' LIMIT 'ten'", {
    kind: 'syntax',
    statement: 'APPLY FILTER',
    line: 1,
    column: 24,
    message: "expected a number after LIMIT but found 'ten'",
  });
  check("APPLY FILTER 'a' ON", {
    kind: 'syntax',
    statement: 'APPLY FILTER',
    line: 1,
    column: 20,
    message: "expected a quoted string ('…') after ON but found the end of the statement",
  });
  check("SELECT * FROM HTTP 'x'", {
    kind: 'syntax',
    statement: 'SELECT FROM HTTP',
    line: 1,
    column: 20,
    message: "expected a ( … ) block after HTTP but found 'x'",
  });
  check('SELECT * FROM DB (select 1)', {
    kind: 'syntax',
    statement: 'SELECT FROM DB',
    line: 1,
    column: 18,
    message: "expected a [connection] after DB but found '(select 1)'",
  });
  check('ADD COLUMN x=5', {
    kind: 'syntax',
    statement: 'ADD COLUMN',
    line: 1,
    column: 12,
    message: "expected '[type] name=default' or (name='default') after COLUMN but found 'x'",
  });
  check("APPLY FILTER 'a' = 1", {
    kind: 'syntax',
    statement: 'APPLY FILTER',
    line: 1,
    column: 18,
    message: /but found '='$/,
  });
});

test('bad numbers', () => {
  check("APPLY FILTER 'a' LIMIT 2.5", {
    kind: 'semantic',
    statement: 'APPLY FILTER',
    line: 1,
    column: 24,
    message: "LIMIT expects a whole number (0 or more) but found '2.5'",
  });
  check('EXIT KEEP -1', {
    kind: 'semantic',
    statement: 'EXIT',
    line: 1,
    column: 11,
    message: "KEEP expects a whole number (0 or more) but found '-1'",
  });
  check('APPLY HTTP (GET /a) TIMEOUT -3', {
    kind: 'semantic',
    statement: 'APPLY HTTP',
    line: 1,
    column: 29,
    message: "TIMEOUT expects a number of seconds (0 or more) but found '-3'",
  });
  // BATCH is rows a call, transaction or document holds: 0 is refused as -1 is, where it is written.
  for (const [text, found] of [
    ['PUSH INTO HTTP ON_UPSERT (POST /a) WITH BATCH -1', '-1'],
    ['PUSH INTO HTTP ON_UPSERT (POST /a) WITH BATCH 0', '0'],
    ["ZIP COLUMN 'c' FORMAT JSON BATCH 2.5", '2.5'],
    ['PUSH INTO DB [d] ON_UPSERT (insert into t values (1)) BATCH 0', '0'],
  ])
    check(text, {
      kind: 'semantic',
      statement: /^(ZIP COLUMN|PUSH INTO HTTP|PUSH INTO DB)/.exec(text)![0],
      line: 1,
      column: text.lastIndexOf(found) + 1,
      message: `BATCH expects a whole number of 1 or more but found '${found}'`,
    });
  check('PUSH INTO HTTP ON_UPSERT (POST /a) RETRY LINEAR (3)', {
    kind: 'semantic',
    statement: 'PUSH INTO HTTP',
    line: 1,
    column: 50,
    message: "expected (count, seconds) with two numbers but found '(3)'",
  });
});

test('unknown modes, formats, verbs and values', () => {
  check("APPLY FILTER GLOB '*.x' ON 'c'", {
    kind: 'semantic',
    statement: 'APPLY FILTER',
    line: 1,
    column: 14,
    message: "unknown filter mode 'GLOB': expected SQL, REGEX, XPATH or TX",
  });
  check("ZIP COLUMN 'c' FORMAT YAML", {
    kind: 'semantic',
    statement: 'ZIP COLUMN',
    line: 1,
    column: 23,
    message: "unknown format 'YAML': expected 'JSON', 'XML' or 'CSV'",
  });
  check('SELECT * FROM HTTP (FETCH /a)', {
    kind: 'semantic',
    statement: 'SELECT FROM HTTP',
    line: 1,
    column: 21,
    message: "expected an HTTP verb (GET, POST, PUT, PATCH or DELETE) but found 'FETCH'",
  });
  check('SELECT * FROM HTTP (GET   )', {
    kind: 'semantic',
    statement: 'SELECT FROM HTTP',
    line: 1,
    column: 24,
    message: 'missing the path or URL after GET',
  });
  check("APPLY HTTP (GET /a) PROCESSING 'merge'", {
    kind: 'semantic',
    statement: 'APPLY HTTP',
    line: 1,
    column: 33,
    message: "unknown PROCESSING mode 'merge': expected 'continue', 'replace', 'inner join', 'left join' or 'enhance'",
  });
  check("APPLY HTTP (GET /a) PAGING 'cursor'", {
    kind: 'semantic',
    statement: 'APPLY HTTP',
    line: 1,
    column: 29,
    message: "unknown paging mode 'cursor': expected 'none', 'offset', 'page', 'link' or 'token'",
  });
  check('PUSH INTO HTTP ON_UPSERT (POST /a) RETRY SOMETIMES (1,1)', {
    kind: 'semantic',
    statement: 'PUSH INTO HTTP',
    line: 1,
    column: 42,
    message: "expected LINEAR or EXPONENTIAL after RETRY but found 'SOMETIMES'",
  });
  check('SELECT * FROM DB [ ] (select 1)', {
    kind: 'semantic',
    statement: 'SELECT FROM DB',
    line: 1,
    column: 18,
    message: 'empty connection name []',
  });
});

test('repeated and conflicting options', () => {
  check("APPLY FILTER 'a' LIMIT 1 LIMIT 2", {
    kind: 'semantic',
    statement: 'APPLY FILTER',
    line: 1,
    column: 26,
    message: 'LIMIT is given twice',
  });
  check("LOAD FROM 'x' KEY_COLUMNS 'a' KEY COLUMNS 'b'", {
    kind: 'semantic',
    statement: 'LOAD',
    line: 1,
    column: 31,
    message: 'KEY_COLUMNS is given twice',
  });
  check("SINK INTO DB [d] TABLE 't' TRUNCATE RECREATE", {
    kind: 'semantic',
    statement: 'SINK INTO DB',
    line: 1,
    column: 37,
    message: 'RECREATE cannot be combined with TRUNCATE',
  });
  check("APPLY HTTP (GET /a) RETRY_ON 'x' RETRY_ONREGEX 'y'", {
    kind: 'semantic',
    statement: 'APPLY HTTP',
    line: 1,
    column: 34,
    message: 'RETRY_ONREGEX cannot be combined with RETRY_ON',
  });
  check("ADD COLUMN 'x' INCLUDE 'a'", {
    kind: 'semantic',
    statement: 'ADD COLUMN',
    line: 1,
    column: 16,
    message: 'INCLUDE must follow FORMAT <JSON|XML|CSV>',
  });
  check("APPLY HTTP (GET /a) PAGING_PARAM 'p'", {
    kind: 'semantic',
    statement: 'APPLY HTTP',
    line: 1,
    column: 21,
    message: "PAGING_PARAM must follow PAGING '<mode>'",
  });
  check("ADD COLUMN 'x=1' WITH EXPRESSION '2'", {
    kind: 'semantic',
    statement: 'ADD COLUMN',
    line: 1,
    column: 35,
    message: "give the default either in 'name=default' or in WITH EXPRESSION, not both",
  });
});

test('missing required parts are reported where the statement or clause ends, where they were expected', () => {
  check("APPLY FILTER REGEX '^a'", {
    kind: 'semantic',
    statement: 'APPLY FILTER',
    line: 1,
    column: 24,
    message: "APPLY FILTER REGEX needs ON '<column>'",
  });
  check("ZIP COLUMN 'c' BATCH 2", {
    kind: 'semantic',
    statement: 'ZIP COLUMN',
    line: 1,
    column: 23,
    message: 'ZIP COLUMN needs FORMAT <CSV|JSON|XML>',
  });
  check('PUSH INTO HTTP [a]', {
    kind: 'semantic',
    statement: 'PUSH INTO HTTP',
    line: 1,
    column: 19,
    message: 'PUSH INTO HTTP needs ON_UPSERT (…) or ON_DELETE (…)',
  });
  check("SINK INTO DRIVE FILE 'x'", {
    kind: 'semantic',
    statement: 'SINK INTO DRIVE',
    line: 1,
    column: 25,
    message: 'SINK INTO DRIVE needs FORMAT <PARQUET|CSV|JSON|NDJSON|XML|RAW>',
  });
  check('SINK INTO DB [d]', {
    kind: 'semantic',
    statement: 'SINK INTO DB',
    line: 1,
    column: 17,
    message: "SINK INTO DB needs TABLE '<table>'",
  });
  check('APPLY HTTP (GET /a)\n  TRACE INTO [t] WITH_PAYLOAD', {
    kind: 'semantic',
    statement: 'APPLY HTTP',
    line: 2,
    column: 30,
    message: "TRACE needs TABLE '<table>'",
  });
  check('APPLY SCHEMA (\n  -- nothing\n)', {
    kind: 'semantic',
    statement: 'APPLY SCHEMA',
    line: 1,
    column: 15,
    message: 'APPLY SCHEMA needs at least one column',
  });
  check("CAPTURE OBSERVE 'a'", {
    kind: 'semantic',
    statement: 'CAPTURE',
    line: 1,
    column: 18,
    message: "OBSERVE needs ON KEYS '<col,…>'",
  });
});

test('errors inside an APPLY PIPELINE block point into the block and name the inner statement', () => {
  check("APPLY PIPELINE (\n  ADD COLUMN 'x=1';\n  APPLY FILTER 'x' LIMT 3\n)", {
    kind: 'semantic',
    statement: 'APPLY FILTER',
    line: 3,
    column: 20,
    message: /but found 'LIMT'$/,
  });
  check("SELECT * FROM HTTP (GET /a) APPLY PIPELINE (PRINT 'a'; NOPE)", {
    kind: 'syntax',
    statement: undefined,
    line: 1,
    column: 56,
    message: /^unknown command 'NOPE'/,
  });
});

test('the first error of the cell is reported, with positions after magic lines in cell coordinates', () => {
  const cell = "%limit 5\nPRINT 'a';\nAPPLY FILTER 'a' BAD;\nPRINT 'unterminated";
  const e = parseError(cell, cell.indexOf('PRINT'));
  assert.deepEqual(e.position, { line: 3, column: 18, offset: cell.indexOf('BAD') });
  assert.equal(
    describeError(e),
    "APPLY FILTER at line 3, column 18: expected ';' or an option of APPLY FILTER (ON, LIMIT, ORDER BY, KEEP_EMPTY, KEEP_INVALID, CASE_INSENSITIVE, SINGLE_LINE) but found 'BAD'",
  );
});

test('the grammar recovers fully after an error', () => {
  parseError("APPLY FILTER 'a' LIMIT 1 LIMIT 2");
  parseError("APPLY FILTER 'a' LIMIT");
  assert.equal(parseScript("APPLY FILTER 'a' LIMIT 1").statements.length, 1);
});
