import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Session } from '../../runtime/session';
import { Dataset } from '../../runtime/dataset/dataset';
import { STRING } from '../../runtime/dataset/types';
import { complete } from '../../runtime/services/complete';
import { commands } from '../../runtime/script/parser';
import { tempDir } from './harness';

function session(): Session {
  const dir = tempDir('complete');
  const s = new Session({ workspace: join(dir, 'ws'), cwd: dir });
  s.setDataset(
    Dataset.fromRows(
      [
        { name: 'OrderId', type: { base: 'long' } },
        { name: 'customer name', type: STRING },
        { name: 'amount', type: { base: 'decimal', precision: 10, scale: 2 } },
      ],
      [],
    ),
  );
  s.connections.add({ name: 'Billing API', kind: 'http', baseUrl: 'http://127.0.0.1:1' });
  s.connections.add({ name: 'warehouse', kind: 'sqlite', file: 'w.db' });
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
  // {{@…}}: pipeline variables, those of every run and the session's.
  s.variables.set('webhookurl', 'http://127.0.0.1:1/job/push');
  assert.deepEqual(at(s, "PRINT '{{@ex"), { matches: ['@executionId'], start: 9, end: 12 });
  assert.deepEqual(at(s, "PRINT '{{@w").matches, ['@webhookurl']);
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
  assert.deepEqual(at(s, '%job up'), { matches: ['update'], start: 5, end: 7 });
  assert.deepEqual(at(s, '%help\n\n%con').matches, ['%connection']);
  assert.ok(!at(s, "PRINT 'x';\n%li").matches.includes('%limit'), 'only leading lines are magics');
  // A cell magic on a cell's first line: the magics that have a cell form.
  assert.deepEqual(at(s, '%%jo'), { matches: ['%%job'], start: 0, end: 4 });
  assert.deepEqual(at(s, '%%').matches, ['%%job']);
});

test("a magic's options after its subcommand, and a cell magic's words, from the table it is parsed with", () => {
  const s = session();
  assert.deepEqual(at(s, '%webhook start --'), {
    matches: ['--port', '--job', '--no-auth'],
    start: 15,
    end: 17,
  });
  assert.deepEqual(at(s, '%webhook start --port 8080 --j'), { matches: ['--job'], start: 27, end: 30 });
  assert.deepEqual(at(s, '%webhook start --no|-auth'), { matches: ['--no-auth'], start: 15, end: 24 });
  assert.deepEqual(at(s, '%webhook wait --').matches, ['--timeout']);
  assert.deepEqual(at(s, '%webhook start --port ').matches, [], "an option's value is the user's");
  assert.deepEqual(at(s, '%webhook take --').matches, [], 'take has no options');
  assert.deepEqual(at(s, '%job create nightly --reader r.sql --').matches, [
    '--writer',
    '--webhook',
    '--save-sample',
    '--signing-secret',
  ]);
  assert.deepEqual(at(s, '%job trigger a --').matches, ['--on', '--run']);
  assert.deepEqual(at(s, '%job update a --no-').matches, ['--no-webhook', '--no-save-sample', '--no-signing-secret']);
  assert.deepEqual(at(s, '%var set --').matches, ['--encrypted']);
  assert.deepEqual(at(s, '%var ').matches, ['list', 'set', 'remove'], 'subcommands first, options after them');
  assert.deepEqual(at(s, '%changelog show --').matches, ['--check-signature']);
  assert.ok(at(s, '%connection add api https://x --b').matches.includes('--bearer'));
  // The cell form: %%job NAME reader|writer, then its options.
  assert.deepEqual(at(s, '%%job nightly '), { matches: ['reader', 'writer'], start: 14, end: 14 });
  assert.deepEqual(at(s, '%%job nightly w|\nPRINT 1;'), { matches: ['writer'], start: 14, end: 15 });
  assert.deepEqual(at(s, '%%job nightly writer --').matches, ['--webhook', '--save-sample', '--signing-secret']);
  assert.deepEqual(at(s, '%%job ').matches, [], "the name is the user's");
});

