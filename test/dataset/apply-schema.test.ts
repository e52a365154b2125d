import { test } from 'node:test';
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { applySchema } from '../../runtime/commands/apply-schema';
import type { CommandContext } from '../../runtime/commands/command';
import { Dataset } from '../../runtime/dataset/dataset';
import { decimalText } from '../../runtime/dataset/decimal-scale';
import { toJsonRows } from '../../runtime/dataset/render';
import { parseTypeName } from '../../runtime/dataset/type-names';
import type { Value } from '../../runtime/dataset/types';
import { ScriptError, type Position } from '../../runtime/errors';
import type { ApplySchema, SchemaColumnSpec } from '../../runtime/script/ast';
import { Session } from '../../runtime/session';
import { tempDir, tempSession } from '../helpers/session';

const T = parseTypeName;
const at = (line: number, column = 1): Position => ({ line, column, offset: 0 });

/** A column as the tests write it: its default as the text the script would hold. */
type Spec = Omit<SchemaColumnSpec, 'pos' | 'default'> & { default?: string };

function schema(
  specs: Spec[],
  options: Partial<Pick<ApplySchema, 'continueOnError' | 'strictColumns' | 'fxByRow'>> = {},
): ApplySchema {
  return {
    kind: 'ApplySchema',
    keyword: 'APPLY SCHEMA',
    source: 'APPLY SCHEMA (…)',
    pos: at(1),
    columns: specs.map(({ default: value, ...s }, i) => ({
      ...s,
      pos: at(i + 2, 3),
      ...(value === undefined ? {} : { default: { value, form: 'bare' as const, pos: at(i + 2, 20) } }),
    })),
    continueOnError: options.continueOnError ?? false,
    strictColumns: options.strictColumns ?? false,
    fxByRow: options.fxByRow ?? false,
  };
}

/** Runs the APPLY SCHEMA command on `input` the way a run does. */
async function run(input: Dataset, stmt: ApplySchema): Promise<{ out: Dataset; warnings: string[] }> {
  const workspace = tempDir('schema');
  const scope = new Session({ workspace, cwd: workspace }).scope(input);
  const warnings: string[] = [];
  const ctx: CommandContext = {
    ...scope,
    signal: new AbortController().signal,
    emit: (r) => {
      if (r.kind === 'warning') warnings.push(r.text);
    },
    runStatements: async () => input,
  };
  const out = await applySchema(stmt, input, ctx);
  assert.ok(out instanceof Dataset, 'APPLY SCHEMA returns a new dataset');
  return { out, warnings };
}

/** What the CSV reader produces: string columns of text cells. */
function csv(header: string[], rows: string[][]): Dataset {
  return Dataset.fromRows(
    header.map((name) => ({ name, type: T('string') })),
    rows,
  );
}

const orders = () =>
  csv(
    ['id', 'qty', 'price', 'note', 'placed'],
    [
      ['9007199254740993', '3', '12345678901234567890.123456789', 'first', '2024-03-31T02:30:00'],
      ['2', '', '1.5', 'second', ''],
    ],
  );

test('listed columns are converted; schema columns come first, then the others; the input is untouched', async () => {
  const input = orders();
  const snapshot = JSON.stringify(input.rows());
  const { out, warnings } = await run(
    input,
    schema([
      { typeName: 'bigint', name: 'id' },
      { typeName: 'decimal', name: 'price' },
      { typeName: 'int', name: 'qty' },
      { typeName: 'datetime', name: 'placed' },
    ]),
  );
  assert.deepEqual(
    out.columns.map((c) => c.name),
    ['id', 'price', 'qty', 'placed', 'note'],
  );
  assert.deepEqual(
    out.columns.map((c) => c.type),
    [T('long'), T('decimal'), T('int'), T('datetime'), T('string')],
  );
  assert.equal(out.rows()[0][0], 9007199254740993n);
  assert.equal((out.rows()[0][1] as Decimal).toFixed(), '12345678901234567890.123456789');
  assert.equal(out.rows()[0][2], 3);
  assert.equal((out.rows()[0][3] as Date).toISOString(), '2024-03-31T02:30:00.000Z');
  assert.equal(out.rows()[0][4], 'first');
  assert.deepEqual(out.rows()[1].slice(2, 4), [null, null], 'blank text becomes null');
  assert.deepEqual(warnings, []);
  assert.equal(JSON.stringify(input.rows()), snapshot);
  assert.deepEqual(
    input.columns.map((c) => c.type.base),
    ['string', 'string', 'string', 'string', 'string'],
  );
});

