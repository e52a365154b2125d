import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';
import { ScriptError } from '../../runtime/errors';
import { startHttpServer } from '../helpers/http-server';

/**
 * Errors about one argument of a statement put their caret under that argument, not at the
 * statement's start. Each case marks the expected caret with `§` (removed before running).
 */

function newSession(): Session {
  const { session: s, dir } = tempSession(
    { 'items.csv': 'id,name\n1,lamp\n2,fridge\n', 'broken.json': '{"id": ' },
    'positions',
  );
  s.connections.add({ name: 'files', kind: 'drive', root: dir });
  s.connections.add({ name: 'api', kind: 'http', baseUrl: 'http://127.0.0.1:1' });
  return s;
}

async function assertCaret(s: Session, marked: string, reason: RegExp): Promise<void> {
  const at = marked.indexOf('§');
  assert.ok(at >= 0, 'the case marks its caret with §');
  const code = marked.replace('§', '');
  const before = code.slice(0, at).split('\n');
  const expected = { line: before.length, column: before[before.length - 1].length + 1, offset: at };
  await assert.rejects(s.run(code), (e: unknown) => {
    assert.ok(e instanceof ScriptError, String(e));
    assert.match(e.message, reason);
    assert.deepEqual(e.position, expected, `${e.message}\n${code}`);
    return true;
  });
}

const ITEMS = "SELECT * FROM DRIVE 'items.csv';\n";

test('file paths: a missing file, a file that does not parse, CSV options', async () => {
  const s = newSession();
  await assertCaret(s, "SELECT * FROM DRIVE '§missing.csv';", /file not found/);
  await assertCaret(s, "SELECT * FROM DRIVE\n    [files] '§broken.json';", /invalid JSON/);
  await assertCaret(s, "SELECT * FROM DRIVE 'items.csv' OPTIONS 'headers:1 §bogus:2';", /unknown key 'bogus'/);
  await assertCaret(s, "SELECT * FROM DRIVE 'items.csv' APPLY TX '§headers:x';", /headers/);
});

test('connection names: unknown, or of the wrong kind', async () => {
  const s = newSession();
  await assertCaret(s, "SELECT * FROM DRIVE §[nope] 'items.csv';", /unknown connection \[nope\]/);
  await assertCaret(s, "SELECT * FROM DRIVE §[api] 'items.csv';", /is a http connection; expected drive/);
  await assertCaret(s, 'SELECT * FROM HTTP §[files] (GET /x);', /is a drive connection; expected http/);
  await assertCaret(s, "PRINT 'a';\n  SELECT * FROM HTTP §[missing api] (GET /x);", /unknown connection/);
});

test('ON columns, ORDER BY and INCLUDE/EXCLUDE name unknown columns under their list', async () => {
  const s = newSession();
  await assertCaret(s, `${ITEMS}APPLY TX '$' ON '§nope';`, /unknown column 'nope'/);
  await assertCaret(s, `${ITEMS}APPLY TX '$' ON '§name';`, /name/);
  await assertCaret(s, `${ITEMS}APPLY FILTER REGEX 'x' ON '§nope';`, /unknown column 'nope'/);
  await assertCaret(s, `${ITEMS}APPLY FILTER 'id > 0' ORDER BY '§id, nope DESC';`, /ORDER BY: unknown column 'nope'/);
  await assertCaret(s, `${ITEMS}ADD COLUMN (doc='') FORMAT JSON INCLUDE '§id,nope';`, /INCLUDE: unknown column 'nope'/);
  await assertCaret(s, `${ITEMS}ADD COLUMN (doc='') FORMAT JSON EXCLUDE '§nope';`, /EXCLUDE: unknown column 'nope'/);
  await assertCaret(s, `${ITEMS}ZIP COLUMN '§nope' FORMAT JSON;`, /unknown column 'nope'/);
});

