import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listChangeLogs, nextChangeLog } from '../../runtime/changelog/list';
import { changeLogTarget, pipelineStem } from '../../runtime/changelog/naming';
import { writeChangeLog } from '../../runtime/changelog/write';
import { Dataset } from '../../runtime/dataset/dataset';
import { allTypes, makeCertificate, meta, tempDir } from './helpers';

const NOW = 1_700_000_000_000;

test("a name without extension gets _<execution id>.eds, a name with one is fixed, no name is the pipeline's", () => {
  const dir = tempDir('changelog');
  const t = changeLogTarget(dir, 'orders', 'nb/Sync Orders.ipynb', { now: NOW });
  assert.deepEqual(t, {
    path: join(dir, `orders_${NOW}.eds`),
    fileName: `orders_${NOW}.eds`,
    name: 'orders',
    executionId: String(NOW),
    fixed: false,
  });
  const fixed = changeLogTarget(dir, 'orders.eds', 'p', { now: NOW });
  assert.deepEqual(fixed, {
    path: join(dir, 'orders.eds'),
    fileName: 'orders.eds',
    name: 'orders.eds',
    executionId: String(NOW),
    fixed: true,
  });
  // The spec's rule is "with a file extension", not only .eds.
  assert.equal(changeLogTarget(dir, 'orders.log', 'p', { now: NOW }).fileName, 'orders.log');
  assert.equal(
    changeLogTarget(dir, undefined, 'nb/Sync Orders.ipynb', { now: NOW }).fileName,
    `Sync Orders_${NOW}.eds`,
  );
  assert.equal(pipelineStem('C:\\jobs\\nightly:run.sql'), 'nightly_run');
  assert.equal(pipelineStem(''), 'pipeline');
});

test("execution ids stay strictly increasing per name, above the folder's files and the caller's last id", () => {
  const dir = tempDir('changelog');
  // A log from "the future" (a clock stepped back since) and one of another name.
  writeFileSync(join(dir, `orders_${NOW + 5000}.eds`), '');
  writeFileSync(join(dir, `customers_${NOW + 9000}.eds`), '');
  writeFileSync(join(dir, `orders_x_${NOW + 7000}.eds`), '');
  assert.equal(changeLogTarget(dir, 'orders', 'p', { now: NOW }).executionId, String(NOW + 5001));
  assert.equal(changeLogTarget(dir, 'orders', 'p', { now: NOW + 6000 }).executionId, String(NOW + 6000));
  assert.equal(changeLogTarget(dir, 'customers_x', 'p', { now: NOW }).executionId, String(NOW));
  // Two runs in one millisecond: the second is one above.
  writeFileSync(join(dir, changeLogTarget(dir, 'fast', 'p', { now: NOW }).fileName), '');
  assert.equal(changeLogTarget(dir, 'fast', 'p', { now: NOW }).executionId, String(NOW + 1));
  assert.equal(
    changeLogTarget(dir, 'orders.eds', 'p', { now: NOW, after: String(NOW + 10) }).executionId,
    String(NOW + 11),
  );
  assert.equal(changeLogTarget(join(dir, 'missing'), 'orders', 'p', { now: NOW }).executionId, String(NOW));
});

test('names that are not file names are refused', () => {
  const dir = tempDir('changelog');
  for (const name of ['a/b', '..', 'x\\y', 'c:d', 'ends.', ' ', 'q?']) {
    assert.throws(
      () => changeLogTarget(dir, name, 'p'),
      /change log name '.*' is not a file name .*the folder is given by PATH/,
      name,
    );
  }
});

test('a folder lists its logs by execution id with counts; LOAD takes the next after the watermark', async () => {
  const dir = tempDir('changelog');
  const ds = allTypes();
  const write = (file: string, executionId: string, options = {}) =>
    writeChangeLog(
      join(dir, file),
      ds,
      Dataset.empty(),
      meta(ds, { executionId, name: file.replace(/_\d+\.eds$/, ''), inserts: 4, updates: 1 }),
      options,
    );
  // Ids of different lengths: ordered as numbers, not as text.
  await write('orders_999.eds', '999');
  await write('orders_1000.eds', '1000');
  await write('orders_20.eds', '20');
  await write('other_5.eds', '5');
  await write('fixed.eds', '7');
  const ws = tempDir('changelog-ws');
  await write('orders_3000.eds', '3000', { encryptFor: makeCertificate(ws, 'lister') });
  writeFileSync(join(dir, 'orders_4000.eds'), 'not a log');
  writeFileSync(join(dir, '.orders_5000.eds.tmp-1-abcd'), 'a write in progress');
  writeFileSync(join(dir, 'notes.txt'), '');
  mkdirSync(join(dir, 'sub.eds'));

  const all = listChangeLogs(dir);
  assert.deepEqual(
    all.map((e) => e.fileName),
    [
      'other_5.eds',
      'fixed.eds',
      'orders_20.eds',
      'orders_999.eds',
      'orders_1000.eds',
      'orders_3000.eds',
      'orders_4000.eds',
    ],
  );
  const first = all.find((e) => e.fileName === 'orders_20.eds')!;
  assert.deepEqual(first.counts, { inserts: 4, updates: 1, deletes: 0 });
  assert.equal(first.pipeline, 'orders-sync');
  assert.equal(first.name, 'orders');
  assert.ok(first.size > 0);
  const fixed = all.find((e) => e.fileName === 'fixed.eds')!;
  assert.equal(fixed.executionId, '7');
  assert.equal(fixed.name, 'fixed.eds');
  const encrypted = all.find((e) => e.fileName === 'orders_3000.eds')!;
  assert.equal(encrypted.encrypted, true);
  assert.equal(encrypted.counts, undefined);
  assert.equal(encrypted.executionId, '3000');
  assert.match(all.find((e) => e.fileName === 'orders_4000.eds')!.error!, /not a change log/);

  assert.deepEqual(
    listChangeLogs(dir, 'orders').map((e) => e.executionId),
    ['20', '999', '1000', '3000', '4000'],
  );
  assert.equal(nextChangeLog(dir, 'orders', undefined)?.fileName, 'orders_20.eds');
  assert.equal(nextChangeLog(dir, 'orders', '20')?.fileName, 'orders_999.eds');
  assert.equal(nextChangeLog(dir, 'orders', '999')?.fileName, 'orders_1000.eds');
  assert.equal(nextChangeLog(dir, 'orders', '4000'), undefined);
  assert.deepEqual(nextChangeLog(dir, 'other', '4'), all[0]);
  assert.deepEqual(listChangeLogs(join(dir, 'missing')), []);
});
