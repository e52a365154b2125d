import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';
import { column, run } from './helpers';

/** The transformations on data read from real files, as a script would run them. */
function sessionOnFiles(): Session {
  const files = {
    'orders.csv':
      'id,name,price,region\n1,Widget,2.50,east\n2,"Gadget, large",10,West\n3,Gizmo,7.25,Europe\n4,Doohickey,,east\n',
    'items.json':
      '{"items":[{"sku":"a","qty":2,"tags":{"hot":true}},{"sku":"b","qty":5},{"sku":"c","qty":1,"tags":{"hot":false}}]}',
  };
  return tempSession(files, 'transform').session;
}

test('a CSV file: type, filter, compute, format and zip', async () => {
  const s = sessionOnFiles();
  const { dataset } = await run(
    s,
    `SELECT * FROM DRIVE 'orders.csv';
     ADD OR ALTER COLUMN 'int id';
     ADD OR ALTER COLUMN 'decimal(10,2) price';
     APPLY FILTER 'region LIKE ''e*'' OR price >= 10' ORDER BY 'price DESC'; -- nulls last when descending
     ADD COLUMN 'decimal(10,2) gross=@sql(price * 1.2)';
     ADD COLUMN 'doc' FORMAT JSON INCLUDE 'id,name,gross' COLLAPSE;
     ZIP COLUMN 'doc' FORMAT JSON`,
  );
  assert.deepEqual(column(dataset, 'doc'), [
    '[{"id":2,"name":"Gadget, large","gross":12.00},{"id":3,"name":"Gizmo","gross":8.70},{"id":1,"name":"Widget","gross":3.00},{"id":4,"name":"Doohickey","gross":null}]',
  ]);
});

test('a JSON file: a TX filter on a nested document column and a CSV fragment', async () => {
  const s = sessionOnFiles();
  const { dataset } = await run(
    s,
    `SELECT * FROM DRIVE 'items.json' FORMAT JSON APPLY TX '$.items';
     APPLY FILTER TX 'hot = true' ON 'tags' KEEP_EMPTY;
     ADD COLUMN 'line' FORMAT CSV INCLUDE 'sku,qty' OPTIONS 'delimiter:|'`,
  );
  assert.deepEqual(column(dataset, 'sku'), ['a', 'b']);
  assert.deepEqual(column(dataset, 'line'), ['a|2', 'b|5']);
});
