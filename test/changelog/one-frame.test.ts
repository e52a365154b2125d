import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readChangeLog } from '../../runtime/changelog/read';
import { writeChangeLog, type WriteOptions } from '../../runtime/changelog/write';
import { Dataset } from '../../runtime/dataset/dataset';
import { payloadToDataset } from '../../runtime/webhook/payload';
import { runCli } from '../helpers/cli';
import { allTypes, meta, tempDir } from './helpers';

/** A webhook call's dataset: its JSON body typed as the listener types it. */
const payload = (rows: unknown): Dataset =>
  payloadToDataset(Buffer.from(JSON.stringify(rows)), { contentType: 'application/json', form2json: false });

/** Varied rows of every type a payload's typing gives, with nested documents, unicode and empty text. */
function variedRows(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i,
    big: 2 ** 53 + i * 2,
    amount: i % 3 === 0 ? null : Number((i * 1.25).toFixed(2)),
    ratio: i / 7,
    name: i % 4 === 0 ? '' : `ïtem ${i} ✓ 😀 中文`,
    flag: i % 2 === 0,
    at: `2026-11-28T0${i % 10}:00:00Z`,
    nested: { tags: ['a', i], deeper: { n: i } },
    missing: null,
  }));
}

/**
 * A log a publisher takes whole in one stored frame (a webhook call's) is laid out in one pass, not
 * through the general writer's sink: both must be the same bytes. The general writer writes the
 * file; the same log is published; the bytes compare, and the published log reads back (its cells'
 * round trip is format.test.ts's).
 */
test('a log of one stored frame, published, has the bytes the general writer writes to a file', async () => {
  const dir = tempDir('one-frame');
  const now = new Date('2026-11-28T09:30:00.000Z');
  const large = 'x'.repeat(300_000) + '\ud800 end';
  const cases: [string, Dataset, Partial<WriteOptions>][] = [
    ['every base type, typed storage', allTypes(), {}],
    ['no rows', Dataset.empty(), {}],
    ['an empty body', payload([]), {}],
    ['one payload row', payload(variedRows(1)), {}],
    ['many payload rows', payload(variedRows(300)), {}],
    ['a large value', payload([{ text: large, n: 1 }]), {}],
    ['unicode keys, empty strings and only nulls', payload([{ 'ключ ✓': '', 'n"\\': null }]), {}],
    // Not one stored frame: the general writer serves the publisher too.
    ['several frames', payload(variedRows(10)), { frameRows: 4 }],
    ['compressed', payload(variedRows(5)), { compress: true }],
  ];
  for (const [what, ds, options] of cases) {
    const file = join(dir, 'file.eds');
    const rows = Math.max(ds.rowCount, 1);
    const common: WriteOptions = { frameRows: rows, compress: false, now, ...options };
    await writeChangeLog(file, ds, Dataset.empty(), meta(ds, { keys: [] }), common);
    let published: Buffer | undefined;
    const written = await writeChangeLog(join(dir, 'unused.eds'), ds, Dataset.empty(), meta(ds, { keys: [] }), {
      ...common,
      publish: async (bytes) => void (published = Buffer.from(bytes)),
    });
    assert.ok(published, `${what}: nothing was published`);
    const expected = readFileSync(file);
    assert.deepEqual(published, expected, what);
    assert.equal(written.bytes, expected.length, what);
    const copy = join(dir, 'published.eds');
    writeFileSync(copy, published);
    const log = await readChangeLog(copy);
    assert.equal(log.upserts.rowCount, ds.rowCount, what);
    assert.equal(log.deletes.rowCount, 0, what);
  }
});

test('changelog show reads a log published in one pass', { timeout: 60_000 }, async () => {
  const dir = tempDir('one-frame-show');
  const ds = payload([{ id: 1, name: 'lamp ✓', nested: { a: [1, 2] }, empty: '' }]);
  let published: Buffer | undefined;
  await writeChangeLog(join(dir, 'unused.eds'), ds, Dataset.empty(), meta(ds, { keys: [], name: 'calls' }), {
    frameRows: 1,
    compress: false,
    publish: async (bytes) => void (published = Buffer.from(bytes)),
  });
  writeFileSync(join(dir, 'calls_1700000000000.eds'), published!);
  const show = await runCli(dir, ['changelog', 'show', 'calls_1700000000000.eds', '--output', 'json']);
  assert.equal(show.code, 0, show.stderr);
  const shown = JSON.parse(show.stdout) as { upserts: unknown[]; deletes: unknown[] };
  assert.deepEqual(shown.upserts, [{ id: 1, name: 'lamp ✓', nested: '{"a":[1,2]}', empty: '' }]);
  assert.deepEqual(shown.deletes, []);
});