test('FORMAT OPTIONS, FIXED_LENGTH and BATCH errors point at the option or number, not the statement', async () => {
  const s = newSession();
  await assertCaret(
    s,
    `${ITEMS}ADD COLUMN 'x' FORMAT CSV OPTIONS 'trim:1 §fields:3';`,
    /OPTIONS fields gives 1 width for 2 fields/,
  );
  await assertCaret(
    s,
    `${ITEMS}ADD COLUMN 'x' FORMAT CSV\n  OPTIONS 'headers:1\n   §fields:3, 4';`,
    /fields must be positive widths/,
  );
  await assertCaret(s, `${ITEMS}ADD COLUMN 'x' FORMAT CSV OPTIONS 'headers:1 §skip:-1';`, /skip must be an integer/);
  await assertCaret(
    s,
    `${ITEMS}ADD COLUMN 'x' FORMAT JSON OPTIONS 'trim:1 §delimiter:;';`,
    /applies to FORMAT CSV only/,
  );
  await assertCaret(s, `${ITEMS}ADD COLUMN 'x' FORMAT JSON OPTIONS 'flatten:1 §date:yyyy-MM-dd fffffffff';`, /date:/);
  await assertCaret(
    s,
    `${ITEMS}SINK INTO DRIVE FORMAT CSV FILE 'f.txt' FIXED_LENGTH '§3';`,
    /FIXED_LENGTH '3' gives 1 width for 2 fields/,
  );
  await assertCaret(s, `${ITEMS}ZIP COLUMN 'name' FORMAT JSON BATCH §0;`, /BATCH expects a whole number of 1 or more/);
});

test('bad type names in APPLY SCHEMA and ADD COLUMN', async () => {
  const s = newSession();
  await assertCaret(s, `${ITEMS}APPLY SCHEMA (\n  long id\n  §varchar[x] name\n);`, /unknown type|type/);
  await assertCaret(s, `${ITEMS}ADD COLUMN '§bogus total=1';`, /unknown type 'bogus'/);
  await assertCaret(s, `${ITEMS}ADD OR ALTER COLUMN '  §decimal(1, 5) id';`, /decimal/);
  await assertCaret(s, `${ITEMS}ADD COLUMN (§bogus total='1');`, /unknown type 'bogus'/);
  await assertCaret(s, `${ITEMS}ADD COLUMN '§bogus total' WITH EXPRESSION '1';`, /unknown type 'bogus'/);
});

test('HTTP targets: a failed call points at the path or URL', async () => {
  const server = await startHttpServer((_, res) => void res.writeHead(500).end('boom'));
  try {
    const s = newSession();
    await assertCaret(s, `SELECT * FROM HTTP (GET §${server.url}/orders);`, /HTTP 500/);
    await assertCaret(s, 'SELECT * FROM HTTP (GET   §orders);', /relative path/);
  } finally {
    await server.close();
  }
});

test('errors without an argument still point at their statement', async () => {
  const s = newSession();
  await assertCaret(s, `${ITEMS}§ADD COLUMN 'id=1';`, /already exists/);
  await assertCaret(s, "PRINT 'a';\n§APPLY TX '$';", /empty|payload/);
});

test("a caret inside a quoted string stays on its word after doubled quotes ('') before it", async () => {
  const s = newSession();
  await assertCaret(
    s,
    `${ITEMS}ADD COLUMN 'x' FORMAT JSON OPTIONS 'date:yyyy''T''HH §nokey:1';`,
    /unknown key 'nokey'/,
  );
  await assertCaret(s, `${ITEMS}ADD COLUMN 'x' FORMAT CSV OPTIONS 'date:''at'' HH\n ''h''  §skip:-1';`, /skip must be/);
  await assertCaret(s, "PRINT 'it''s ''x'' §#nosuch()';", /unknown function #nosuch/);
  await assertCaret(s, `${ITEMS}APPLY FILTER 'name = ''lamp'' AND §nope > 1';`, /nope/);
  await assertCaret(s, `${ITEMS}ADD COLUMN 'label=@sql(IIF(id > 1, ''a'', §nope))';`, /nope/);
});

test("a caret after a doubled quote ('') in ADD COLUMN's (name='…') default stays on its word, lone quotes or not", async () => {
  const s = newSession();
  await assertCaret(s, `${ITEMS}ADD COLUMN (label='it''s ''x'' §#nosuch()');`, /unknown function #nosuch/);
  await assertCaret(s, `${ITEMS}ADD COLUMN (label='@sql(IIF(id > 1, ''a''''b'', §nope))');`, /nope/);
  await assertCaret(s, `${ITEMS}ADD COLUMN (label='it''s @sql(IIF(id > 1, 'a', §nope))');`, /nope/);
  await assertCaret(
    s,
    `${ITEMS}ADD COLUMN (label='@sql(IIF(id > 1, 'a', 'b')) it''s\n  ''x'' §#nosuch()');`,
    /unknown function #nosuch/,
  );
});