test('statement heads at a statement start, then the words that continue a head', () => {
  const s = session();
  const heads = ['SELECT', 'LOAD', 'APPLY', 'ADD', 'ZIP', 'EXEC', 'CAPTURE', 'PUSH', 'SINK', 'MERGE', 'PRINT', 'EXIT'];
  assert.deepEqual(at(s, '').matches.sort(), [...heads].sort());
  assert.deepEqual(at(s, "PRINT 'a';\n").matches.sort(), [...heads].sort(), 'after a ;');
  assert.deepEqual(at(s, 'APPLY FIL'), { matches: ['FILTER'], start: 6, end: 9 }, 'not FILE or FILE_PER_ROW');
  assert.deepEqual(at(s, 'APPLY ').matches.sort(), ['FILTER', 'HTTP', 'PIPELINE', 'SCHEMA', 'TX']);
  assert.deepEqual(at(s, 'SELECT ').matches, ['*', 'FROM']);
  assert.deepEqual(at(s, 'SELECT * FROM ').matches.sort(), ['DB', 'DRIVE', 'HTTP']);
  assert.deepEqual(at(s, 'select * from d').matches.sort(), ['db', 'drive']);
  assert.deepEqual(at(s, 'PUSH ').matches.sort(), ['DB', 'DRIVE', 'HTTP', 'INTO']);
  assert.deepEqual(at(s, 'ADD ').matches.sort(), ['COLUMN', 'OR']);
  assert.deepEqual(at(s, 'MERGE ').matches, ['INTO']);
  assert.deepEqual(at(s, '%limit 5\nAPPLY F').matches, ['FILTER'], 'after magic lines');
});

test("inside a statement: that statement's options, multi-word options word by word", () => {
  const s = session();
  const filterOptions = [
    'CASE_INSENSITIVE',
    'KEEP_EMPTY',
    'KEEP_INVALID',
    'LIMIT',
    'ON',
    'ORDER',
    'SINGLE_LINE',
    'WITH',
  ];
  assert.deepEqual(at(s, "APPLY FILTER 'amount > 5' ").matches.sort(), filterOptions);
  assert.deepEqual(at(s, "APPLY FILTER 'amount > 5' LIMIT 3 KEEP_").matches.sort(), ['KEEP_EMPTY', 'KEEP_INVALID']);
  assert.deepEqual(at(s, "APPLY FILTER 'amount > 5' ORDER ").matches, ['BY']);
  assert.deepEqual(at(s, 'APPLY FILTER ').matches.sort(), ['REGEX', 'SQL', 'TX', 'XPATH'], 'the filter modes');
  assert.deepEqual(at(s, "CAPTURE 'log' ON ").matches, ['KEYS']);
  assert.deepEqual(at(s, 'EXIT ').matches.sort(), ['KEEP', 'WITH']);
  // A string, connection or number is expected: no keyword fits there.
  assert.deepEqual(at(s, 'SELECT * FROM DRIVE ').matches, []);
  assert.deepEqual(at(s, "APPLY FILTER 'amount > 5' LIMIT ").matches, []);
  // Options of nested parts: a TRACE clause, an ON_UPSERT section, after an inline pipeline.
  const trace = at(s, "SELECT * FROM HTTP (GET /x) TRACE [db] TABLE 't' ").matches;
  assert.ok(trace.includes('WITH_PAYLOAD') && trace.includes('PAGING'), trace.join());
  const section = at(s, 'PUSH INTO HTTP ON_UPSERT (PUT /x) ').matches;
  assert.ok(
    section.includes('THROW_ON_REGEX') && section.includes('ON_DELETE') && section.includes('DLQ_ON_ERROR'),
    section.join(),
  );
  assert.deepEqual(at(s, "APPLY PIPELINE (PRINT 'a') ").matches.sort(), ['BREAK_ON_EMPTY', 'BYPASS', 'WITH']);
});

