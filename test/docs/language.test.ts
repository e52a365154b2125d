import { after, before, test } from 'node:test';
import { statementDocs } from '../../runtime/script/parser';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { DocPage, runOk } from './harness';

/**
 * docs/language.md is generated from the statement table (test/script/docs.test.ts keeps it so and
 * parses each example to its statement); here each statement's example runs, after the rows it works
 * on, against a local API (`[orders api]`, `[crm]`, `[shop api]`) and a SQLite `[warehouse]`.
 */
const page = new DocPage('language.md');
const { session } = tempSession(
  {
    'data/orders-1.csv': 'id;name;total\n1;ann;10\n',
    'data/orders-2.csv': 'id;name;total\n2;bob;20\n',
    'customers.json': JSON.stringify([
      { id: 1, name: 'ann', total: 10, note: 'vip', code: 'ABC-12', customer_id: 1, ordered_at: '2024-03-01' },
      { id: 2, name: 'bob', total: 0, note: 'new', code: 'x', customer_id: 2, ordered_at: '2024-03-02' },
    ]),
    'docs.json': JSON.stringify([{ id: 1, payload: { docs: [{ n: 1 }, { n: 2 }] } }]),
  },
  'docs-language',
);
let api: TestServer;

const CUSTOMERS = "SELECT * FROM DRIVE 'customers.json' FORMAT JSON;";
/** The rows each statement's example works on; none: it reads its own. */
const ROWS: Record<string, string> = {
  LOAD: `${CUSTOMERS} CAPTURE 'orders' ON KEYS 'id';`,
  'APPLY TX': "SELECT * FROM DRIVE 'docs.json' FORMAT JSON;",
  'ZIP COLUMN': `${CUSTOMERS} ADD COLUMN 'doc' FORMAT JSON INCLUDE 'id,name' COLLAPSE;`,
  'PUSH INTO HTTP': "LOAD UPSERTS DELETES FROM 'orders.eds' PATH 'logs';",
  'PUSH INTO DRIVE': "LOAD UPSERTS DELETES FROM 'orders.eds' PATH 'logs';",
  'PUSH INTO DB': "LOAD UPSERTS DELETES FROM 'orders.eds' PATH 'logs';",
};

before(async () => {
  api = await startHttpServer((req, res) =>
    req.url.startsWith('/orders')
      ? // The first page is the URL as written; `page=2` on is past the end.
        sendJson(res, { items: req.url.includes('page=') ? [] : [{ id: 1 }] })
      : sendJson(res, { ok: true }),
  );
  await session.run(
    [`[orders api]`, `crm`, `[shop api]`].map((name) => `%connection add ${name} ${api.url}`).join('\n') +
      '\n%connection add warehouse sqlite:warehouse.db',
  );
  await runOk(
    session,
    `EXEC ON DB [warehouse] ( create table customers (id int primary key, name text, updated_at text default '2024-01-01', last_order text) );
EXEC ON DB [warehouse] ( insert into customers (id, name) values (1, 'ann') );
EXEC ON DB [warehouse] ( create table runs (execution text, success int) );
${CUSTOMERS} CAPTURE 'orders.eds' ON KEYS 'id' WITH PATH 'logs';`,
    'the tables and a change log',
  );
});
after(async () => {
  await session.close();
  await api.close();
});

test("every statement's example runs", async () => {
  for (const doc of statementDocs) {
    const block = page.take(doc.example);
    await runOk(session, ROWS[doc.keyword] ?? CUSTOMERS, `the rows of ${doc.keyword}`);
    await runOk(session, block.code, `language.md:${block.line} (${doc.keyword})`);
  }
});

test('every example of docs/language.md ran', () => page.assertEveryExampleRan());