test('STRICT_COLUMNS keeps exactly the listed columns, in the schema order', async () => {
  const { out } = await run(
    orders(),
    schema([{ name: 'note' }, { typeName: 'short', name: 'QTY' }], { strictColumns: true }),
  );
  assert.deepEqual(
    out.columns.map((c) => c.name),
    ['note', 'QTY'],
  );
  assert.deepEqual(out.rows(), [
    ['first', 3],
    ['second', null],
  ]);
});

test('a missing column is added, with its default or null; a column without type is a string', async () => {
  const { out } = await run(
    orders(),
    schema([
      { typeName: 'int', name: 'qty' },
      { typeName: 'string[10]', name: 'status', default: 'open' },
      { typeName: 'decimal(10,2)', name: 'discount', default: '0.125' },
      { name: 'comment' },
      { typeName: 'guid', name: 'ref' },
    ]),
  );
  assert.deepEqual(
    out.columns.slice(0, 5).map((c) => c.type),
    [T('int'), T('string[10]'), T('decimal(10,2)'), T('string'), T('guid')],
  );
  for (const row of out.rows()) {
    assert.equal(row[1], 'open');
    assert.equal((row[2] as Decimal).toFixed(), '0.13');
    assert.equal(row[3], null);
    assert.equal(row[4], null);
  }
});

test('defaults fill null cells only, and can use converted fields and @sql() expressions', async () => {
  const { out } = await run(
    orders(),
    schema([
      { typeName: 'int', name: 'qty', default: '@sql(id * 10)' },
      { typeName: 'long', name: 'id' },
      { typeName: 'string', name: 'label', default: '{{note}}-{{qty}}' },
      { typeName: 'int', name: 'note_length', default: '@sql(LEN(note))' },
      { typeName: 'datetime', name: 'placed', default: '2000-01-01' },
    ]),
  );
  const col = (name: string) => out.rows().map((r) => r[out.require(name)]);
  assert.deepEqual(col('qty'), [3, 20], 'an existing value stays; the null one gets the default');
  assert.deepEqual(col('label'), ['first-3', 'second-20']);
  assert.deepEqual(col('note_length'), [5, 6]);
  assert.deepEqual(
    col('placed').map((d) => (d as Date).toISOString().slice(0, 10)),
    ['2024-03-31', '2000-01-01'],
  );
});

test('a column that already has the type keeps its values as they are', async () => {
  const d = new Decimal('1.25');
  const input = Dataset.fromRows(
    [
      { name: 'amount', type: T('decimal(10,2)') },
      { name: 'n', type: T('int') },
    ],
    [
      [d, 1],
      [null, 2],
    ],
  );
  const { out } = await run(input, schema([{ typeName: 'DECIMAL(10, 2)', name: 'amount', default: '0' }]));
  // Typed storage gives a new Decimal per read: the same value, digits and scale.
  assert.ok((out.rows()[0][0] as Decimal).eq(d));
  assert.equal(decimalText(out.rows()[0][0] as Decimal), decimalText(d));
  assert.equal((out.rows()[1][0] as Decimal).toFixed(2), '0.00');
  assert.notEqual(out.rows()[0], input.rows()[0], 'rows are new arrays');
});

test('a typed column can change type (int to string, decimal to int)', async () => {
  const input = Dataset.fromRows(
    [
      { name: 'n', type: T('int') },
      { name: 'd', type: T('decimal(6,1)') },
    ],
    [
      [7, new Decimal('2.5')],
      [-1, new Decimal('-2.5')],
    ],
  );
  const { out } = await run(
    input,
    schema([
      { typeName: 'string[2]', name: 'n' },
      { typeName: 'int', name: 'd' },
    ]),
  );
  assert.deepEqual(
    out.rows(),
    [
      ['7', 2],
      ['-1', -2],
    ],
    'decimal to int rounds half to even, as .NET',
  );
});

