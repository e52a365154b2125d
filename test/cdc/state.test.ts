import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { captureChanges } from '../../runtime/cdc/diff';
import { readState, stateFile, writeState, type CdcState } from '../../runtime/cdc/state';
import { ScriptError } from '../../runtime/errors';
import { atOnce } from '../../runtime/util/turn';
import { capture, columns, dataset, options, tempStateFile } from './helpers';

const people = columns({ id: 'int', name: 'string' });

async function savedState(file: string, rows: [number, string][]): Promise<CdcState> {
  await capture(dataset(people, rows), options({ keys: 'id', deletes: true }), file);
  return (await readState(file))!;
}

test('a state file holds keys, row hashes and the key table, and reads back as written', async () => {
  const file = tempStateFile();
  const diff = await captureChanges(
    dataset(people, [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]),
    options({ keys: 'id' }),
    file,
    new AbortController().signal,
  );
  const written = atOnce(diff.next!());
  await writeState(file, written);
  const read = (await readState(file))!;
  assert.deepEqual(read.keys, written.keys);
  assert.deepEqual(read.observed, written.observed);
  assert.deepEqual(Buffer.from(read.entries.bytes), Buffer.from(written.entries.bytes));
  assert.deepEqual([...read.entries.offsets], [...written.entries.offsets]);
  assert.deepEqual([...read.hashes], [...written.hashes]);
  assert.deepEqual([...read.table], [...written.table]);
  assert.equal(readFileSync(file).subarray(0, 8).toString('latin1'), 'SQLCDCST');
  assert.equal(await readState(join(dirname(file), 'none.state')), undefined);
});

test('an empty state (every record deleted) reads back', async () => {
  const file = tempStateFile();
  await savedState(file, [[1, 'a']]);
  const empty = await savedState(file, []);
  assert.equal(empty.hashes.length, 0);
  assert.deepEqual((await capture(dataset(people, [[1, 'a']]), options({ keys: 'id' }), file)).upserts, [[1, 'a']]);
});

test('a damaged state file is an error saying so, never a state', async () => {
  const file = tempStateFile();
  await savedState(file, [
    [1, 'a'],
    [2, 'b'],
  ]);
  const good = readFileSync(file);
  const cases: [string, Buffer, RegExp][] = [
    [
      'flipped byte',
      Buffer.concat([good.subarray(0, 100), Buffer.from([good[100] ^ 1]), good.subarray(101)]),
      /damaged \(checksum mismatch\)/,
    ],
    ['truncated', good.subarray(0, good.length - 10), /damaged \(checksum mismatch\)/],
    ['other file', Buffer.from('id,name\n1,a\n'), /damaged \(not a CDC state file\)/],
    [
      'newer format',
      Buffer.concat([good.subarray(0, 8), Buffer.from([3, 0, 0, 0]), good.subarray(12)]),
      /has format 3; this version reads formats 1 and 2 \(writes 2\)/,
    ],
  ];
  for (const [what, bytes, message] of cases) {
    writeFileSync(file, bytes);
    await assert.rejects(
      readState(file),
      (e: unknown) => e instanceof ScriptError && message.test(e.message) && e.message.includes(file),
      what,
    );
  }
});

test('state files live under <workspace>/cdc/<pipeline>/, names escaped so that none leaves its folder', () => {
  assert.equal(stateFile('/ws', 'daily', 'orders.eds'), join('/ws', 'cdc', 'daily', 'orders.eds.state'));
  assert.equal(stateFile('/ws', '../up', 'a/b\\c'), join('/ws', 'cdc', '%2E%2E%2Fup', 'a%2Fb%5Cc.state'));
  assert.equal(stateFile('/ws', '..', '.hidden'), join('/ws', 'cdc', '%2E%2E', '%2Ehidden.state'));
});

test('kill -9 while a state is written: the old state file is intact and the partial file is not taken for it', async () => {
  const file = tempStateFile();
  await savedState(file, [
    [1, 'a'],
    [2, 'b'],
    [3, 'c'],
  ]);
  const before = readFileSync(file);
  const folder = dirname(file);
  const temps = () => readdirSync(folder).filter((name) => name !== basename(file));

  const child = spawn(
    process.execPath,
    [join(__dirname, 'write-state-child.js'), '--write-state', file, String(4_000_000)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
  await new Promise<void>((started) =>
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('writing') && started()),
  );
  // Killed as soon as its temp file has bytes: far from the end of ~170 MB.
  for (
    let i = 0;
    i < 20_000 && !temps().some((name) => statSync(join(folder, name), { throwIfNoEntry: false })?.size);
    i++
  ) {
    await new Promise((tick) => setTimeout(tick, 1));
  }
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');

  const left = temps();
  assert.equal(left.length, 1, 'the killed writer left its temp file');
  assert.match(left[0], new RegExp(`^${basename(file).replace(/\./g, '\\.')}\\.${child.pid}\\.[0-9a-f]+\\.tmp$`));
  assert.deepEqual(readFileSync(file), before);
  const state = (await readState(file))!;
  assert.equal(state.hashes.length, 6);

  // The next commit removes what the dead writer left.
  await savedState(file, [[1, 'a']]);
  assert.deepEqual(temps(), []);
});