test('every option of the tables is offered in its statement', () => {
  const s = session();
  const prefixes: Record<string, string> = {
    'APPLY FILTER': "APPLY FILTER 'x' ",
    'SELECT FROM DRIVE': "SELECT * FROM DRIVE 'a.csv' ",
    'SELECT FROM HTTP': 'SELECT * FROM HTTP (GET /x) ',
    'ADD COLUMN': "ADD COLUMN 'x=1' ",
    CAPTURE: "CAPTURE 'log' ",
    MERGE: 'MERGE INTO [warehouse] ',
    'SINK INTO DB': 'SINK INTO DB [warehouse] ',
  };
  const checked = commands().filter((c) => prefixes[c.keyword] !== undefined);
  assert.equal(checked.length, Object.keys(prefixes).length);
  for (const command of checked) {
    const offered = at(s, prefixes[command.keyword]).matches;
    for (const option of command.options.options) {
      for (const spelling of option.spellings)
        assert.ok(offered.includes(spelling[0].name), `${command.keyword}: ${spelling[0].name}`);
    }
  }
});

test('values an option knows: FORMAT, PAGING, PROCESSING, in code and inside quotes', () => {
  const s = session();
  assert.deepEqual(at(s, "SELECT * FROM DRIVE 'a' FORMAT ").matches, [
    'CSV',
    'JSON',
    'NDJSON',
    'XML',
    'RAW',
    'PARQUET',
  ]);
  assert.deepEqual(at(s, "select * from drive 'a' format j").matches, ['json']);
  assert.deepEqual(at(s, "ZIP COLUMN 'doc' FORMAT ").matches, ['JSON', 'XML', 'CSV'], 'document formats only');
  assert.deepEqual(at(s, "SELECT * FROM DRIVE 'a' FORMAT '").matches.length, 6);
  assert.deepEqual(at(s, 'SELECT * FROM HTTP (GET /x) WITH PAGING ').matches, [
    "'none'",
    "'offset'",
    "'page'",
    "'link'",
    "'token'",
  ]);
  const paging = "SELECT * FROM HTTP (GET /x) WITH PAGING 'pa";
  assert.deepEqual(at(s, paging), { matches: ['page'], start: paging.length - 2, end: paging.length });
  const inside = at(s, "APPLY HTTP (GET /x) WITH PROCESSING 'le|ft'");
  assert.deepEqual(inside.matches, ['left join']);
  assert.equal(inside.end, "APPLY HTTP (GET /x) WITH PROCESSING 'left".length, 'the whole value is replaced');
});

test('inside blocks: pipelines hold statements, APPLY SCHEMA types and columns, APPLY FILTER (…) an expression, SQL nothing', () => {
  const s = session();
  assert.ok(at(s, 'APPLY PIPELINE (\n  ').matches.includes('ADD'));
  assert.deepEqual(at(s, "APPLY PIPELINE (\n  ADD COLUMN 'x=1';\n  APPLY FIL").matches, ['FILTER']);
  assert.deepEqual(at(s, "SELECT * FROM HTTP (GET /x)\n  APPLY PIPELINE (\n    ADD COLUMN 'a=1' FORMAT ").matches, [
    'JSON',
    'XML',
    'CSV',
  ]);
  const schema = at(s, 'APPLY SCHEMA (\n  ').matches;
  assert.ok(schema.includes('decimal') && schema.includes('OrderId'), schema.join());
  assert.deepEqual(at(s, 'APPLY SCHEMA (\n  lo').matches, ['long']);
  assert.deepEqual(at(s, 'APPLY FILTER (cust').matches, ['[customer name]']);
  assert.deepEqual(at(s, 'SELECT * FROM DB [warehouse] ( sel').matches, []);
  assert.deepEqual(at(s, 'SELECT * FROM HTTP (GET /ord').matches, []);
});
