import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScriptError } from '../../runtime/errors';
import { NESTING_LIMIT } from '../../runtime/script/limits';
import type { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';

/**
 * Deep input through the whole interpreter: nesting past NESTING_LIMIT is a ScriptError at the level
 * that goes past it (never a RangeError or a crash), nesting up to it runs — all layers at once — and
 * operator chains of any length run.
 */

const L = NESTING_LIMIT;
const CSV = 'id,name\n1,a\n2,b\n3,c\n4,d\n5,e\n';
const READ = "SELECT * FROM DRIVE 'd.csv';\n";

function newSession(): Session {
  return tempSession({ 'd.csv': CSV }, 'nesting').session;
}

const deep = (open: string, inner: string, close: string, levels: number) =>
  `${open.repeat(levels)}${inner}${close.repeat(levels)}`;

/** Runs `text` and checks its error; then the session still runs statements. */
async function fails(
  s: Session,
  text: string,
  expected: { statement: string; line: number; column: number; message: string | RegExp },
): Promise<void> {
  await assert.rejects(s.run(text), (e: unknown) => {
    assert.ok(e instanceof ScriptError, `a ScriptError, got ${String(e)}`);
    if (typeof expected.message === 'string') assert.equal(e.message, expected.message);
    else assert.match(e.message, expected.message);
    assert.equal(e.statement, expected.statement);
    assert.deepEqual([e.position?.line, e.position?.column], [expected.line, expected.column], e.message.slice(0, 200));
    return true;
  });
  const results = await s.run(`${READ}APPLY FILTER 'id > 4';`);
  const table = results.find((r) => r.kind === 'table');
  assert.equal(table?.kind === 'table' && table.dataset.rowCount, 1, 'the session runs on');
}

const tooDeep = (at: number) => new RegExp(`^nested too deeply \\(limit ${L}\\) \\(at character ${at} of expression '`);

test('a filter with 2,000 nested parentheses: an error at the first one past the limit', async () => {
  const filter = deep('(', 'id > 1', ')', 2000);
  await fails(newSession(), `${READ}APPLY FILTER '${filter}';`, {
    statement: 'APPLY FILTER',
    line: 2,
    column: 15 + L,
    message: tooDeep(L + 1),
  });
});

test('3,000 nested calls: #toupper in a column default, CONVERT and IIF in expressions', async () => {
  const s = newSession();
  await fails(s, `${READ}ADD COLUMN 'x=${deep('#toupper(', 'a', ')', 3000)}';`, {
    statement: 'ADD COLUMN',
    line: 2,
    column: 15 + L * '#toupper('.length,
    message: `nested too deeply (limit ${L})`,
  });
  await fails(s, `${READ}APPLY FILTER '${deep('CONVERT(', 'id', ", ''System.Int32'')", 3000)} > 1';`, {
    statement: 'APPLY FILTER',
    line: 2,
    column: 15 + L * 'CONVERT('.length,
    message: tooDeep(L * 'CONVERT('.length + 1),
  });
  // An expression inside a template: positions count from the @sql argument.
  await fails(s, `${READ}ADD COLUMN 'x=@sql(${deep('IIF(true, ', 'id', ', 0)', 3000)})';`, {
    statement: 'ADD COLUMN',
    line: 2,
    column: 20 + L * 'IIF(true, '.length,
    message: tooDeep(L * 'IIF(true, '.length + 1),
  });
});

test('APPLY PIPELINE nested 3,000 and 10,000 deep: an error at the first pipeline past the limit', async () => {
  const s = newSession();
  for (const levels of [3000, 10000]) {
    await fails(s, `PRINT 'start';\n${deep('APPLY PIPELINE (', "PRINT 'x'", ')', levels)};`, {
      statement: 'APPLY PIPELINE',
      line: 2,
      column: 1 + L * 'APPLY PIPELINE ('.length,
      message: `nested too deeply (limit ${L})`,
    });
  }
  // A SELECT's inline pipeline is a level too.
  const inline = `SELECT * FROM DRIVE 'd.csv' APPLY PIPELINE (${deep('APPLY PIPELINE (', "PRINT 'x'", ')', L)});`;
  await fails(s, inline, {
    statement: 'APPLY PIPELINE',
    line: 1,
    column: inline.indexOf('APPLY PIPELINE') + 1 + L * 'APPLY PIPELINE ('.length,
    message: `nested too deeply (limit ${L})`,
  });
});

test('every layer nested to the limit at once runs: pipelines, calls around @sql, parentheses', async () => {
  const s = newSession();
  // The CONVERT call is the deepest level of the expression.
  const expression = deep('(', "CONVERT(id, 'System.Int32') * 10", ')', L - 1);
  const template = deep('@toupper(', `@sql(${expression})`, ')', L - 1);
  const inner = `ADD COLUMN 'x=${template.replace(/'/g, "''")}';\nAPPLY FILTER '${deep('(', 'id > 3', ')', L)}'`;
  const results = await s.run(`${READ}${deep('APPLY PIPELINE (', inner, ')', L)};`);
  const table = results.find((r) => r.kind === 'table');
  assert.ok(table?.kind === 'table');
  assert.deepEqual(table.dataset.rows(), [
    ['4', 'd', '40'],
    ['5', 'e', '50'],
  ]);
});

test('flat chains of 16,000 AND / OR terms and of 40,000 arithmetic terms run', async () => {
  const s = newSession();
  // id = k AND name <> 'zz' OR …: AND binds first, so this is an OR of 8,000 ANDs.
  const filter = Array.from({ length: 8000 }, (_, k) => `id = ${k + 3} AND name <> ''zz''`).join(' OR ');
  let results = await s.run(`${READ}APPLY FILTER '${filter}';`);
  let table = results.find((r) => r.kind === 'table');
  assert.ok(table?.kind === 'table');
  assert.deepEqual(
    table.dataset.rows().map((r) => r[0]),
    ['3', '4', '5'],
  );
  // 40,001 terms of * / + -, which is id again.
  const arithmetic = `CONVERT(id, 'System.Int32')${' * 2 / 2 + 1 - 1'.repeat(8000)}`;
  results = await s.run(
    `${READ}APPLY FILTER '${arithmetic.replace(/'/g, "''")} > 3';\nADD COLUMN 'x=@sql(${arithmetic.replace(/'/g, "''")})';`,
  );
  table = results.find((r) => r.kind === 'table');
  assert.ok(table?.kind === 'table');
  assert.deepEqual(
    table.dataset.rows().map((r) => [r[0], r[2]]),
    [
      ['4', '4'],
      ['5', '5'],
    ],
  );
});