test('without CONTINUE_ON_ERROR the first bad cell fails the statement, naming column, row and value', async () => {
  const input = csv(
    ['id', 'qty'],
    [
      ['1', '4'],
      ['2', 'abc'],
      ['3', 'x'],
    ],
  );
  await assert.rejects(
    run(
      input,
      schema([
        { typeName: 'int', name: 'id' },
        { typeName: 'int', name: 'qty' },
      ]),
    ),
    (e: unknown) => {
      assert.ok(e instanceof ScriptError);
      assert.equal(e.kind, 'runtime');
      assert.equal(e.message, "column 'qty', row 2: cannot convert 'abc' to int");
      assert.deepEqual(e.position, at(3, 3), 'the position of the column line');
      return true;
    },
  );
  await assert.rejects(
    run(
      input,
      schema([
        { typeName: 'int', name: 'id' },
        { typeName: 'tinyint', name: 'big', default: '@sql(id * 100)' },
      ]),
    ),
    /^ScriptError: column 'big', row 3: cannot convert 300 to tinyint: out of range 0\.\.255$/,
  );
});

test('CONTINUE_ON_ERROR turns failing cells into null (or the default) and warns with counts', async () => {
  const input = csv(
    ['id', 'qty', 'when'],
    [
      ['1', 'abc', 'soon'],
      ['2', '5', '2024-01-01'],
      ['3', '7', '31/31/2024'],
    ],
  );
  const { out, warnings } = await run(
    input,
    schema(
      [
        { typeName: 'int', name: 'qty' },
        { typeName: 'datetime', name: 'when' },
        { typeName: 'int', name: 'id', default: '0' },
      ],
      { continueOnError: true },
    ),
  );
  assert.deepEqual(
    out.rows().map((r) => r[0]),
    [null, 5, 7],
  );
  assert.deepEqual(
    out.rows().map((r) => r[1] === null),
    [true, false, true],
  );
  assert.equal(warnings.length, 1);
  assert.equal(
    warnings[0],
    "APPLY SCHEMA: 3 values in 2 rows could not be converted and became null (or the column default); first: column 'qty', row 1: cannot convert 'abc' to int",
  );
  const fallback = await run(
    csv(['n'], [['x'], ['2']]),
    schema([{ typeName: 'int', name: 'n', default: '-1' }], { continueOnError: true }),
  );
  assert.deepEqual(fallback.out.rows(), [[-1], [2]]);
});

test('schema mistakes are errors at the column line: bad type, duplicate, unconvertible constant default', async () => {
  const checks: Array<[Spec[], RegExp, 'semantic' | 'runtime']> = [
    [[{ name: 'id' }, { typeName: 'integer', name: 'qty' }], /^unknown type 'integer'.*valid types/, 'semantic'],
    [[{ name: 'id' }, { typeName: 'int', name: 'ID' }], /^column 'ID' is listed twice$/, 'semantic'],
    [
      [{ name: 'id' }, { typeName: 'int', name: 'qty', default: 'none' }],
      /^default of column 'qty': cannot convert 'none' to int$/,
      'runtime',
    ],
    [[{ name: 'id' }, { typeName: 'int', name: 'n', default: '{{missing}}' }], /unknown column 'missing'/, 'runtime'],
  ];
  for (const [specs, message, kind] of checks) {
    await assert.rejects(run(orders(), schema(specs)), (e: unknown) => {
      assert.ok(e instanceof ScriptError);
      assert.match(e.message, message);
      assert.equal(e.kind, kind);
      assert.equal(e.position?.line, 3, e.message);
      return true;
    });
  }
});

