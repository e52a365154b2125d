import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScriptError } from '../../runtime/errors';
import { allFunctions } from '../../runtime/functions/registry';
import type { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';
import { seeded, JS_FAILURE } from './helpers';

const ORDERS = JSON.stringify({
  orders: [
    { id: 1, customer: 'Ann', total: 12.5 },
    { id: 2, customer: null, total: -3 },
  ],
});

/** Runs a cell; returns its PRINT texts, or the ScriptError it stopped on. */
async function outcome(session: Session, cell: string): Promise<{ prints: string[]; error?: ScriptError }> {
  const prints: string[] = [];
  for await (const r of session.execute(cell)) {
    if (r.kind === 'message') prints.push(r.text);
    if (r.kind === 'error') return { prints, error: r.error };
  }
  return { prints };
}

test('#parsejson on a document that is 0, false or null: a path selects nothing, $ the value itself', async () => {
  const { session } = tempSession({}, 'fuzz-fn');
  // jsonpath-plus answers a falsy document with undefined: this was "Cannot read properties of undefined".
  const r = await outcome(
    session,
    "PRINT '[#parsejson(0, a)]'; PRINT '[#parsejson(false, $)]'; PRINT '[#parsejson(''null'', a.b)]'; PRINT '[#parsejson(0, $)]';",
  );
  assert.equal(r.error, undefined, r.error?.message);
  assert.deepEqual(r.prints, ['[]', '[false]', '[]', '[0]']);
});

test('a JSONPath that jsonpath-plus accepts but cannot walk is an error in words, not its TypeError', async () => {
  const { session } = tempSession({}, 'fuzz-fn');
  for (const path of ['$^', '$[(@.length-1)]']) {
    const { error } = await outcome(session, `PRINT '#parsejson(''{"a":1}'', ${path})';`);
    assert.ok(error, path);
    assert.equal(error.message, `#parsejson: invalid JSON path '${path}': it cannot be evaluated on this document`);
  }
});

test('APPLY TX with a JSONPath filter on a document that is 0 or null gives no rows, not "nodes is not iterable"', async () => {
  const { session } = tempSession({ 'zero.json': '0', 'null.json': 'null' }, 'fuzz-fn');
  for (const file of ['zero.json', 'null.json']) {
    const { error } = await outcome(session, `SELECT * FROM DRIVE '${file}' FORMAT JSON APPLY TX '$[?(@.a > 0)]';`);
    assert.equal(error, undefined, `${file}: ${error?.message}`);
    assert.deepEqual(await outcome(session, "PRINT '#data.count()';"), { prints: ['0'] });
  }
});

test('#format: an alignment or index of a million or more is a bad format (.NET), not "Invalid string length"', async () => {
  const { session } = tempSession({}, 'fuzz-fn');
  for (const item of ['{0,999999999999}', '{0,-1000000}', '{1000000}']) {
    const { error } = await outcome(session, `PRINT '#format(''${item}'', 1)';`);
    assert.equal(
      error?.message,
      `#format: bad format '${item}': '${item}' has an index or alignment beyond 999999 (the .NET limit)`,
    );
    assert.deepEqual(error.position, { line: 1, column: 8, offset: 7 });
  }
  const [wide] = (await outcome(session, "PRINT '#format(''{0,-999999}|'', 1)';")).prints;
  assert.equal(wide, '1' + ' '.repeat(999998) + '|');
});

/** Arguments that have broken functions before: empty, null, extremes, other types, odd characters. */
const ARGUMENTS = [
  '',
  'NULL',
  '-1',
  '0',
  '1e308',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '99999999999999999999999',
  '-2147483649',
  'x'.repeat(5000),
  '😀é',
  '\ud800',
  '\0',
  '{{customer}}',
  '{{total}}',
  'abc',
  '2024-01-01',
  '9999-12-31',
  '[1,2]',
  '{"a":1}',
  '<a/>',
  'true',
  ' ',
  "'",
  ',',
  '-0',
  '1e-400',
  '{0}',
  '{0:N99}',
  '$.a',
  '//a',
  '-5d',
  '1000000000y',
  '(',
  '\\',
];

/**
 * Every function of the registry called with random arguments from ARGUMENTS (mostly a count it
 * takes, sometimes one it does not), as #f() in a PRINT and as @f() per row in an ADD COLUMN: a
 * result, or a ScriptError naming the function with its position — never a JavaScript failure.
 */
test('every function called with odd arguments gives a result or a ScriptError naming it', async () => {
  const random = seeded(20261127);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const { session } = tempSession({ 'orders.json': ORDERS }, 'fuzz-fn');
  await session.run("SELECT * FROM DRIVE 'orders.json' FORMAT JSON APPLY TX '$.orders';");
  const rows = session.dataset;
  // Image functions read files; their odd inputs are covered by their own tests.
  const calls = allFunctions()
    .filter((d) => d.impl && !d.names[0].startsWith('image2pdf'))
    .flatMap((d) => d.names.map((name) => ({ name, arity: d.arity })));
  let errors = 0;
  for (let i = 0; i < 1500; i++) {
    const { name, arity } = pick(calls);
    const most = Math.min(arity[1], arity[0] + 3);
    const count =
      random() < 0.85 ? arity[0] + Math.floor(random() * (most - arity[0] + 1)) : Math.floor(random() * (most + 2));
    const args = Array.from({ length: count }, () => {
      const a = pick(ARGUMENTS);
      const r = random();
      if (r < 0.4 && !/[,()'"]/.test(a)) return a;
      return r < 0.8 ? `'${a.replace(/'/g, "''")}'` : `"${a}"`;
    });
    const perRow = random() < 0.4;
    const call = `${perRow ? '@' : '#'}${name}(${args.join(', ')})`.replace(/'/g, "''");
    const cell = perRow ? `ADD COLUMN 'c=${call}';` : `PRINT '${call}';`;
    session.setDataset(rows);
    const { prints, error } = await outcome(session, cell);
    for (const p of prints) assert.doesNotMatch(p, /undefined|\[object/, cell);
    if (!error) continue;
    errors++;
    assert.ok(error instanceof ScriptError, cell);
    assert.doesNotMatch(error.message, JS_FAILURE, cell);
    assert.ok(error.position, `${cell}: ${error.message} has a position`);
    assert.ok(
      error.message.toLowerCase().includes(name) || /needs a row|unknown column|expected|missing/.test(error.message),
      `${cell}: ${error.message} names the function`,
    );
  }
  assert.ok(errors > 300, `odd arguments are mostly errors (${errors})`);
});
