import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { tempSession } from '../helpers/session';
import { DocPage, execute, runOk, statementsOf } from './harness';

/**
 * docs/transformations.md runs as written on notebooks/data/orders.json, typed as the page says
 * (`int id`, `decimal(10,2) total`, `datetime ordered`); each statement of a block of alternatives
 * runs on its own, on those orders.
 */
const page = new DocPage('transformations.md');
const { session, dir } = tempSession({}, 'docs-transformations');
copyFileSync(resolve(__dirname, '../../../notebooks/data/orders.json'), join(dir, 'orders.json'));
after(() => session.close());

const ORDERS = `SELECT * FROM DRIVE 'orders.json' FORMAT JSON APPLY TX '$.orders';
APPLY SCHEMA ( int id, string customer, string country, decimal(10,2) total, datetime ordered, string status );`;

/** Records with the `ref` and `payload` columns the filters' ON examples name. */
writeFileSync(
  join(dir, 'records.json'),
  JSON.stringify([
    { ref: 'ord-1001', payload: '<order status="open"/>' },
    { ref: 'ORD-12', payload: '{"items": [{"qty": 3}], "status": "open", "amount": 150}' },
    { ref: 'x', payload: 'not a document' },
  ]),
);
const RECORDS = `SELECT * FROM DRIVE 'records.json' FORMAT JSON;`;

const ids = () => session.dataset.rows().map((r) => Number(r[session.dataset.indexOf('id')]));

test('APPLY FILTER: each example keeps the rows its condition says', async () => {
  const block = page.take('APPLY FILTER');
  const kept: Record<string, number[] | string[]> = {};
  for (const statement of statementsOf(block.code)) {
    const onRecords = /ON '(ref|payload)'/.test(statement);
    await runOk(session, onRecords ? RECORDS : ORDERS, 'the orders');
    await runOk(session, statement, `transformations.md:${block.line}`);
    kept[statement.split('\n')[0]] = onRecords ? session.dataset.rows().map((r) => String(r[0])) : ids();
  }
  assert.deepEqual(Object.values(kept), [
    [1005, 1003, 1001],
    [1002, 1003, 1004, 1005],
    [1005],
    ['ord-1001'],
    ['ord-1001'],
    ['ORD-12'],
    ['ORD-12', 'x'],
  ]);
});

test('ADD COLUMN: the defaults of the examples', async () => {
  const block = page.take("ADD COLUMN 'decimal(10,2) vat");
  await runOk(session, ORDERS, 'the orders');
  await runOk(session, block.code, `transformations.md:${block.line}`);
  const first = session.dataset.rows()[0];
  const cell = (name: string) => first[session.dataset.indexOf(name)];
  assert.equal(String(cell('vat')), '25.98');
  assert.equal(cell('who'), 'ADA LOVELACE');
  assert.equal(cell('note'), 'imported');
  assert.equal(cell('n'), 12);
});

test('ADD COLUMN FORMAT: the fragments the page shows', async () => {
  const block = page.take("ADD COLUMN 'json' FORMAT JSON");
  await runOk(session, ORDERS, 'the orders');
  await runOk(session, block.code, `transformations.md:${block.line}`);
  const shown = [...block.code.matchAll(/^ {2}-- (.+)$/gm)].map((m) => m[1]);
  const first = session.dataset.rows()[0];
  assert.deepEqual(shown, [first[session.dataset.indexOf('json')], first[session.dataset.indexOf('xml')]]);
  const csv = session.dataset.rows().map((r) => r[session.dataset.indexOf('csv')]);
  assert.equal(csv[1], null, 'the cancelled order is not formatted');
  assert.equal(
    csv[0],
    'id;customer;country;total;status;json;xml\r\n1001;Ada Lovelace;UK;129.90;shipped;"{""id"":1001,""customer"":""Ada Lovelace"",""total"":129.90}";<order><id>1001</id><status>shipped</status></order>',
  );
});

test('ZIP COLUMN: the fragments become documents', async () => {
  const block = page.take("ADD COLUMN 'doc' FORMAT JSON INCLUDE 'id,total,status' COLLAPSE;");
  await runOk(session, ORDERS, 'the orders');
  await runOk(session, block.code, `transformations.md:${block.line}`);
  assert.equal(session.dataset.rowCount, 1);
  assert.equal((JSON.parse(String(session.dataset.rows()[0][0])) as unknown[]).length, 5);
});

test('APPLY PIPELINE BYPASS: the block prints, the pipeline keeps the orders', async () => {
  const block = page.take('APPLY PIPELINE (');
  await runOk(session, ORDERS, 'the orders');
  const { said } = await runOk(session, block.code, `transformations.md:${block.line}`);
  assert.deepEqual(said, [/prints "(.+)"/.exec(block.code)?.[1]]);
  assert.deepEqual(ids(), [1001, 1002, 1003, 1004, 1005]);
});

test('the errors and warnings the page quotes', async () => {
  const text = page.blocks.map((b) => b.before).join('');
  /** The text quoted (in backticks or double quotes) that starts so, up to a `…` (the rest is the case's own). */
  const quoted = (start: string) => {
    const at = text.indexOf(start);
    assert.ok(at >= 0, start);
    return text.slice(at, at + /[`"…]/.exec(text.slice(at))!.index).replace(/\s+/g, ' ');
  };
  const failing = async (code: string) => {
    await runOk(session, ORDERS, 'the orders');
    const { error } = await execute(session, code);
    return String(error?.message);
  };
  assert.ok((await failing("ADD COLUMN (a='1', b='2');")).includes(quoted('one column per ADD COLUMN')));
  assert.ok(
    (await failing("ADD COLUMN 'doc' FORMAT JSON OPTIONS 'date:yyyy-MM-dd nullvalu:x';")).includes(
      quoted("unknown key 'nullvalu' (keys: "),
    ),
  );
  await runOk(session, ORDERS, 'the orders');
  await runOk(session, "ADD COLUMN 'doc=@sql(IIF(id = 1002, ''{oops}'', ''{}''))';", 'a bad fragment in row 2');
  const zip = await execute(session, "ZIP COLUMN 'doc' FORMAT JSON;");
  assert.ok(String(zip.error?.message).startsWith(quoted("column 'doc', row 2: '{oops}'")), zip.error?.message);
  await runOk(session, ORDERS, 'the orders');
  const { said } = await runOk(
    session,
    "ADD COLUMN 'int n=@sql(IIF(total > 300, ''x'', ''1''))' CONTINUE_ON_ERROR;",
    'two rows that fail',
  );
  assert.ok(said[0]?.startsWith(quoted("ADD COLUMN 'n': 2 rows failed")), said.join(' | '));
});

test('every example of docs/transformations.md ran', () => page.assertEveryExampleRan());