test('FX_BY_ROW evaluates # functions once per row; without it once for all rows', async () => {
  const input = csv(['id'], [['1'], ['2'], ['3']]);
  const once = await run(input, schema([{ typeName: 'guid', name: 'g', default: '#rndguid()' }]));
  assert.equal(new Set(once.out.rows().map((r) => r[0])).size, 1);
  assert.match(String(once.out.rows()[0][0]), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const perRow = await run(input, schema([{ typeName: 'guid', name: 'g', default: '#rndguid()' }], { fxByRow: true }));
  assert.equal(new Set(perRow.out.rows().map((r) => r[0])).size, 3);
  const perRowAt = await run(input, schema([{ typeName: 'guid', name: 'g', default: '@rndguid()' }]));
  assert.equal(new Set(perRowAt.out.rows().map((r) => r[0])).size, 3);
});

test('an empty dataset gets the schema columns and no rows', async () => {
  const { out } = await run(
    Dataset.empty(),
    schema([
      { typeName: 'int', name: 'id', default: '1' },
      { typeName: 'bit', name: 'ok' },
    ]),
  );
  assert.deepEqual(out.columns, [
    { name: 'id', type: T('int') },
    { name: 'ok', type: T('bool') },
  ]);
  assert.equal(out.rowCount, 0);
});

test('descriptions are kept on the columns', async () => {
  const { out } = await run(
    orders(),
    schema([{ typeName: 'int', name: 'qty', description: 'units ordered' }], { strictColumns: true }),
  );
  assert.deepEqual(out.columns, [{ name: 'qty', type: T('int'), description: 'units ordered' }]);
  const values: Value[] = out.rows().map((r) => r[0]);
  assert.deepEqual(values, [3, null]);
});

test('through the session: parsed schema lines, and errors placed at their line', async () => {
  const { session } = tempSession({}, 'schema');
  const results = await session.run(
    "APPLY SCHEMA (\n  bigint id = '9007199254740993'\n  int qty |units ordered |0\n  SYSNAME owner\n) STRICT_COLUMNS;",
  );
  assert.equal(results.at(-1)?.kind, 'table');
  assert.deepEqual(session.dataset.columns, [
    { name: 'id', type: T('long') },
    { name: 'qty', type: T('int'), description: 'units ordered' },
    { name: 'owner', type: T('string[256]') },
  ]);
  const before = session.dataset;
  await assert.rejects(session.run('APPLY SCHEMA (\n  int a\n  integer b\n);'), (e: unknown) => {
    assert.ok(e instanceof ScriptError);
    assert.equal(e.statement, 'APPLY SCHEMA');
    assert.equal(e.kind, 'semantic');
    assert.equal(e.position?.line, 3);
    assert.match(e.message, /^unknown type 'integer'/);
    return true;
  });
  assert.equal(session.dataset, before, 'a failed statement leaves the pipeline as it was');
});

test('end to end: a CSV file typed by APPLY SCHEMA, with defaults, a computed column and exact JSON', async () => {
  const { session } = tempSession(
    { 'orders.csv': 'id,qty,price,note\n9007199254740993,3,2.505,a\n2,,1.25,b\n3,x,1,c\n' },
    'schema',
  );
  const results = await session.run(
    "SELECT * FROM DRIVE 'orders.csv';\n" +
      "APPLY SCHEMA (\n  bigint id\n  int qty |units |0\n  decimal(10,2) price\n  decimal(12,2) total = '@sql(qty * price)'\n) CONTINUE_ON_ERROR;",
  );
  const warnings = results.filter((r) => r.kind === 'warning').map((r) => (r.kind === 'warning' ? r.text : ''));
  assert.deepEqual(warnings, [
    "APPLY SCHEMA: 1 value in 1 row could not be converted and became null (or the column default); first: column 'qty', row 3: cannot convert 'x' to int",
  ]);
  assert.equal(
    toJsonRows(session.dataset),
    '[{"id":9007199254740993,"qty":3,"price":2.51,"total":7.53,"note":"a"},' +
      '{"id":2,"qty":0,"price":1.25,"total":0.00,"note":"b"},' +
      '{"id":3,"qty":0,"price":1.00,"total":0.00,"note":"c"}]',
  );
});
