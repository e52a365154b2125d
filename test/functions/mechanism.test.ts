import { test } from 'node:test';
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { compileTemplate, compileValue, evaluateText } from '../../runtime/functions/evaluate';
import { ScriptError } from '../../runtime/errors';
import { NESTING_LIMIT } from '../../runtime/script/limits';
import { tempSession } from '../helpers/session';
import { dataset, ev, newState } from './helpers';

const people = () =>
  dataset(
    [
      ['name', 'string'],
      ['amount', 'double'],
      ['qty', 'int'],
      ['blob', 'bytes'],
      ['big', 'long'],
      ['price', 'decimal'],
    ],
    [
      ['ann', 1234.5, 2, new Uint8Array([0x68, 0x69]), 9007199254740993n, new Decimal('1.10')],
      ['Bob, Jr', 2, 3, null, 1n, null],
    ],
  );

test('evaluateText: literal text, nesting, case-insensitive names', () => {
  assert.equal(ev('plain text'), 'plain text');
  assert.equal(ev('#TOUPPER(abc) and #ToLower(DEF)'), 'ABC and def');
  assert.equal(ev('#left(#toupper(#reverse(abc)), 2)'), 'CB');
  assert.equal(ev('#urlencode(#utctoiso8601(2009-06-15T13:45:30))'), '2009-06-15T13%3A45%3A30.0000000Z');
  assert.equal(ev('email me # at #notacall or @home'), 'email me # at #notacall or @home');
});

test('arguments: quoted commas, doubled quotes, null, empty, spaces', () => {
  assert.equal(ev("#iif(1, 'a, b', c)"), 'a, b');
  assert.equal(ev('#iif(0, "a, b", "c, d")'), 'c, d');
  assert.equal(ev("#replace('it''s', '''', x)"), 'itxs');
  assert.equal(ev('#isnull(null, was null)'), 'was null');
  assert.equal(ev('#isnull(NULL, x)'), 'x');
  assert.equal(ev("#len('')"), '0');
  assert.equal(ev('#len()'.replace('()', "('  ')")), '2');
  assert.equal(ev('#pick(lamp,lamp,lamp)'), 'lamp');
  assert.equal(ev('#toupper(a (b) c)'), 'A (B) C');
  assert.equal(ev("#trim('  x  ')"), 'x');
});

