import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseScript } from '../../runtime/script/parser';
import { one, plain } from './helpers';

/** Both spellings must give the same AST (apart from source text). */
function same(a: string, b: string): void {
  const strip = (text: string) => parseScript(text).statements.map((s) => plain({ ...s, source: undefined }));
  assert.deepEqual(strip(a), strip(b), `${a}  ≡  ${b}`);
}

test('CAPTURE: INSERT|UPDATE|DELETE and INSERTS|UPDATES|DELETES', () => {
  same("CAPTURE 'x' INSERT UPDATE DELETE ON KEYS 'id'", "CAPTURE 'x' INSERTS UPDATES DELETES ON KEYS 'id'");
  const c = one("CAPTURE 'x' UPDATE", 'Capture');
  assert.deepEqual([c.inserts, c.updates, c.deletes], [false, true, false]);
});

test('LOAD: UPSERTS, INSERTS and singular forms', () => {
  same("LOAD UPSERTS FROM 'x'", "LOAD INSERTS FROM 'x'");
  same("LOAD UPSERT DELETE FROM 'x'", "LOAD UPSERTS DELETES FROM 'x'");
  same("LOAD UPDATE FROM 'x'", "LOAD UPDATES FROM 'x'");
});

test('KEY_COLUMNS and KEY COLUMNS', () => {
  same("LOAD FROM 'x' KEY COLUMNS 'id'", "LOAD FROM 'x' KEY_COLUMNS 'id'");
  same("MERGE INTO [db] TABLE 't' KEY COLUMNS 'id'", "MERGE INTO [db] TABLE 't' KEY_COLUMNS 'id'");
});

test("FORMAT CSV and FORMAT 'CSV'", () => {
  same("ZIP COLUMN 'c' FORMAT CSV", "ZIP COLUMN 'c' FORMAT 'CSV'");
  same("ZIP COLUMN 'c' FORMAT csv", "ZIP COLUMN 'c' FORMAT 'csv'");
  same("SINK INTO DRIVE FORMAT CSV FILE 'a'", "SINK INTO DRIVE FORMAT 'CSV' FILE 'a'");
  same("ADD COLUMN 'x' FORMAT JSON", "ADD COLUMN 'x' FORMAT 'JSON'");
  same("SELECT * FROM DRIVE 'a' FORMAT XML", "SELECT * FROM DRIVE 'a' FORMAT 'XML'");
});

test('options with or without a leading WITH, and WITH anywhere among them', () => {
  same("APPLY FILTER 'a' WITH LIMIT 3 KEEP_EMPTY", "APPLY FILTER 'a' LIMIT 3 KEEP_EMPTY");
  same("APPLY FILTER 'a' LIMIT 3 WITH KEEP_EMPTY", "APPLY FILTER 'a' LIMIT 3 KEEP_EMPTY");
  same("CAPTURE 'x' ON KEYS 'id' WITH IGNORE_DUPS", "CAPTURE 'x' ON KEYS 'id' IGNORE_DUPS");
  same("SINK INTO DB [d] TABLE 't' WITH TRUNCATE", "SINK INTO DB [d] TABLE 't' TRUNCATE");
  same('PUSH INTO HTTP ON_UPSERT (POST /a) WITH BATCH 5', 'PUSH INTO HTTP ON_UPSERT (POST /a) BATCH 5');
  same("SELECT * FROM HTTP (GET /a) WITH RAWCOL 'r'", "SELECT * FROM HTTP (GET /a) RAWCOL 'r'");
  same("ADD COLUMN 'x' WITH IGNORE_IF_EXISTS", "ADD COLUMN 'x' IGNORE_IF_EXISTS");
});

test("APPLY TX 'path' and APPLY TX (path)", () => {
  const a = one("APPLY TX '..docs'", 'ApplyTx');
  const b = one('APPLY TX (..docs)', 'ApplyTx');
  assert.equal(a.tx.path.value, b.tx.path.value);
  assert.deepEqual([a.tx.path.form, b.tx.path.form], ['quoted', 'block']);
  const s = one('SELECT * FROM HTTP (GET /a) APPLY TX ($.items)', 'SelectHttp');
  assert.equal(s.tx?.path.value, '$.items');
});

test('SELECT without *, and PUSH/SINK/MERGE without INTO', () => {
  same('SELECT FROM HTTP (GET /a)', 'SELECT * FROM HTTP (GET /a)');
  same('SELECT FROM DB [d] (select 1)', 'SELECT * FROM DB [d] (select 1)');
  same('PUSH HTTP ON_UPSERT (POST /a)', 'PUSH INTO HTTP ON_UPSERT (POST /a)');
  same('PUSH DRIVE FORMAT CSV', 'PUSH INTO DRIVE FORMAT CSV');
  same("PUSH DB [d] TABLE 't' AUTO_MERGE", "PUSH INTO DB [d] TABLE 't' AUTO_MERGE");
  same("SINK DB [d] TABLE 't'", "SINK INTO DB [d] TABLE 't'");
  same("SINK DRIVE FORMAT RAW FILE 'x'", "SINK INTO DRIVE FORMAT RAW FILE 'x'");
  same("MERGE [d] TABLE 't'", "MERGE INTO [d] TABLE 't'");
});

test('CONTINUE_ON_HTTP and CONTINUE_ON_HTTPERROR are both accepted', () => {
  same("APPLY HTTP (GET /a) CONTINUE_ON_HTTP '404'", "APPLY HTTP (GET /a) CONTINUE_ON_HTTPERROR '404'");
  same(
    "PUSH INTO HTTP ON_UPSERT (POST /a) CONTINUE_ON_HTTPERROR '404'",
    "PUSH INTO HTTP ON_UPSERT (POST /a) CONTINUE_ON_HTTP '404'",
  );
});

test('options come in any order', () => {
  same("APPLY FILTER REGEX 'a' SINGLE_LINE LIMIT 2 ON 'c'", "APPLY FILTER REGEX 'a' ON 'c' LIMIT 2 SINGLE_LINE");
  same("ZIP COLUMN 'c' BATCH 2 FORMAT XML", "ZIP COLUMN 'c' FORMAT XML BATCH 2");
});
