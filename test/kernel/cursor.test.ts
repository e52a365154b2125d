import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toCodePointOffset, toUtf16Offset } from '../../kernel/cursor';

test('cursor positions convert between code points (Jupyter) and UTF-16 units (JavaScript)', () => {
  const text = "PRINT '😀'; SEL";
  assert.equal(text.length, 15);
  assert.equal(toUtf16Offset(text, 14), 15);
  assert.equal(toCodePointOffset(text, 15), 14);
  assert.equal(toUtf16Offset(text, 7), 7);
  assert.equal(toUtf16Offset(text, 8), 9);
  assert.equal(toCodePointOffset('abc', 2), 2);
  assert.equal(toUtf16Offset('abc', 99), 3);
});
