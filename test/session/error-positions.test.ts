import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptError } from '../../runtime/errors';
import { runCli } from '../helpers/cli';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

/**
 * The typical mistakes in each statement kind of the spec (§4, and every command reference.md gives a
 * syntax for), written on a script's second line and indented, so line and column are never 1: each
 * must name the statement, the line and column of the word at fault (marked `§`, removed before
 * running) and the reason, through Session.execute and through `sqlcdc run`.
 */

/** A first line that reads a file, so run-time mistakes meet a dataset (columns id, name). */
const READ = "SELECT * FROM DRIVE 'items.csv';\n";

interface Case {
  statement: string;
  mistake: string;
  /** The script, with `§` where the caret belongs. */
  script: string;
  reason: RegExp;
}

const c = (statement: string, mistake: string, line: string, reason: RegExp): Case => ({
  statement,
  mistake,
  script: READ + line,
  reason,
});

const CASES: Case[] = [
  c('SELECT', 'missing keyword', '  SELECT * §HTTP [api] (GET /x);', /expected FROM after \* but found 'HTTP'/),
  c('SELECT FROM HTTP', 'bad option name', "  SELECT * FROM HTTP [api] (GET /x) §PAGNG 'page';", /found 'PAGNG'/),
  c(
    'SELECT FROM HTTP',
    'bad option value',
    "  SELECT * FROM HTTP [api] (GET /x) PAGING '§pages';",
    /unknown paging mode 'pages'/,
  ),
  c(
    'SELECT FROM HTTP',
    'unterminated string',
    "  SELECT * FROM HTTP [api] (GET /x) APPLY TX §'$.data;",
    /unterminated string/,
  ),
  c(
    'SELECT FROM HTTP',
    'unknown function',
    '  SELECT * FROM HTTP [api] (GET /x?d=§#nosuch());',
    /unknown function #nosuch/,
  ),
  c(
    'SELECT FROM HTTP',
    'wrong argument count',
    '  SELECT * FROM HTTP [api] (GET /x?d=§#toupper(1,2));',
    /#toupper takes 1 argument, got 2/,
  ),
  c('SELECT FROM HTTP', 'missing verb', '  SELECT * FROM HTTP [api] (§/x);', /expected an HTTP verb/),
  c(
    'SELECT FROM HTTP',
    'bad option value',
    "  SELECT * FROM HTTP [api] (GET /x) PAGING 'token'\n    PAGING_PATH '§$.next[[';",
    /invalid document path '\$\.next\[\['/,
  ),
  c('SELECT FROM DRIVE', 'bad option name', "  SELECT * FROM DRIVE 'items.csv' §FORMATT CSV;", /found 'FORMATT'/),
  c('SELECT FROM DRIVE', 'bad option value', "  SELECT * FROM DRIVE 'items.csv' FORMAT §CVS;", /unknown format 'CVS'/),
  c(
    'SELECT FROM DRIVE',
    'bad OPTIONS key',
    "  SELECT * FROM DRIVE 'items.csv' OPTIONS 'headers:1 §bogus:2';",
    /unknown key 'bogus'/,
  ),
  c('SELECT FROM DRIVE', 'unterminated string', "  SELECT * FROM DRIVE §'items.csv;", /unterminated string/),
  c('SELECT FROM DRIVE', 'unknown function', "  SELECT * FROM DRIVE '§#nosuch().csv';", /unknown function #nosuch/),
  c(
    'SELECT FROM DRIVE',
    'wrong argument count',
    "  SELECT * FROM DRIVE 'x§#toupper().csv';",
    /#toupper takes 1 argument, got 0/,
  ),
  c('SELECT FROM DB', 'bad option name', '  SELECT * FROM DB [lite] (select 1) §TIMEOUTT 5;', /found 'TIMEOUTT'/),
  c(
    'SELECT FROM DB',
    'unknown function',
    "  SELECT * FROM DB [lite] (select '§#nosuch()');",
    /unknown function #nosuch/,
  ),
  c(
    'SELECT FROM DB',
    'SQL the database refuses',
    '  SELECT * FROM DB [lite] (\n    §selec 1);',
    /near "selec": syntax error/,
  ),
  c('APPLY TX', 'bad option name', "  APPLY TX '$' §ONN 'name';", /found 'ONN'/),
  c('APPLY TX', 'bad option value', "  APPLY TX '$' ON '§nope';", /unknown column 'nope'/),
  c('APPLY TX', 'unterminated string', "  APPLY TX §'$;", /unterminated string/),
  c('APPLY SCHEMA', 'bad type', '  APPLY SCHEMA (§integr id);', /unknown type 'integr'/),
  c(
    'APPLY SCHEMA',
    'bad default value',
    "  APPLY SCHEMA (\n    string name\n    int x = '§abc');",
    /default of column 'x': cannot convert 'abc' to int/,
  ),
  c(
    'APPLY SCHEMA',
    'unknown field in a default',
    '  APPLY SCHEMA (\n    string name |text| §{{nope}});',
    /unknown column 'nope'/,
  ),
  c('APPLY SCHEMA', 'bad option name', '  APPLY SCHEMA (int id) §STRICT;', /found 'STRICT'/),
  c('APPLY SCHEMA', 'unknown function', "  APPLY SCHEMA (\n    string x = '§#nosuch()');", /unknown function #nosuch/),
  c(
    'APPLY SCHEMA',
    'wrong argument count',
    '  APPLY SCHEMA (\n    string x |text| §#toupper(1,2));',
    /#toupper takes 1 argument, got 2/,
  ),
  c('APPLY PIPELINE', 'missing block', "  APPLY PIPELINE §PRINT 'x';", /expected a \( … \) block after PIPELINE/),
  c('APPLY PIPELINE', 'bad option name', "  APPLY PIPELINE (PRINT 'x') §BYPAS;", /found 'BYPAS'/),
  c('APPLY HTTP', 'bad option name', "  APPLY HTTP [api] (GET /x) WITH §PROCESING 'replace';", /found 'PROCESING'/),
  c(
    'APPLY HTTP',
    'bad option value',
    "  APPLY HTTP [api] (GET /x) WITH PROCESSING '§replce';",
    /unknown PROCESSING mode 'replce'/,
  ),
  c('APPLY HTTP', 'unknown function', '  APPLY HTTP [api] (GET /x/§#nosuch());', /unknown function #nosuch/),
  c(
    'APPLY HTTP',
    'WHEN without a join mode',
    "  APPLY HTTP [api] (GET /x) WITH PROCESSING 'enhance' WHEN '§id > 1';",
    /WHEN chooses the rows called for in the join modes .*PROCESSING 'enhance' calls once/,
  ),
  c(
    'APPLY HTTP',
    'WHEN with no PROCESSING',
    "  APPLY HTTP [api] (GET /x) WITH WHEN '§nosuch > 1';",
    /PROCESSING 'continue' calls once/,
  ),
  c(
    'APPLY HTTP',
    'missing TABLE of TRACE',
    '  APPLY HTTP [api] (GET /x) TRACE INTO [lite] WITH_PAYLOAD§\n    TIMEOUT 5;',
    /TRACE needs TABLE/,
  ),
  c('APPLY FILTER', 'bad expression', "  APPLY FILTER 'id >§> 2';", /expected a value, a column or '\(' but found '>'/),
  c('APPLY FILTER', 'unknown function', "  APPLY FILTER '§NOSUCH(id) > 1';", /unknown function 'NOSUCH'/),
  c(
    'APPLY FILTER',
    'wrong argument count',
    "  APPLY FILTER 'id > 0 AND §LEN(id, 2) > 1';",
    /LEN takes 1 argument, got 2/,
  ),
  c('APPLY FILTER', 'bad option name', "  APPLY FILTER 'id > 1' §ORDERBY 'id';", /found 'ORDERBY'/),
  c('APPLY FILTER', 'unterminated string', "  APPLY FILTER §'id > 1;", /unterminated string/),
  c('ADD', 'missing keyword', "  ADD §'x=1';", /expected COLUMN or OR after ADD/),
  c('ADD COLUMN', 'bad option name', "  ADD COLUMN 'x=1' §IGNORE_IF_EXIST;", /found 'IGNORE_IF_EXIST'/),
  c('ADD COLUMN', 'bad option value', "  ADD COLUMN 'x' FORMAT §YAML;", /unknown format 'YAML'/),
  c('ADD COLUMN', 'unknown function', "  ADD COLUMN 'x=§#nosuch()';", /unknown function #nosuch/),
  c(
    'ADD COLUMN',
    'wrong argument count',
    "  ADD COLUMN 'x=§@toupper({{name}}, 2)';",
    /@toupper takes 1 argument, got 2/,
  ),
  c('ADD COLUMN', 'unknown column in @sql', "  ADD COLUMN 'x=@sql(id + §nope)';", /unknown column 'nope'/),
  c('ZIP COLUMN', 'missing keyword', "  ZIP COLUMN 'name' §JSON;", /found 'JSON'/),
  c(
    'ZIP COLUMN',
    'bad option value',
    "  ZIP COLUMN 'name' FORMAT JSON BATCH §0;",
    /BATCH expects a whole number of 1 or more/,
  ),
  c('ZIP COLUMN', 'unterminated string', "  ZIP COLUMN §'name FORMAT JSON;", /unterminated string/),
  c('EXEC', 'missing keyword', '  EXEC ON §[lite] (select 1);', /expected DB after ON/),
  c('EXEC ON DB', 'bad option name', '  EXEC ON DB [lite] (select 1) §PERROW;', /found 'PERROW'/),
  c('EXEC ON DB', 'unknown function', "  EXEC ON DB [lite] (select '§#nosuch()');", /unknown function #nosuch/),
  c('EXEC ON DB', 'SQL the database refuses', '  EXEC ON DB [lite] (§selec 1);', /near "selec": syntax error/),
  c('CAPTURE', 'missing keyword', "  CAPTURE 'items' INSERTS ON §'id';", /expected KEYS after ON/),
  c('CAPTURE', 'bad option name', "  CAPTURE 'items' INSERTS ON KEYS 'id' §IGNORE_DUP;", /found 'IGNORE_DUP'/),
  c('CAPTURE', 'bad option value', "  CAPTURE 'items' INSERTS ON KEYS '§nope';", /unknown column 'nope'/),
  c('CAPTURE', 'unterminated string', "  CAPTURE §'items INSERTS;", /unterminated string/),
  c('CAPTURE', 'unknown function', "  CAPTURE '§#nosuch()' INSERTS ON KEYS 'id';", /unknown function #nosuch/),
  c('PUSH INTO HTTP', 'missing keyword', '  PUSH INTO HTTP [api] §(POST /x);', /found '\(POST \/x\)'/),
  c(
    'PUSH INTO HTTP',
    'bad option name',
    '  PUSH INTO HTTP [api] ON_UPSERT (POST /x) WITH §BATCHH 5;',
    /found 'BATCHH'/,
  ),
  c(
    'PUSH INTO HTTP',
    'bad option value',
    '  PUSH INTO HTTP [api] ON_UPSERT (POST /x) WITH BATCH §x;',
    /expected a number after BATCH/,
  ),
  c(
    'PUSH INTO HTTP',
    'unknown function',
    '  PUSH INTO HTTP [api] ON_UPSERT (POST /x/§#nosuch());',
    /unknown function #nosuch/,
  ),
  c('SINK INTO DRIVE', 'missing keyword', "  SINK INTO DRIVE §CSV FILE 'o.csv';", /found 'CSV'/),
  c('SINK INTO DRIVE', 'bad option name', "  SINK INTO DRIVE FORMAT CSV FILE 'o.csv' §ADDHEADER;", /found 'ADDHEADER'/),
  c(
    'SINK INTO DRIVE',
    'bad option value',
    "  SINK INTO DRIVE FORMAT PARQUET FILE 'o.parquet' COMPRESSION '§zip';",
    /COMPRESSION 'zip'/,
  ),
  c('SINK INTO DRIVE', 'unterminated string', "  SINK INTO DRIVE FORMAT CSV FILE §'o.csv;", /unterminated string/),
  c(
    'SINK INTO DRIVE',
    'unknown function',
    "  SINK INTO DRIVE FORMAT CSV FILE '§#nosuch().csv';",
    /unknown function #nosuch/,
  ),
  c(
    'SINK INTO DRIVE',
    'wrong argument count',
    "  SINK INTO DRIVE FORMAT CSV FILE 'o§#toupper(1,2).csv';",
    /#toupper takes 1 argument, got 2/,
  ),
  c('PUSH INTO DRIVE', 'missing keyword', "  PUSH INTO DRIVE §CSV FILE 'o.csv';", /found 'CSV'/),
  c(
    'PUSH INTO DRIVE',
    'bad option name',
    '  PUSH INTO DRIVE FORMAT CSV WITH §DISCARD_ON_SUCESS;',
    /found 'DISCARD_ON_SUCESS'/,
  ),
  c(
    'PUSH INTO DRIVE',
    'bad option value',
    '  PUSH INTO DRIVE FORMAT CSV WITH RETRY LINEAR (§x,1);',
    /expected \(count, seconds\)/,
  ),
  c('SINK INTO DB', 'missing keyword', "  SINK INTO DB [lite] §'t';", /found 't'/),
  c('SINK INTO DB', 'bad option name', "  SINK INTO DB [lite] TABLE 't' WITH §TRUNCAT;", /found 'TRUNCAT'/),
  c('SINK INTO DB', 'unknown function', "  SINK INTO DB [lite] TABLE '§#nosuch()';", /unknown function #nosuch/),
  c('PUSH INTO DB', 'bad option name', "  PUSH INTO DB [lite] TABLE 't' §AUTOMERGE;", /found 'AUTOMERGE'/),
  c(
    'PUSH INTO DB',
    'bad option value',
    '  PUSH INTO DB [lite] ON_UPSERT (insert into t values (1)) BATCH §x;',
    /expected a number after BATCH/,
  ),
  c('MERGE', 'missing keyword', "  MERGE INTO [lite] §'t';", /found 't'/),
  c('MERGE', 'bad option name', "  MERGE INTO [lite] TABLE 't' WITH §KEY_COLUMN 'id';", /found 'KEY_COLUMN'/),
  c(
    'MERGE',
    'bad option value',
    "  MERGE INTO [lite] TABLE 't' WITH KEY COLUMNS 'id, §nope';",
    /unknown column 'nope'/,
  ),
  // A required part the statement lacks is reported where the statement ends, where it was expected.
  c('SINK INTO DRIVE', 'missing required part', "  SINK INTO DRIVE\n    FILE 'o.csv'§;", /needs FORMAT/),
  c('SINK INTO DRIVE', 'missing required part', '  SINK INTO DRIVE FORMAT CSV§ ;', /needs FILE '<name>'/),
  c('PUSH INTO DRIVE', 'missing required part', '  PUSH INTO DRIVE WITH DISCARD_ON_ERROR§;', /needs FORMAT/),
  c('SINK INTO DB', 'missing required part', '  SINK INTO DB [lite] WITH TRUNCATE§;', /needs TABLE '<table>'/),
  c(
    'PUSH INTO DB',
    'missing required part',
    '  PUSH INTO DB [lite]§;',
    /needs TABLE '<table>' AUTO_MERGE, or ON_UPSERT/,
  ),
  c('PUSH INTO DB', 'missing required part', '  PUSH INTO DB [lite] AUTO_MERGE§;', /AUTO_MERGE needs TABLE/),
  c('MERGE', 'missing required part', "  MERGE INTO [lite] WITH KEY COLUMNS 'id'§;", /needs TABLE '<table>'/),
  c('ZIP COLUMN', 'missing required part', "  ZIP COLUMN 'name' BATCH 2§;", /needs FORMAT <CSV\|JSON\|XML>/),
  c(
    'PUSH INTO HTTP',
    'missing required part',
    '  PUSH INTO HTTP [api] WITH BATCH 2§;',
    /needs ON_UPSERT \(…\) or ON_DELETE/,
  ),
  c('APPLY FILTER', 'missing required part', "  APPLY FILTER REGEX '^l'§;", /APPLY FILTER REGEX needs ON '<column>'/),
  c('PRINT', 'unclosed field', "  PRINT 'abc §{{name';", /missing '\}\}' to close this '\{\{'/),
  c('ADD COLUMN', 'unclosed field', "  ADD COLUMN 'x=a §{{name} b';", /missing '\}\}' to close this '\{\{'/),
  c(
    'APPLY HTTP',
    'unclosed field',
    '  APPLY HTTP [api] (GET /x)\n    PAYLOAD ({"id": 1,\n      "name": §{{ name\n    });',
    /missing '\}\}' to close this '\{\{'/,
  ),
  c('PRINT', 'unterminated string', "  PRINT §'abc;", /unterminated string/),
  c('PRINT', 'unknown function', "  PRINT 'abc §#nosuch()';", /unknown function #nosuch/),
  c('PRINT', 'wrong argument count', "  PRINT 'abc §#toupper()';", /#toupper takes 1 argument, got 0/),
  c('EXIT', 'bad option name', '  EXIT §KEP 1;', /found 'KEP'/),
  c('EXIT', 'bad option value', '  EXIT KEEP §x;', /expected a number after KEEP/),
  {
    statement: 'LOAD',
    mistake: 'missing keyword',
    script: "-- LOAD comes first\n  LOAD UPSERTS §'x';",
    reason: /expected FROM after UPSERTS/,
  },
  {
    statement: 'LOAD',
    mistake: 'bad option name',
    script: "-- LOAD comes first\n  LOAD UPSERTS FROM 'x' WITH §KEY_COLUMN 'id';",
    reason: /found 'KEY_COLUMN'/,
  },
  {
    statement: 'LOAD',
    mistake: 'unterminated string',
    script: "-- LOAD comes first\n  LOAD UPSERTS FROM §'x;",
    reason: /unterminated string/,
  },
  {
    statement: 'syntax error',
    mistake: 'unknown command',
    script: "PRINT 'a';\n  §SELEC * FROM DRIVE 'x';",
    reason: /unknown command 'SELEC'/,
  },
];

/** Line and column of the `§` mark, and the script without it. */
function marked(script: string): { code: string; line: number; column: number } {
  const at = script.indexOf('§');
  assert.ok(at >= 0, `the case marks its caret with §: ${script}`);
  const before = script.slice(0, at).split('\n');
  return { code: script.replace('§', ''), line: before.length, column: before[before.length - 1].length + 1 };
}

let api: TestServer;
before(async () => {
  api = await startHttpServer((_req, res) => sendJson(res, { data: [{ id: 1 }] }));
});
after(() => api.close());

function project() {
  const { session, dir } = tempSession({ 'items.csv': 'id,name\n1,lamp\n2,fridge\n' }, 'error-positions');
  session.connections.add({ name: 'api', kind: 'http', baseUrl: api.url });
  session.connections.add({ name: 'lite', kind: 'sqlite', file: join(dir, 'lite.db') });
  return { session, dir };
}

/** Line ends a script may have: Unix, Windows and old Mac (a lone CR), which positions count alike. */
const ENDINGS = { LF: '\n', CRLF: '\r\n', CR: '\r' };

test('each typical mistake of each statement names the statement, its line and column, and the reason, whatever the line ends (Session.execute)', async () => {
  const wrong: string[] = [];
  for (const [ending, eol] of Object.entries(ENDINGS))
    for (const { statement, mistake: kind, script, reason } of CASES) {
      const mistake = `${kind} (${ending})`;
      const { code: lf, line, column } = marked(script);
      const code = lf.replaceAll('\n', eol);
      const { session } = project();
      try {
        await session.run(code);
        wrong.push(`${statement}, ${mistake}: no error\n${code}`);
      } catch (e) {
        assert.ok(e instanceof ScriptError, `${statement}, ${mistake}: ${String(e)}`);
        const at = e.position ? `${e.position.line}:${e.position.column}` : 'no position';
        // What the front ends print in the statement's place (describeError, errorInFile).
        const label = e.statement ?? (e.kind === 'syntax' ? 'syntax error' : 'error');
        if (label !== statement || at !== `${line}:${column}` || !reason.test(e.message))
          wrong.push(
            `${statement}, ${mistake}: got ${label} at ${at}: ${e.message}; expected ${line}:${column}\n${code}`,
          );
      } finally {
        await session.close();
      }
    }
  assert.deepEqual(wrong, []);
});

test('each typical mistake is shown by `sqlcdc run` as file:line:col: STATEMENT: reason, the caret under its word', async () => {
  const wrong: string[] = [];
  const check = async ({ statement, mistake, script, reason }: Case, eol: string) => {
    const { code: lf, line, column } = marked(script);
    const code = lf.replaceAll('\n', eol);
    const { session, dir } = project();
    await session.close();
    writeFileSync(join(dir, 'case.sql'), code);
    const r = await runCli(dir, ['run', 'case.sql', '--workspace', join(dir, 'ws')]);
    // The CLI indents the script line and its caret by two blanks.
    const [first, source, caret] = r.stderr.trimEnd().split('\n').slice(-3);
    const head = `case.sql:${line}:${column}: ${statement}: `;
    const ok =
      r.code === 1 &&
      first.startsWith(head) &&
      reason.test(first) &&
      source === `  ${lf.split('\n')[line - 1]}` &&
      caret === `  ${' '.repeat(column - 1)}^`;
    if (!ok) wrong.push(`${statement}, ${mistake} (${JSON.stringify(eol)}): expected ${head}…\n${r.stderr}`);
  };
  // The CLI renders what Session.execute throws: the first case of each kind of mistake shows it,
  // with Unix and old Mac line ends, a few processes at a time.
  const first = CASES.filter((k, i) => CASES.findIndex((o) => o.mistake === k.mistake) === i);
  const queue = [ENDINGS.LF, ENDINGS.CR].flatMap((eol) => first.map((k) => [k, eol] as const));
  await Promise.all(
    [1, 2, 3].map(async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await check(...next);
    }),
  );
  assert.deepEqual(wrong, []);
});

test('a script with old Mac line ends runs as its Unix form: a -- comment ends at the CR, APPLY SCHEMA takes a column per line', async () => {
  const script =
    "-- load the items\nSELECT * FROM DRIVE 'items.csv'; -- two rows\nAPPLY SCHEMA (\n  int id\n  string name\n);\n";
  for (const eol of Object.values(ENDINGS)) {
    const { session } = project();
    try {
      await session.run(script.replaceAll('\n', eol));
      assert.deepEqual(
        session.dataset.columns.map((c) => `${c.name}:${c.type.base}`),
        ['id:int', 'name:string'],
        JSON.stringify(eol),
      );
      assert.equal(session.dataset.rowCount, 2, JSON.stringify(eol));
    } finally {
      await session.close();
    }
  }
});
