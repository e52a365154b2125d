import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../helpers/postgres';
import { tempSession } from '../helpers/session';
import { columnOf, DocPage, runOk, statementsOf } from './harness';

/**
 * docs/databases.md's examples run against a real PostgreSQL (`pg`, the test helper's server), a
 * SQLite file (`lite`) and a local `api`, on tables of the shapes the examples name. Blocks of
 * alternatives run a statement at a time, each after the rows it works on.
 */
const page = new DocPage('databases.md');
const { session } = tempSession(
  {
    'basket.json': JSON.stringify([
      { sku: 'a', qty: 2 },
      { sku: 'b', qty: 1 },
    ]),
    'orders.csv': 'id,status,name\n1,new,ann\n2,closed,bob\n3,new,cy\n',
  },
  'docs-databases',
);
const skip = postgresUnavailable();
let pg: PostgresServer | undefined;
let api: TestServer;

const TABLES = `EXEC ON DB [pg] ( create table orders (id int primary key, status text, name text, updated_at timestamp default now(), deleted_at timestamp) );
EXEC ON DB [pg] ( insert into orders (id, status) values (1, 'new'), (9, 'closed') );
EXEC ON DB [pg] ( create table events (id int) );
EXEC ON DB [pg] ( insert into events values (1), (2) );
EXEC ON DB [pg] ( create table prices (sku text, price numeric(10,2)) );
EXEC ON DB [pg] ( insert into prices values ('a', 1.50), ('b', 4.00) );
EXEC ON DB [pg] ( create table archive (id int, status text, name text, sku text, price float) );
EXEC ON DB [pg] ( create schema staging );
EXEC ON DB [pg] ( create table inbox (order_id int, lines_xml text) );
EXEC ON DB [pg] ( insert into inbox values (1, '<lines><line><sku>a</sku><qty>2</qty></line><line><sku>b</sku><qty>1</qty></line></lines>') );
EXEC ON DB [pg] ( create table customers (id int primary key, name text) );
EXEC ON DB [pg] ( create table stock (warehouse text, sku text, qty int, primary key (warehouse, sku)) );
EXEC ON DB [lite] ( create table products (id int, sku text, name text, price real, active int) );
EXEC ON DB [lite] ( insert into products values (1, 'a', 'lamp', 12.5, 1), (2, 'b', 'door', 80, 0) );
EXEC ON DB [lite] ( create table people (id int primary key, name text) );
EXEC ON DB [lite] ( create table events (id int, kind text) );`;

before(async () => {
  if (skip) return;
  pg = startPostgres();
  api = await startHttpServer((req, res) =>
    sendJson(res, { items: req.url.includes('page=2') ? [] : [{ id: 1 }, { id: 2 }] }),
  );
  await session.run(
    `%connection add pg ${await pg.newDatabase()}\n%connection add lite sqlite:shop.db\n%connection add api ${api.url}`,
  );
  await runOk(session, TABLES, 'the tables');
});
after(async () => {
  await session.close();
  await api?.close();
  pg?.stop();
});

/** Runs each statement of a block after the rows `rows(statement)` reads (none: the dataset as left). */
async function eachStatement(start: string, rows: (statement: string) => string | undefined): Promise<void> {
  const block = page.take(start);
  for (const statement of statementsOf(block.code)) {
    const before = rows(statement);
    if (before) await runOk(session, before, 'the rows');
    await runOk(session, statement, `databases.md:${block.line}`);
  }
}

const ORDERS = "SELECT * FROM DRIVE 'orders.csv'; APPLY SCHEMA ( int id );";

test('SELECT * FROM DB: each read', { skip }, async () => {
  const block = page.take('SELECT * FROM DB [lite]');
  await runOk(session, block.code, `databases.md:${block.line}`);
  assert.deepEqual(columnOf(session, 'price').map(Number), [1.5, 4]);
  await runOk(session, 'SELECT * FROM DB [lite] ( select count(*) as n from events );', 'the events sunk');
  assert.deepEqual(columnOf(session, 'n').map(Number), [2]);
});

test('EXEC ON DB: each command', { skip }, async () => {
  await eachStatement(
    'EXEC ON DB [pg] ( create table if not exists runs',
    () => `${ORDERS} ADD COLUMN 'sku=a'; ADD COLUMN 'double price=2.5';`,
  );
  await runOk(session, 'SELECT * FROM DB [pg] ( select id from archive );', 'the archive');
  assert.deepEqual(columnOf(session, 'id'), [2]);
});

test('SINK INTO DB: each target', { skip }, async () => {
  await eachStatement("SINK INTO DB [lite] TABLE 'customers';", (s) => (s.startsWith('SINK') ? ORDERS : undefined));
});

test('AUTO_CLEAN: a staging table gone after the run', { skip }, async () => {
  await runOk(session, ORDERS, 'the orders');
  // One run: the table lives until the run ends.
  const block = page.take("SINK INTO DB [pg] TABLE 'stage_orders'");
  await runOk(session, block.code, `databases.md:${block.line}`);
  await runOk(session, 'SELECT * FROM DB [pg] ( select id from orders order by id );', 'the orders merged');
  assert.deepEqual(columnOf(session, 'id'), [1, 2, 3, 9]);
  await runOk(session, "SELECT * FROM DB [pg] ( select to_regclass('stage_orders') is null as gone );", 'stage_orders');
  assert.deepEqual(columnOf(session, 'gone'), [true]);
});

test('ON COLUMN: the documents shredded', { skip }, async () => {
  await eachStatement('SELECT * FROM DB [pg] ( select order_id, lines_xml from inbox );', () => undefined);
  await runOk(session, 'SELECT * FROM DB [pg] ( select sku from order_lines order by sku );', 'the lines');
  assert.deepEqual(columnOf(session, 'sku'), ['a', 'b']);
});

test('MERGE: each target', { skip }, async () => {
  await eachStatement("MERGE INTO [pg] TABLE 'customers'", (s) =>
    s.includes("'customers'")
      ? `SELECT * FROM DRIVE 'orders.csv'; APPLY SCHEMA ( int id, string name = 'n{{id}}' ) STRICT_COLUMNS;`
      : s.includes("'stock'")
        ? `SELECT * FROM DB [lite] ( select 'w1' as warehouse, sku, 3 as qty, name as note from products );`
        : `SELECT * FROM DRIVE 'orders.csv'; APPLY SCHEMA ( int id, string kind = 'k' ) STRICT_COLUMNS;`,
  );
});

test('PUSH INTO DB: the three pushes play one change log', { skip }, async () => {
  await runOk(session, `${ORDERS} CAPTURE 'orders' ON KEYS 'id' WITH PATH 'logs';`, 'a change log');
  // The EXEC example made another table `runs`: the examples are alternatives.
  await runOk(session, 'EXEC ON DB [pg] ( drop table runs );', 'the EXEC example undone');
  const block = page.take("LOAD UPSERTS DELETES FROM 'orders' PATH 'logs';");
  await runOk(session, block.code, `databases.md:${block.line}`);
  await runOk(session, 'SELECT * FROM DB [pg] ( select ok from runs );', 'the run recorded');
  assert.deepEqual(columnOf(session, 'ok'), [true]);
  await runOk(session, 'SELECT * FROM DB [lite] ( select id from people order by id );', 'the people');
  assert.deepEqual(columnOf(session, 'id'), [1, 2, 3]);
});

test('every example of docs/databases.md ran', () => page.assertEveryExampleRan());
