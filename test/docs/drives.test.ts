import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';
import { DocPage, DOCS, runOk } from './harness';

/**
 * docs/drives.md's examples write files as the page says; `[lake]` and `[ftp out]` are drive
 * connections (a local root folder), which the page lists beside FTP, S3 and Azure.
 */
const page = new DocPage('drives.md');
const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
});
function fresh(files: Record<string, string>) {
  const made = tempSession(files, 'docs-drives');
  sessions.push(made.session);
  return made;
}
const ORDERS =
  'id,status,total,created\n1,new,10.50,2024-03-01 10:00:00\n2,new,20,2024-03-02 11:00:00\n3,new,5,2024-03-03 12:00:00\n';
const TYPED = `SELECT * FROM DRIVE 'orders.csv';
APPLY SCHEMA ( int id, string status, decimal(10,2) total, datetime created );`;

test('the opening examples write their files and say where', async () => {
  const block = page.take('SINK INTO DRIVE FORMAT CSV');
  const { session, dir } = fresh({ 'orders.csv': ORDERS });
  await session.run('%connection add lake --drive lake');
  await session.run('%connection add [ftp out] --drive drop');
  await runOk(session, TYPED, 'the orders');
  const { said } = await runOk(session, block.code, `drives.md:${block.line}`);
  const today = new Date().toISOString().slice(0, 10).replace(/-/g, '');
  const shown = /`(SINK INTO DRIVE: .+)`/.exec(readFileSync(join(DOCS, 'drives.md'), 'utf8'))![1];
  const pattern = shown.replace('/home/me/project', dir).replace('out/orders.csv', `out/orders_${today}.csv`);
  assert.ok(said.includes(pattern), `says ${pattern} (said: ${said.join(' | ')})`);
  assert.equal(readFileSync(join(dir, `out/orders_${today}.csv`), 'utf8').split('\r\n')[0], 'id;status;total;created');
  for (const day of ['01', '02', '03'])
    assert.deepEqual(readdirSync(join(dir, 'lake/sales/2024/03', day)), ['orders.parquet'], 'a file per day');
  assert.deepEqual(readdirSync(join(dir, 'orders')).sort(), ['1.json', '2.json', '3.json']);
  assert.deepEqual(readdirSync(join(dir, 'drop')), ['orders.csv']);
});

test('PUSH INTO DRIVE: the second run writes the upserts and the deletes the page shows', async () => {
  const block = page.take("SELECT * FROM DRIVE 'orders.csv';\nCAPTURE");
  const { session, dir } = fresh({ 'orders.csv': 'id,status\n1,new\n2,new\n3,new\n' });
  await runOk(session, block.code, `drives.md:${block.line} (first run)`);
  writeFileSync(join(dir, 'orders.csv'), 'id,status\n1,new\n2,paid\n4,new\n');
  await runOk(session, block.code, `drives.md:${block.line}`);
  for (const [, file, lines] of block.code.matchAll(/^-- (\S+) +(.+)$/gm))
    assert.equal(readFileSync(join(dir, file), 'utf8').trimEnd().split(/\r?\n/).join(' / '), lines, file);
});

test('COLUMN: each batch document is a file of its own', async () => {
  const block = page.take("ADD COLUMN 'doc'");
  const { session, dir } = fresh({ 'orders.csv': ORDERS });
  await runOk(session, TYPED, 'the orders');
  await runOk(session, block.code, `drives.md:${block.line}`);
  const [file] = readdirSync(join(dir, 'batches'));
  assert.match(file, /^[0-9a-f-]{36}\.json$/);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'batches', file), 'utf8')), [
    { id: 1, total: 10.5 },
    { id: 2, total: 20 },
    { id: 3, total: 5 },
  ]);
});

test('Parquet reads back with the same columns, types and values', async () => {
  const block = page.take('SINK INTO DRIVE FORMAT PARQUET');
  const { session } = fresh({ 'orders.csv': ORDERS });
  await runOk(session, TYPED, 'the orders');
  const written = session.dataset;
  await runOk(session, block.code, `drives.md:${block.line}`);
  assert.deepEqual(
    session.dataset.columns.map((c) => [c.name, c.type]),
    written.columns.map((c) => [c.name, c.type]),
  );
  assert.deepEqual(session.dataset.rows(), written.rows());
});

test('every example of docs/drives.md ran', () => page.assertEveryExampleRan());
