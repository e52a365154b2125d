import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PayloadError, payloadToDataset } from '../../runtime/webhook/payload';

const json = { form2json: false, contentType: 'application/json' };

test('a payload nested thousands of levels deep is a bad payload that says so, as a row or as the document', () => {
  for (const body of [
    '['.repeat(100_000) + ']'.repeat(100_000),
    `[{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}]`,
  ]) {
    assert.throws(
      () => payloadToDataset(Buffer.from(body), json),
      (e: unknown) => e instanceof PayloadError && /nested too deeply/.test(e.message),
    );
  }
  // A few levels are a column of JSON text, as ever.
  const ds = payloadToDataset(Buffer.from('[{"a":[[1]]}]'), json);
  assert.deepEqual(ds.rows(), [['[[1]]']]);
});
