import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Dataset, type Result } from '../../runtime/index';
import type { ScriptError } from '../../runtime/errors';
import { runCli } from '../helpers/cli';
import { session } from './helpers';

const LIMITS = { timeout: 60_000 };

/**
 * Where the `customer` column's page header starts in the file below (after PAR1 and the `id` chunk),
 * and its bytes as hyparquet-writer writes them: DATA_PAGE_V2, 5 values, PLAIN, definition levels 2
 * bytes (field 5: `15 04`), repetition levels 0 bytes (field 6: `15 00`). Then come the definition
 * levels (`03 1f`) and the values.
 */
const HEADER_AT = 47;
const HEADER = '1506154815485c150a1500150a1500150415000000';

/** Five rows (id, customer) written UNCOMPRESSED by SINK, so the pages' bytes are where the tests patch them. */
async function customersFile(): Promise<{ bytes: Buffer; dir: string; s: ReturnType<typeof session>['session'] }> {
  const { session: s, dir } = session();
  s.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'customer', type: { base: 'string' } },
      ],
      ['Ann', 'Bob', 'Cy', 'Dee', 'Eve'].map((c, i) => [i + 1, c]),
    ),
  );
  await s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'customers.parquet' COMPRESSION 'none';");
  const bytes = readFileSync(join(dir, 'customers.parquet'));
  assert.equal(bytes.subarray(HEADER_AT, HEADER_AT + HEADER.length / 2).toString('hex'), HEADER);
  return { bytes, dir, s };
}

async function failure(s: ReturnType<typeof session>['session'], cell: string): Promise<ScriptError | undefined> {
  for await (const r of s.execute(cell)) if (r.kind === 'error') return r.error;
  return undefined;
}

test(
  'a DATA_PAGE_V2 header without its level lengths (the fuzz audit L1 file) is a clear error, not an endless loop',
  LIMITS,
  async () => {
    const { bytes, dir, s } = await customersFile();
    // Field 5's header byte becomes a byte field 8 (`43 04`), so field 6 reads as field 9: both level
    // lengths are gone, and the levels' first byte 0xff makes hyparquet's varint read at offset NaN forever.
    bytes[HEADER_AT + 15] = 0x43;
    bytes[HEADER_AT + 21] = 0xff;
    assert.equal(bytes.subarray(HEADER_AT + 13, HEADER_AT + 23).toString('hex'), '1500430415000000ff1f');
    writeFileSync(join(dir, 'bad.parquet'), bytes);
    const error = await failure(s, "SELECT * FROM DRIVE 'bad.parquet';");
    assert.equal(
      error?.message,
      "corrupt Parquet file bad.parquet: page 1 of column 'customer' of row group 1 is a DATA_PAGE_V2 header without its level lengths",
    );
    assert.equal(error.statement, 'SELECT FROM DRIVE');
    assert.deepEqual(error.position, { line: 1, column: 22, offset: 21 });
    // A page longer than its column chunk is refused before hyparquet reads past it.
    const long = Buffer.from(readFileSync(join(dir, 'customers.parquet')));
    long[HEADER_AT + 5] = 0x7e; // compressed_page_size 36 → 63 (zigzag)
    writeFileSync(join(dir, 'long.parquet'), long);
    assert.equal(
      (await failure(s, "SELECT * FROM DRIVE 'long.parquet';"))?.message,
      "corrupt Parquet file long.parquet: page 1 of column 'customer' of row group 1 says it holds 63 bytes, but its column chunk has 36 left",
    );
    // The good file still reads, through the same decoder thread.
    assert.equal(await failure(s, "SELECT * FROM DRIVE 'customers.parquet';"), undefined);
    assert.deepEqual(s.dataset.row(4), [5, 'Eve']);
  },
);

test(
  'Ctrl-C ends a Parquet read stuck in decoding: sqlcdc run exits 130 with the statement cancelled',
  LIMITS,
  async () => {
    const { bytes, dir } = await customersFile();
    // Encoding PLAIN (`15 00`) → RLE_DICTIONARY (`15 10`); the values become bit width 0 and a bit-packed
    // run header that reads as -1: hyparquet 1.31 counts its values down from -8 and never reaches 0.
    bytes[HEADER_AT + 14] = 0x10;
    Buffer.from('00ffffffff0f', 'hex').copy(bytes, HEADER_AT + HEADER.length / 2 + 2);
    writeFileSync(join(dir, 'stuck.parquet'), bytes);
    writeFileSync(
      join(dir, 'read.sql'),
      "PRINT 'reading';\nSELECT * FROM DRIVE 'stuck.parquet';\nPRINT 'not reached';\n",
    );
    const r = await runCli(dir, ['run', 'read.sql'], {
      started: (child) => {
        let seen = '';
        child.stderr!.on('data', (d: string) => {
          seen += d;
          // A moment for the read to be under way: the decoding is endless, so any moment after is too.
          if (seen.includes('reading')) void delay(300).then(() => child.kill('SIGINT'));
        });
      },
    });
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /^read\.sql:2:1: SELECT FROM DRIVE: cancelled/m);
    assert.ok(!r.stderr.includes('not reached'));
  },
);

test('an interrupt stops SINK between Parquet row groups and text pieces; no file is left', LIMITS, async () => {
  for (const format of ['PARQUET', 'CSV']) {
    const { session: s, dir } = session();
    const n = 200_000;
    s.setDataset(new Dataset([{ name: 'id', type: { base: 'int' } }], [Array.from({ length: n }, (_, i) => i)]));
    const controller = new AbortController();
    const results: Result[] = [];
    const cell = `PRINT 'writing';\nSINK INTO DRIVE FORMAT ${format} FILE 'all.out'${format === 'PARQUET' ? ' ROWS_PER_GROUP 1000' : ''};`;
    for await (const r of s.execute(cell, { signal: controller.signal })) {
      results.push(r);
      // The interrupt arrives while SINK runs: its first turn of the event loop sees it.
      if (r.kind === 'message') setImmediate(() => controller.abort());
    }
    const error = results.find((r) => r.kind === 'error')?.error;
    assert.equal(error?.message, 'cancelled', format);
    assert.equal(error.statement, 'SINK INTO DRIVE', format);
    assert.ok(!existsSync(join(dir, 'all.out')), `${format}: no file`);
  }
});
