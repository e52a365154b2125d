import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeChangeLog } from '../../runtime/changelog/write';
import { Dataset } from '../../runtime/dataset/dataset';
import { runCli as sqlcdc } from '../helpers/cli';
import { tempSession } from '../helpers/session';
import { makeCertificate, meta } from './helpers';

const LIMITS = { timeout: 60_000 };

const SCRIPT = `SELECT * FROM DRIVE 'items.csv';
APPLY SCHEMA (
  long id
  string name
  decimal(10,2) amount
  datetime at
);
`;
const CSV =
  'id,name,amount,at\n1,lamp,12.50,2024-01-02T03:04:05\n9007199254740993,"fridge, large",499.99,2024-02-29T00:00:00\n3,,80,\n';

/** A working folder with the script, its CSV and a signed change log of the script's dataset (as upserts and as deletes). */
async function project() {
  const { session, dir } = tempSession({ 'items.csv': CSV, 'load.sql': SCRIPT }, 'changelog-cli');
  await session.run(SCRIPT);
  const ds = session.dataset;
  await session.close();
  const ws = join(dir, 'ws');
  mkdirSync(join(dir, 'logs'));
  const signer = makeCertificate(ws, 'signer');
  const path = join(dir, 'logs', 'items_1700000000000.eds');
  await writeChangeLog(
    path,
    ds,
    ds,
    meta(ds, { keys: ['id'], pipeline: 'load.sql', name: 'items', inserts: 2, updates: 1 }),
    { signWith: signer },
  );
  return { dir, path };
}

test(
  'changelog show --output json: the header fields, then both streams with rows as run --output json prints them',
  LIMITS,
  async () => {
    const { dir } = await project();
    const run = await sqlcdc(dir, ['run', 'load.sql', '--output', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const show = await sqlcdc(dir, [
      'changelog',
      'show',
      'logs/items_1700000000000.eds',
      '--output',
      'json',
      '--workspace',
      'ws',
      '--check-signature',
    ]);
    assert.equal(show.code, 0, show.stderr);
    assert.equal(show.stderr, '');
    const rows = run.stdout.trim();
    assert.equal(
      show.stdout,
      '{"executionId":"1700000000000","pipeline":"load.sql","keys":["id"],' +
        '"schema":[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"amount","type":"decimal(10,2)"},{"name":"at","type":"datetime"}],' +
        `"upserts":${rows},"deletes":${rows}}\n`,
    );
    // Exact digits survive where JSON.parse would round them.
    assert.match(show.stdout, /"id":9007199254740993,/);
  },
);

test('changelog show prints a summary and the first rows; list shows the folder by execution id', LIMITS, async () => {
  const { dir } = await project();
  const show = await sqlcdc(dir, ['changelog', 'show', 'logs/items_1700000000000.eds']);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /^execution id {3}1700000000000 \(2023-11-14T22:13:20\.000Z\)$/m);
  assert.match(show.stdout, /^counts {9}2 inserts, 1 update, 3 deletes$/m);
  assert.match(show.stdout, /^security {7}not encrypted, signed by CN=signer \([0-9a-f]{40}\)$/m);
  assert.match(
    show.stdout,
    /\nupserts:\n[\s\S]*│ 9007199254740993 │ fridge, large │ +499\.99 │ 2024-02-29T00:00:00 │[\s\S]*\(3 rows\)\n\ndeletes:\n[\s\S]*lamp[\s\S]*\(3 rows\)\n$/,
  );

  // A long stream shows its first rows and says how many there are.
  const many = Dataset.fromRows(
    [{ name: 'n', type: { base: 'int' } }],
    Array.from({ length: 25 }, (_, i) => [i]),
  );
  await writeChangeLog(join(dir, 'many.eds'), many, Dataset.empty(), meta(many));
  const long = await sqlcdc(dir, ['changelog', 'show', 'many.eds']);
  assert.match(long.stdout, /│ +19 │\n└[─┘]+\n\(showing 20 of 25 rows\)\n/);

  const list = await sqlcdc(dir, ['changelog', 'list', 'logs', '--output', 'json']);
  assert.equal(list.code, 0, list.stderr);
  const [entry] = JSON.parse(list.stdout) as { fileName: string; counts: unknown; signed: boolean }[];
  assert.equal(entry.fileName, 'items_1700000000000.eds');
  assert.deepEqual(entry.counts, { inserts: 2, updates: 1, deletes: 3 });
  assert.equal(entry.signed, true);
  const table = await sqlcdc(join(dir, 'logs'), ['changelog', 'list']);
  assert.match(
    table.stdout,
    /│ items_1700000000000\.eds │ 1700000000000 │ load\.sql +│ +2 │ +1 │ +3 │ +\d+ │ signed +│/,
  );
});

test(
  'changelog show fails with the reason on a damaged log or a failed signature check; bad usage exits 2',
  LIMITS,
  async () => {
    const { dir, path } = await project();
    const bytes = readFileSync(path);
    writeFileSync(join(dir, 'logs', 'cut.eds'), bytes.subarray(0, bytes.length - 30));
    const cut = await sqlcdc(dir, ['changelog', 'show', 'logs/cut.eds', '--output', 'json']);
    assert.equal(cut.code, 1);
    assert.match(cut.stderr, /^sqlcdc: change log cut\.eds is truncated: /);

    const other = await sqlcdc(dir, [
      'changelog',
      'show',
      'logs/items_1700000000000.eds',
      '--check-signature',
      '--workspace',
      'elsewhere',
    ]);
    assert.equal(other.code, 1);
    assert.match(
      other.stderr,
      /^sqlcdc: change log items_1700000000000\.eds: signed by CN=signer \(thumbprint [0-9a-f]{40}\), which is not a certificate of the workspace store\n$/,
    );

    assert.equal((await sqlcdc(dir, ['changelog', 'show', 'logs/missing.eds'])).code, 2);
    // list of a folder that is not there, or of a file, says so (exit 2) instead of listing nothing.
    const missing = await sqlcdc(dir, ['changelog', 'list', 'logz']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^sqlcdc: cannot read logz: no such file or folder\n$/);
    const file = await sqlcdc(dir, ['changelog', 'list', 'items.csv']);
    assert.equal(file.code, 2);
    assert.match(file.stderr, /^sqlcdc: cannot read items\.csv: it is a file, not a folder\n$/);
    const usage = await sqlcdc(dir, ['changelog']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /^sqlcdc: changelog needs show, list or replay/);
    assert.match(
      (await sqlcdc(dir, ['changelog', 'show', 'x.eds', '--output', 'csv'])).stderr,
      /--output of changelog must be table or json, not 'csv'/,
    );
    const misplaced = await sqlcdc(dir, ['run', 'load.sql', '--check-signature']);
    assert.equal(misplaced.code, 2);
    assert.match(misplaced.stderr, /unknown option --check-signature/, 'run has no such option');
  },
);
