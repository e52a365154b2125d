import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toJsonRows } from '../../runtime/dataset/render';
import { startHttpServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { column, run, sessionWith } from './helpers';

/** The pipeline's rows as the CLI's --output json prints them (raw text: JSON.parse would drop the scale). */
async function json(script: string): Promise<string> {
  const s = sessionWith([{ name: 'amount', type: { base: 'string' } }], [['12.50']]);
  const { dataset } = await run(s, script);
  return toJsonRows(dataset);
}

test('@sql on a decimal(10,2) column keeps the scale as .NET does: 12.50 * 2 is 25.00', async () => {
  const s = sessionWith([{ name: 'amount', type: { base: 'string' } }], [['12.50'], ['12.5']]);
  const { dataset } = await run(
    s,
    `ADD OR ALTER COLUMN 'decimal(10,2) amount';
     ADD COLUMN 'big=@sql(amount * 2)';
     ADD COLUMN 'sum=@sql(amount + 2.205)';
     ADD COLUMN 'neg=@sql(-amount)'`,
  );
  assert.deepEqual(column(dataset, 'big'), ['25.00', '25.00']);
  assert.deepEqual(column(dataset, 'sum'), ['14.705', '14.705']);
  assert.deepEqual(column(dataset, 'neg'), ['-12.50', '-12.50']);
});

test('decimal values keep the scale they were read with, through arithmetic and JSON', async () => {
  const text = await json(
    `ADD OR ALTER COLUMN 'decimal amount';
     ADD COLUMN 'decimal a=@sql(1.10 + 2.205)';
     ADD COLUMN 'decimal m=@sql(amount * 1.5)';
     ADD COLUMN 'decimal p=@sql(amount - amount)';
     ADD COLUMN 'text=@sql(CONVERT(amount, ''System.String''))'`,
  );
  assert.equal(text, '[{"amount":12.50,"a":3.305,"m":18.750,"p":0.00,"text":"12.50"}]');
});

test('decimal division follows .NET: the dividend scale minus the divisor scale, more digits only when inexact', async () => {
  const text = await json(
    `ADD OR ALTER COLUMN 'decimal amount';
     ADD COLUMN 'decimal exact=@sql(amount / 2)';
     ADD COLUMN 'decimal more=@sql(1.0 / 4)';
     ADD COLUMN 'decimal fewer=@sql(10 / 2.5)';
     ADD COLUMN 'decimal third=@sql(amount / 3)';
     ADD COLUMN 'decimal small=@sql(1.10 / 3)';
     ADD COLUMN 'decimal same=@sql(1.000 / 1.0)';
     ADD COLUMN 'decimal ten=@sql(10.00 / 2)'`,
  );
  assert.equal(
    text,
    '[{"amount":12.50,"exact":6.25,"more":0.25,"fewer":4,"third":4.1666666666666666666666666667,' +
      '"small":0.3666666666666666666666666667,"same":1.00,"ten":5.00}]',
  );
});

test('decimal products beyond 28 decimals round half to even, as System.Decimal does', async () => {
  const text = await json(
    `ADD COLUMN 'p=@sql(0.00000000000001 * 0.000000000000015)'; ADD COLUMN 'q=@sql(0.00000000000001 * 0.000000000000025)'`,
  );
  assert.equal(text, '[{"amount":"12.50","p":"0.0000000000000000000000000002","q":"0.0000000000000000000000000002"}]');
});

test('Sum and Avg of decimals keep the scale of the values', async () => {
  const t = sessionWith([{ name: 'amount', type: { base: 'string' } }], [['1.25'], ['2.50'], ['0.10']]);
  const out = await run(
    t,
    `ADD OR ALTER COLUMN 'decimal amount';
     ADD COLUMN 'total=#data.calc(''Sum(amount)'', '''')';
     ADD COLUMN 'mean=#data.calc(''Avg(amount)'', '''')'`,
  );
  assert.deepEqual(column(out.dataset, 'total'), ['3.85', '3.85', '3.85']);
  assert.deepEqual(column(out.dataset, 'mean'), Array(3).fill('1.2833333333333333333333333333'));
});

test('JSON fractions read as decimals (floatparsehandling:decimal) keep the scale written, as CSV text does', async () => {
  const records = ['{"id": 1, "p": 12.50, "q": 1.5e3, "o": {"x": 2.0}}', '{"id": 2, "p": 0.10, "q": 2, "o": {"x": 1}}'];
  const doc = `[${records.join(', ')}]`;
  const { session } = tempSession({
    'a.json': doc,
    'a.ndjson': records.join('\n'),
    'a.csv': 'id,p\n1,12.50\n2,0.10\n',
  });
  const server = await startHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(doc);
  });
  try {
    const rows = async (cell: string): Promise<string> => {
      await session.run(cell);
      return toJsonRows(session.dataset);
    };
    // By default JSON fractions are doubles, as Json.NET's: 12.50 is the double 12.5.
    assert.equal(
      await rows("SELECT * FROM DRIVE 'a.json';"),
      '[{"id":1,"p":12.5,"q":1500,"o":"{\\"x\\":2}"},{"id":2,"p":0.1,"q":2,"o":"{\\"x\\":1}"}]',
    );
    await session.run("PRINT '#setjsonsettings(floatparsehandling:decimal)';");
    const decimals = '[{"id":1,"p":12.50,"q":1500,"o":"{\\"x\\":2.0}"},{"id":2,"p":0.10,"q":2,"o":"{\\"x\\":1}"}]';
    assert.equal(await rows("SELECT * FROM DRIVE 'a.json';"), decimals);
    assert.equal(await rows("SELECT * FROM DRIVE 'a.ndjson';"), decimals);
    assert.equal(await rows(`SELECT * FROM HTTP (GET ${server.url}/d) APPLY TX '$';`), decimals);
    assert.equal(await rows(`SELECT * FROM HTTP (GET ${server.url}/d); APPLY TX ($);`), decimals);
    assert.equal(
      await rows("SELECT * FROM DRIVE 'a.csv'; ADD OR ALTER COLUMN 'decimal p';"),
      '[{"id":"1","p":12.50},{"id":"2","p":0.10}]',
    );
    const [printed] = await session.run(`PRINT '#parsejson(''${doc}'', $[1].p)';`);
    assert.deepEqual(printed, { kind: 'message', text: '0.10' });
  } finally {
    await server.close();
    await session.close();
  }
});
