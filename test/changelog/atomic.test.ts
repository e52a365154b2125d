import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readChangeLog } from '../../runtime/changelog/read';
import { writeChangeLog } from '../../runtime/changelog/write';
import { Dataset } from '../../runtime/dataset/dataset';
import { ScriptError } from '../../runtime/errors';
import { allTypes, meta, tempDir } from './helpers';

/** A safety net so a hung child fails the test instead of the run; nothing here depends on timing. */
const LIMITS = { timeout: 120_000 };

/** Writes a log of `rows` rows to `path` in small frames, in a child process we can kill. */
const CHILD = `
const { writeChangeLog } = require(${JSON.stringify(require.resolve('../../runtime/changelog/write'))});
const { Dataset } = require(${JSON.stringify(require.resolve('../../runtime/dataset/dataset'))});
const [path, rows] = [process.argv[1], Number(process.argv[2])];
const columns = [{ name: 'id', type: { base: 'int' } }, { name: 'name', type: { base: 'string' } }];
const ids = new Array(rows), names = new Array(rows);
for (let i = 0; i < rows; i++) { ids[i] = i; names[i] = 'row ' + i + ' ' + Math.random(); }
const ds = new Dataset(columns, [ids, names], rows);
writeChangeLog(path, ds, Dataset.empty(), { executionId: '2000', pipeline: 'child', name: 'log.eds', keys: [], inserts: rows, updates: 0 }, { frameRows: 512 })
  .then(() => process.stdout.write('finished'));
`;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

test(
  'kill -9 in the middle of a write leaves no partial .eds and the previous fixed-name log intact',
  LIMITS,
  async () => {
    const dir = tempDir('changelog');
    const path = join(dir, 'log.eds');
    const previous = allTypes();
    await writeChangeLog(path, previous, Dataset.empty(), meta(previous, { executionId: '1000', name: 'log.eds' }));
    const before = readFileSync(path);

    const child = spawn(process.execPath, ['-e', CHILD, path, '3000000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    // Polled until the temp file holds frames: then the child is surely in the middle of its write.
    let temp: string | undefined;
    while (!temp) {
      temp = readdirSync(dir).find((f) => f.startsWith('.log.eds.tmp-') && statSync(join(dir, f)).size > 256 * 1024);
      if (!temp) await sleep(20);
      assert.equal(output, '', 'the child finished before it could be killed: give it more rows');
      assert.equal(child.exitCode, null, 'the child failed before writing its frames');
    }
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    assert.equal(output, '');

    // The only .eds is the old log, byte for byte; the killed write's temp file does not pass for one.
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.eds')),
      ['log.eds'],
    );
    assert.ok(readdirSync(dir).includes(temp), 'the temp file of the killed write');
    assert.ok(!temp.endsWith('.eds'));
    assert.deepEqual(readFileSync(path), before);
    const log = await readChangeLog(path);
    assert.equal(log.header.executionId, '1000');
    assert.equal(log.upserts.rowCount, previous.rowCount);
  },
);

test('a finished write replaces a fixed-name log whole, and leaves no temp file', async () => {
  const dir = tempDir('changelog');
  const path = join(dir, 'log.eds');
  const ds = allTypes();
  await writeChangeLog(path, ds, Dataset.empty(), meta(ds, { executionId: '1' }));
  await writeChangeLog(path, ds.slice(0, 2), Dataset.empty(), meta(ds.slice(0, 2), { executionId: '2' }));
  assert.deepEqual(readdirSync(dir), ['log.eds']);
  const log = await readChangeLog(path);
  assert.equal(log.header.executionId, '2');
  assert.equal(log.upserts.rowCount, 2);
});

test('an execution-id log is never replaced: a second write of the same name fails and keeps the first', async () => {
  const dir = tempDir('changelog');
  const path = join(dir, 'orders_5.eds');
  const ds = allTypes();
  await writeChangeLog(path, ds, Dataset.empty(), meta(ds, { executionId: '5' }), { overwrite: false });
  const first = readFileSync(path);
  await assert.rejects(
    writeChangeLog(path, ds.slice(0, 1), Dataset.empty(), meta(ds.slice(0, 1), { executionId: '5' }), {
      overwrite: false,
    }),
    (e: unknown) => {
      assert.ok(e instanceof ScriptError);
      assert.equal(e.message, 'change log orders_5.eds already exists; an execution id names one run');
      return true;
    },
  );
  assert.deepEqual(readFileSync(path), first);
  assert.deepEqual(readdirSync(dir), ['orders_5.eds']);
});

test('a cancelled write stops between frames and leaves nothing behind', async () => {
  const dir = tempDir('changelog');
  writeFileSync(join(dir, 'keep.txt'), '');
  const ds = allTypes();
  const controller = new AbortController();
  const writing = writeChangeLog(join(dir, 'c.eds'), ds, ds, meta(ds), { frameRows: 1, signal: controller.signal });
  controller.abort();
  await assert.rejects(writing, (e: unknown) => e instanceof ScriptError && e.kind === 'cancelled');
  assert.deepEqual(readdirSync(dir), ['keep.txt']);
});