test('errors: unknown function with suggestion, arity, unclosed call, function named with position', () => {
  assert.throws(
    () => ev('#toupr(x)'),
    (e: ScriptError) => e instanceof ScriptError && /unknown function #toupr; did you mean #toupper\?/.test(e.message),
  );
  assert.throws(
    () => ev('#zzzzzzzz(x)'),
    (e: ScriptError) => /unknown function #zzzzzzzz$/.test(e.message),
  );
  assert.throws(() => ev('#left(abc)'), /#left takes 2 arguments, got 1: #left\(a, n\)/);
  // The usage shows the sigil and the name as the call wrote them.
  assert.throws(
    () => ev('@hash_sha256(a, b)'),
    (e: ScriptError) => e.message === '@hash_sha256 takes 1 argument, got 2: @hash_sha256(a)',
  );
  assert.throws(
    () => ev('#TOUPPER(a, b)'),
    (e: ScriptError) => e.message === '#TOUPPER takes 1 argument, got 2: #TOUPPER(a)',
  );
  assert.throws(
    () => ev('#format()'),
    (e: ScriptError) => e.message === '#format takes at least 1 argument, got 0: #format(a, b, ...)',
  );
  assert.throws(
    () => ev('#concatxml(<r/>)'),
    (e: ScriptError) => e.message.startsWith('#concatxml joins the rows of a batch'),
  );
  assert.throws(() => ev('#left(abc, 2'), /#left: missing '\)'/);
  assert.throws(() => ev("#iif(1, 'a, b)"), /unclosed ' in an argument/);
  assert.throws(
    () => ev('#left(abc, x)'),
    (e: ScriptError) => e.message === "#left: n must be an integer, got 'x'",
  );
  const at = { line: 3, column: 5, offset: 40 };
  assert.throws(
    () => evaluateText({ value: 'ab #left(abc, -1)', pos: at, form: 'quoted' }, newState()),
    (e: ScriptError) =>
      e.position?.line === 3 && e.position.column === 8 && /#left: n must be 0 or more/.test(e.message),
  );
});

test(`calls nest up to ${NESTING_LIMIT} levels, quoted arguments included; one more is an error at that call`, () => {
  const L = NESTING_LIMIT;
  const at = { line: 3, column: 5, offset: 40 };
  const nested = (levels: number) => `${'#toupper('.repeat(levels)}abc${')'.repeat(levels)}`;
  assert.equal(ev(nested(L)), 'ABC');
  // A quoted argument is a template parsed one level down: its calls count with the call around it.
  const quoted = `#toupper('${nested(L)}')`;
  for (const [text, offset] of [
    [nested(L + 1), L * 9],
    [quoted, "#toupper('".length + (L - 1) * 9],
  ] as const) {
    assert.throws(
      () => evaluateText({ value: text, pos: at, form: 'quoted' }, newState()),
      (e: unknown) => {
        assert.ok(e instanceof ScriptError, String(e));
        assert.equal(e.message, `nested too deeply (limit ${L})`);
        assert.equal(e.kind, 'syntax');
        assert.deepEqual(e.position, { line: 3, column: 5 + offset, offset: 40 + offset });
        return true;
      },
    );
  }
});

test('evaluateText: a field needs a row', () => {
  assert.throws(() => ev('x {{name}}'), /\{\{name\}\} needs a row/);
});

test('compileTemplate: fields, @ per row, # once, unknown column', () => {
  const ds = people();
  const t = compileTemplate('{{name}}: @toupper({{name}}) #rndguid()');
  assert.equal(t.perRow, true);
  assert.deepEqual(t.fields, ['name', 'name']);
  const f = t.bind(newState(ds), ds);
  const [a, b] = ds.rows().map(f);
  assert.match(a, /^ann: ANN [0-9a-f-]{36}$/);
  assert.match(b, /^Bob, Jr: BOB, JR [0-9a-f-]{36}$/);
  assert.equal(a.slice(-36), b.slice(-36), '#rndguid() is evaluated once');
  const perRow = compileTemplate('@rndguid()').bind(newState(ds), ds);
  assert.notEqual(perRow(ds.rows()[0], 0), perRow(ds.rows()[1], 1), '@rndguid() is evaluated per row');
  const byRow = compileTemplate('#rndguid()').bind(newState(ds), ds, { fxByRow: true });
  assert.notEqual(byRow(ds.rows()[0], 0), byRow(ds.rows()[1], 1), 'fxByRow re-evaluates #f()');
  assert.equal(compileTemplate('#toupper(x)').perRow, false);
  assert.throws(
    () => compileTemplate('{{nope}}').bind(newState(ds), ds),
    /unknown column 'nope' in \{\{nope\}\} \(columns: name, amount, qty, blob, big, price\)/,
  );
});

test('compileTemplate: a #f() with a field argument is evaluated per row; field names are case-insensitive', () => {
  const ds = people();
  const f = compileTemplate('#toupper({{NAME}})').bind(newState(ds), ds);
  assert.deepEqual(ds.rows().map(f), ['ANN', 'BOB, JR']);
});

test('binary prefixes and value display', () => {
  const ds = people();
  const f = compileTemplate(
    '{{blob}}|{{hex:blob}}|{{base64:blob}}|{{utf8:blob}}|{{ascii:blob}}|{{unicode:blob}}|{{base64:name}}|{{big}}|{{price}}|{{amount}}',
  ).bind(newState(ds), ds);
  assert.equal(
    f(ds.rows()[0], 0),
    `6869|6869|aGk=|hi|hi|${Buffer.from([0x68, 0x69]).toString('utf16le')}|YW5u|9007199254740993|1.1|1234.5`,
  );
  assert.equal(f(ds.rows()[1], 1), '||||||Qm9iLCBKcg==|1||2');
});

test('compileValue keeps the type of a whole-text call or field; mixed text is a string', () => {
  const ds = people();
  const st = newState(ds);
  assert.equal(compileValue('{{qty}}').bind(st, ds)(ds.rows()[0], 0), 2);
  assert.equal(compileValue(' {{big}} ').bind(st, ds)(ds.rows()[0], 0), 9007199254740993n);
  assert.equal(compileValue('@increment({{qty}})').bind(st, ds)(ds.rows()[1], 1), 4);
  assert.equal(compileValue('@increment({{big}})').bind(st, ds)(ds.rows()[0], 0), 9007199254740994n);
  assert.equal(compileValue('n={{qty}}').bind(st, ds)(ds.rows()[0], 0), 'n=2');
  assert.equal(compileValue('constant').bind(st, ds)(ds.rows()[0], 0), 'constant');
  assert.equal(compileValue('constant').perRow, false);
  assert.equal(compileValue('@isnull({{blob}}, null)').bind(st, ds)(ds.rows()[1], 1), null);
  assert.equal(compileValue("@format('{0:N2}', {{amount}})").bind(st, ds)(ds.rows()[0], 0), '1,234.50');
});

test('@sql(expression) is a computed value in the expression language', () => {
  const ds = people();
  const f = compileValue('@sql(qty * 2 + 1)').bind(newState(ds), ds);
  assert.deepEqual(
    ds.rows().map((r, i) => f(r, i)),
    [5, 7],
  );
  assert.throws(() => ev('@sql(1 + 1)'), /needs a row/);
});

test('bindBatch: operators expand per row, # inside them per row, errors outside a batch', () => {
  const ds = people();
  const st = newState(ds);
  const json = compileTemplate(
    '{"n": {{qty}}, "items": [@concatjson({"name": "@toupper({{name}})", "g": "#rndguid()"})]}',
  );
  assert.equal(json.batch, true);
  const out = JSON.parse(json.bindBatch(st, ds)(ds.rows(), 0)) as { n: number; items: { name: string; g: string }[] };
  assert.equal(out.n, 2);
  assert.deepEqual(
    out.items.map((i) => i.name),
    ['ANN', 'BOB, JR'],
  );
  assert.notEqual(out.items[0].g, out.items[1].g);
  const xml = compileTemplate('<r>@concatxml(<i q="{{qty}}">it\'s</i>)</r>').bindBatch(st, ds);
  assert.equal(xml(ds.rows(), 0), '<r><i q="2">it\'s</i><i q="3">it\'s</i></r>');
  const sql = compileTemplate("@sql(INSERT INTO t VALUES ('{{name}}', ')'))").bindBatch(st, ds);
  assert.equal(sql(ds.rows(), 0), "INSERT INTO t VALUES ('ann', ')');\nINSERT INTO t VALUES ('Bob, Jr', ')');");
  assert.throws(() => compileTemplate('[@concatjson({"a": 1})]').bind(st, ds), /@concatjson joins the rows of a batch/);
});

test('SQL texts: #statebag of a missing single-quoted key is NULL there, empty elsewhere', () => {
  const st = newState();
  assert.equal(evaluateText("WHERE id > #statebag('last')", st, { sql: true }), 'WHERE id > NULL');
  assert.equal(evaluateText('WHERE id > #statebag(last)', st, { sql: true }), 'WHERE id > ');
  assert.equal(evaluateText("x#statebag('last')", st), 'x');
  evaluateText('#statebag(Last, 42)', st);
  assert.equal(evaluateText("WHERE id > #statebag('last')", st, { sql: true }), 'WHERE id > 42');
});

test('@pipelinedata() is left for EXEC ON DB', () => {
  assert.equal(ev('SELECT * FROM @pipelinedata()'), 'SELECT * FROM @pipelinedata()');
});

test('through a Session: PRINT evaluates functions; errors carry statement and position', async () => {
  const { session: s } = tempSession({}, 'fn');
  const out = await s.run("PRINT '#toupper(abc) #iif(0, yes, ''no, never'')';");
  assert.deepEqual(out, [{ kind: 'message', text: 'ABC no, never' }]);
  await assert.rejects(
    s.run("PRINT 'x #toupr(a)';"),
    (e: ScriptError) => e.statement === 'PRINT' && e.position?.column === 10 && /did you mean #toupper/.test(e.message),
  );
  const bag = await s.run("PRINT '#statebag(k, 1)'; PRINT '#statebag(k)';");
  assert.deepEqual(
    bag.map((r) => (r.kind === 'message' ? r.text : '')),
    ['1', '1'],
  );
  const next = await s.run("PRINT '[#statebag(k)]';");
  assert.deepEqual(next, [{ kind: 'message', text: '[]' }], 'the statebag lives for one execution');
});

test("#format's format string: {{ and }} escape braces unless {{ starts a field name", async () => {
  const { session: s } = tempSession({}, 'fn');
  const printed = async (text: string) => {
    const [r] = await s.run(`PRINT '${text.replace(/'/g, "''")}';`);
    return r.kind === 'message' ? r.text : r.kind;
  };
  assert.equal(await printed("#format('{{0}} is {0}', x)"), '{0} is x');
  assert.equal(await printed("#format('{{{0}}}', x)"), '{x}');
  assert.equal(await printed("#format('{{ {0} }}', x)"), '{ x }');
  assert.equal(await printed("#format('a }} b {{', x)"), 'a } b {');
  assert.equal(await printed('#format({{{0}}}, x)'), '{x}', 'unquoted too');
  await assert.rejects(s.run("PRINT '[{{0}}]';"), /\{\{0\}\} needs a row/, 'outside #format {{0}} is a field');
  s.setDataset(dataset([['name', 'string']], [['lamp']]));
  await s.run(`ADD COLUMN 'label=@format(''{{{0}}}: {{name}}'', {{name}})';`);
  assert.deepEqual(s.dataset.rows()[0], ['lamp', '{lamp}: lamp'], '{{name}} is still a field inside the format');
});
