import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTrailer, TRAILER, writeTrailer } from '../../runtime/changelog/layout';
import { readChangeLog } from '../../runtime/changelog/read';
import { writeChangeLog } from '../../runtime/changelog/write';
import { BufferSink, type ByteSink } from '../../runtime/util/bytes';
import { allTypes, meta, tempDir } from './helpers';

/**
 * A listener builds each log in memory (`publish`), its layout's pieces put in place in one buffer;
 * a file is written piece by piece. Both must be the same bytes, which every reader reads.
 */
test('a log built in memory for a publisher has the bytes of the same log written to a file', async () => {
  const dir = tempDir('in-memory');
  const ds = allTypes();
  const now = new Date('2026-11-28T05:00:00.000Z');
  for (const [frameRows, compress] of [
    [2, true],
    [2, false],
    [1000, false],
  ] as const) {
    const path = join(dir, `file-${frameRows}-${compress}.eds`);
    await writeChangeLog(path, ds, ds, meta(ds), { frameRows, compress, now });
    let published: Buffer | undefined;
    await writeChangeLog(join(dir, 'unused.eds'), ds, ds, meta(ds), {
      frameRows,
      compress,
      now,
      publish: async (bytes) => void (published = Buffer.from(bytes)),
    });
    assert.ok(published, 'nothing was published');
    assert.deepEqual(published, readFileSync(path), `frameRows ${frameRows}, compress ${compress}`);
    const copy = join(dir, `published-${frameRows}-${compress}.eds`);
    writeFileSync(copy, published);
    const log = await readChangeLog(copy);
    assert.equal(log.upserts.rowCount, ds.rowCount);
    assert.equal(log.deletes.rowCount, ds.rowCount);
  }
});

test("a trailer's counts are 64-bit little-endian, in a buffer of the sink's or of their own", () => {
  const counts = { upserts: 2 ** 40 + 3, deletes: 2 ** 32, frames: 7 };
  const expected = Buffer.alloc(8);
  expected.writeBigUInt64LE(BigInt(counts.upserts));
  const inPlace = new BufferSink(4);
  writeTrailer(inPlace, counts);
  const pieces: Uint8Array[] = [];
  const separate: ByteSink = { write: (b) => void pieces.push(Buffer.from(b)), end: () => {} };
  writeTrailer(separate, counts);
  for (const bytes of [inPlace.bytes(), Buffer.concat(pieces)]) {
    assert.equal(bytes.length, TRAILER);
    assert.deepEqual(bytes.subarray(1, 9), expected);
    assert.deepEqual(parseTrailer(bytes), counts);
  }
});
