import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { smallCrc } from '../../runtime/changelog/layout';

test("smallCrc is zlib's CRC-32 of the bytes between two offsets", () => {
  // The standard check value of CRC-32 (IEEE 802.3).
  assert.equal(smallCrc(Buffer.from('123456789'), 0, 9), 0xcbf43926);
  assert.equal(smallCrc(Buffer.alloc(4), 2, 2), crc32(Buffer.alloc(0)));
  const bytes = randomBytes(4096);
  for (let length = 0; length <= 64; length++)
    for (const start of [0, 1, 7, 1000, 4096 - length]) {
      const piece = bytes.subarray(start, start + length);
      assert.equal(smallCrc(bytes, start, start + length), crc32(piece), `${length} bytes at ${start}`);
    }
  for (const fill of [0x00, 0xff, 0x80])
    assert.equal(smallCrc(Buffer.alloc(21, fill), 0, 21), crc32(Buffer.alloc(21, fill)), `21 × ${fill}`);
});
