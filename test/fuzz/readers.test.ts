import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ScriptError } from '../../runtime/errors';
import type { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';
import { JS_FAILURE, seeded } from './helpers';

const ORDERS = JSON.stringify({
  orders: [
    { id: 1, customer: 'Ann', country: 'UK', total: '12.50', ordered: '2024-01-02T10:00:00', status: 'shipped' },
    { id: 2, customer: 'Bob', country: 'FR', total: '7.00', ordered: '2024-02-03T11:30:00', status: 'new' },
    { id: 3, customer: 'Čeněk', country: 'CZ', total: '99.99', ordered: '2024-03-04T12:45:00', status: 'paid' },
  ],
});

/** A session whose folder holds the orders written in every format SELECT FROM DRIVE reads. */
async function written(): Promise<{ session: Session; dir: string }> {
  const t = tempSession({ 'orders.json': ORDERS }, 'fuzz-readers');
  await t.session.run(
    "SELECT * FROM DRIVE 'orders.json' FORMAT JSON APPLY TX '$.orders';\n" +
      'APPLY SCHEMA (int id\nstring customer\nchar(2) country\ndecimal(10,2) total\ndatetime ordered\nstring status);\n' +
      "SINK INTO DRIVE FORMAT PARQUET FILE 'o.parquet';\n" +
      "SINK INTO DRIVE FORMAT PARQUET FILE 'og.parquet' COMPRESSION 'gzip';\n" +
      "SINK INTO DRIVE FORMAT CSV FILE 'o.csv' ADD_HEADER;\n" +
      "SINK INTO DRIVE FORMAT JSON FILE 'o.json';\n" +
      "SINK INTO DRIVE FORMAT NDJSON FILE 'o.ndjson';\n" +
      "SINK INTO DRIVE FORMAT XML FILE 'o.xml';",
  );
  return t;
}

/** The error a cell stopped on, if any. */
async function failure(session: Session, cell: string): Promise<ScriptError | undefined> {
  for await (const r of session.execute(cell)) if (r.kind === 'error') return r.error;
  return undefined;
}

test('a Parquet file whose column chunk names no column of its schema is an error, not a crash of the process', async () => {
  const { session, dir } = await written();
  const bytes = readFileSync(join(dir, 'o.parquet'));
  // The footer names each column twice, the schema first: renaming the last 'country' leaves a chunk
  // the schema lacks. hyparquet found it only after starting the first chunks' reads; the first
  // chunk's page header made garbage, that read failed with nothing awaiting it, and the unhandled
  // rejection ended the test process (a kernel, a REPL) with a RangeError.
  const last = bytes.lastIndexOf('country');
  bytes.write('countrx', last, 'latin1');
  bytes.fill(0xff, 6, 40);
  writeFileSync(join(dir, 'bad.parquet'), bytes);
  const error = await failure(session, "SELECT * FROM DRIVE 'bad.parquet';");
  assert.equal(
    error?.message,
    "bad.parquet is not a readable Parquet file: a column chunk names 'countrx', which its schema does not have",
  );
  assert.deepEqual(error.position, { line: 1, column: 22, offset: 21 });
  // The session goes on reading the good file.
  assert.equal(await failure(session, "SELECT * FROM DRIVE 'o.parquet'; PRINT '#data.count()';"), undefined);
  assert.equal(session.dataset.rowCount, 3);
});

/**
 * Seeded truncations and byte changes of every format's file: SELECT FROM DRIVE reads it or stops on a
 * ScriptError with the statement's position and a reason without JavaScript failure words.
 */
test('truncated and corrupted CSV, JSON, NDJSON, XML and Parquet files: a table or a ScriptError, never a crash', async () => {
  const { session, dir } = await written();
  const files = ['o.parquet', 'og.parquet', 'o.csv', 'o.json', 'o.ndjson', 'o.xml'].map(
    (name) => [name, readFileSync(join(dir, name))] as const,
  );
  const random = seeded(4242);
  let errors = 0;
  for (let i = 0; i < 300; i++) {
    const [name, original] = files[Math.floor(random() * files.length)];
    let bytes = Buffer.from(original);
    // Parquet bytes change in the footer (the metadata) only: changed page bytes can send hyparquet 1.31
    // into endless loops the page header checks do not see (a bit-packed run of negative length at bit
    // width 0), which only an interrupt ends (the decoder thread); parquet-corrupt.test.ts has both.
    const from = name.endsWith('.parquet') ? bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8) : 0;
    if (random() < 0.4) bytes = bytes.subarray(0, Math.floor(random() * bytes.length));
    else
      for (let n = 1 + Math.floor(random() * 8); n > 0; n--)
        bytes[from + Math.floor(random() * (bytes.length - from))] = random() < 0.5 ? Math.floor(random() * 256) : 0xff;
    // A file of its own each time: a read still under way must not see the next one's bytes.
    const file = `m${i}${name.slice(name.indexOf('.'))}`;
    writeFileSync(join(dir, file), bytes);
    const path = name.endsWith('.xml') ? " APPLY TX '//row'" : '';
    const cell = `SELECT * FROM DRIVE '${file}'${path};`;
    const error = await failure(session, cell);
    if (!error) continue;
    errors++;
    assert.ok(error instanceof ScriptError, `${name} #${i}`);
    assert.doesNotMatch(error.message, JS_FAILURE, `${name} #${i}: ${cell}`);
    assert.deepEqual(error.position, { line: 1, column: 22, offset: 21 }, `${name} #${i}: ${error.message}`);
  }
  assert.ok(errors > 50, `most corrupted files are errors (${errors})`);
});
