import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { ChangeLogReader, readChangeLog } from '../../runtime/changelog/read';
import { writeChangeLog } from '../../runtime/changelog/write';
import { Dataset } from '../../runtime/dataset/dataset';
import { ScriptError } from '../../runtime/errors';
import { allTypes, meta, tempDir } from './helpers';

/** A small log with both streams in several frames: every part of the layout is present. */
async function smallLog(dir: string): Promise<Buffer> {
  const ds = allTypes();
  const path = join(dir, 'good.eds');
  await writeChangeLog(path, ds, ds, meta(ds), { frameRows: 2 });
  return readFileSync(path);
}

async function readFails(path: string): Promise<ScriptError> {
  try {
    await readChangeLog(path);
  } catch (e) {
    assert.ok(e instanceof ScriptError, `not a ScriptError: ${String(e)}`);
    return e;
  }
  assert.fail(`${path} was read without an error`);
}

/** Replaces the header JSON by `edit(json)` (same length or not) with a valid checksum: damage the CRC cannot see. */
function rewriteHeader(bytes: Buffer, edit: (json: string) => string): Buffer {
  const length = bytes.readUInt32LE(8);
  const json = Buffer.from(edit(bytes.subarray(12, 12 + length).toString('utf8')), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32LE(json.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(json));
  return Buffer.concat([bytes.subarray(0, 8), head, json, crc, bytes.subarray(12 + length + 4)]);
}

test('a log cut short anywhere is reported truncated, never read as a shorter log', async () => {
  const dir = tempDir('changelog');
  const bytes = await smallLog(dir);
  const path = join(dir, 'cut.eds');
  for (let length = 0; length < bytes.length; length++) {
    writeFileSync(path, bytes.subarray(0, length));
    const e = await readFails(path);
    // An empty file is no change log at all; one cut anywhere after its first byte is truncated.
    assert.match(
      e.message,
      length === 0
        ? /^change log cut\.eds: not a change log/
        : /^change log cut\.eds is truncated: the data ends after \d+ of the \d+ bytes? expected next$/,
      `cut at ${length}`,
    );
  }
});

test('any one damaged byte is detected: magic, header, frame fields, cells, trailer', async () => {
  const dir = tempDir('changelog');
  const bytes = await smallLog(dir);
  const path = join(dir, 'flip.eds');
  for (let at = 0; at < bytes.length; at++) {
    const damaged = Buffer.from(bytes);
    damaged[at] ^= 0x5a;
    writeFileSync(path, damaged);
    const e = await readFails(path);
    assert.match(
      e.message,
      /^change log flip\.eds(: not a change log| is damaged: | is truncated: )/,
      `byte ${at}: ${e.message}`,
    );
  }
});

test('bytes after the trailer, a foreign file and a newer format version are refused with the reason', async () => {
  const dir = tempDir('changelog');
  const bytes = await smallLog(dir);
  const path = join(dir, 'x.eds');
  writeFileSync(path, Buffer.concat([bytes, Buffer.from('more')]));
  assert.match((await readFails(path)).message, /is damaged: bytes follow the end of the change log/);
  writeFileSync(path, 'id,name\n1,a\n');
  assert.match((await readFails(path)).message, /x\.eds: not a change log/);
  writeFileSync(
    path,
    rewriteHeader(bytes, (json) => json.replace('"version":1', '"version":2')),
  );
  assert.match(
    (await readFails(path)).message,
    /is damaged: format version 2 \(this sqlcdc reads version 1; a newer sqlcdc wrote it\)/,
  );
  // A header that lies about the counts (with a valid checksum) is caught by the frames it describes.
  writeFileSync(
    path,
    rewriteHeader(bytes, (json) => json.replace('"deletes":5', '"deletes":4')),
  );
  assert.match((await readFails(path)).message, /is damaged: frame \d+ holds \d rows, more than the header announces/);
  writeFileSync(
    path,
    rewriteHeader(bytes, (json) => json.replace('"deletes":5', '"deletes":6')),
  );
  assert.match(
    (await readFails(path)).message,
    /is damaged: the header counts 5 upserts and 6 deletes; the file has 5 and 5/,
  );
});

test('pages of a truncated log come out whole, and the iteration fails before it completes', async () => {
  const dir = tempDir('changelog');
  const bytes = await smallLog(dir);
  const path = join(dir, 'half.eds');
  // Cut inside the last frame: the pages before it are whole, then the error, never a short page.
  writeFileSync(path, bytes.subarray(0, bytes.length - 30));
  const reader = ChangeLogReader.open(path);
  const pages: Dataset[] = [];
  await assert.rejects(async () => {
    for await (const page of reader.pages()) pages.push(page.data);
  }, /half\.eds is truncated/);
  // Five rows per stream in frames of two: 2, 2, 1 upserts, then 2, 2, (1: cut) deletes.
  assert.ok(pages.length >= 1);
  assert.deepEqual(
    pages.map((p) => p.rowCount),
    [2, 2, 1, 2, 2].slice(0, pages.length),
  );
});
