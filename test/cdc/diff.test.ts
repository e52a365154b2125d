import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import Decimal from 'decimal.js';
import { parseDecimal } from '../../runtime/dataset/decimal-scale';
import { ScriptError } from '../../runtime/errors';
import { capture, columns, dataset, options, rowsOf, tempStateFile } from './helpers';

const names = (ds: { columns: { name: string }[] }) => ds.columns.map((c) => c.name);

const people = columns({ id: 'int', name: 'string', city: 'string' });

test('without KEYS the whole dataset is captured at every run, as inserts, and no state is kept', async () => {
  const file = tempStateFile();
  const input = dataset(people, [
    [1, 'Ann', 'Oslo'],
    [2, 'Bob', 'Rome'],
  ]);
  for (let run = 0; run < 2; run++) {
    const { diff, upserts, deletes } = await capture(input, options({ marker: 'op' }), file);
    assert.equal(diff.mode, 'all');
    assert.deepEqual(upserts, [
      [1, 'Ann', 'Oslo', 'I'],
      [2, 'Bob', 'Rome', 'I'],
    ]);
    assert.deepEqual(deletes, []);
    assert.equal(diff.next, undefined);
  }
  assert.equal(existsSync(file), false);
  // Without a marker the upsert stream is the dataset itself: nothing is copied.
  assert.equal((await capture(input, options(), file)).diff.upserts, input);
});

test('with KEYS and no state every record is an insert; the next run reports nothing for the same data', async () => {
  const file = tempStateFile();
  const input = dataset(people, [
    [1, 'Ann', 'Oslo'],
    [2, 'Bob', 'Rome'],
  ]);
  const first = await capture(input, options({ keys: 'id', marker: 'op' }), file);
  assert.equal(first.diff.mode, 'changes');
  assert.deepEqual(first.upserts, [
    [1, 'Ann', 'Oslo', 'I'],
    [2, 'Bob', 'Rome', 'I'],
  ]);
  assert.deepEqual(first.diff.counts, { inserted: 2, updated: 0, deleted: 0, unchanged: 0, duplicates: 0 });
  assert.ok(existsSync(file));
  const second = await capture(input, options({ keys: 'id', marker: 'op' }), file);
  assert.deepEqual(second.upserts, []);
  assert.deepEqual(second.diff.counts, { inserted: 0, updated: 0, deleted: 0, unchanged: 2, duplicates: 0 });
});

test('a sequence of runs: insert, update, delete, re-insert, with markers and the delete stream', async () => {
  const file = tempStateFile();
  const o = options({ keys: 'id', inserts: true, updates: true, deletes: true, marker: 'op' });
  await capture(
    dataset(people, [
      [1, 'Ann', 'Oslo'],
      [2, 'Bob', 'Rome'],
      [3, 'Cid', 'Lima'],
    ]),
    o,
    file,
  );

  const run2 = await capture(
    dataset(people, [
      [1, 'Ann', 'Oslo'],
      [2, 'Bob', 'Paris'],
      [4, 'Dan', 'Kyiv'],
    ]),
    o,
    file,
  );
  assert.deepEqual(run2.upserts, [
    [2, 'Bob', 'Paris', 'U'],
    [4, 'Dan', 'Kyiv', 'I'],
  ]);
  // A delete carries the key; the state keeps no other values, so the other columns are null.
  assert.deepEqual(run2.deletes, [[3, null, null]]);
  assert.deepEqual(
    run2.diff.deletes.columns.map((c) => c.name),
    ['id', 'name', 'city'],
  );

  const run3 = await capture(
    dataset(people, [
      [1, 'Ann', 'Oslo'],
      [2, 'Bob', 'Paris'],
      [3, 'Cid', 'Lima'],
      [4, 'Dan', 'Kyiv'],
    ]),
    o,
    file,
  );
  assert.deepEqual(run3.upserts, [[3, 'Cid', 'Lima', 'I']]);
  assert.deepEqual(run3.deletes, []);

  const run4 = await capture(dataset(people, []), o, file);
  assert.deepEqual(run4.upserts, []);
  // Deletes come in the state's order: the order records were first seen in (3 came back after 4).
  assert.deepEqual(run4.deletes, [
    [1, null, null],
    [2, null, null],
    [4, null, null],
    [3, null, null],
  ]);
  const run5 = await capture(dataset(people, [[2, 'Bob', 'Paris']]), o, file);
  assert.deepEqual(run5.upserts, [[2, 'Bob', 'Paris', 'I']]);
});

test('without DELETES absent records are not reported and stay in the state (an incremental source)', async () => {
  const file = tempStateFile();
  const o = options({ keys: 'id' });
  await capture(
    dataset(people, [
      [1, 'Ann', 'Oslo'],
      [2, 'Bob', 'Rome'],
    ]),
    o,
    file,
  );
  const partial = await capture(dataset(people, [[2, 'Bob', 'Rome']]), o, file);
  assert.deepEqual(partial.upserts, []);
  assert.deepEqual(partial.deletes, []);
  assert.equal(partial.diff.counts.deleted, 0);
  // Record 1 was only not fetched: back unchanged it is nothing, back changed it is an update.
  assert.deepEqual((await capture(dataset(people, [[1, 'Ann', 'Oslo']]), o, file)).upserts, []);
  assert.deepEqual((await capture(dataset(people, [[1, 'Ann', 'Bergen']]), o, file)).upserts, [[1, 'Ann', 'Bergen']]);
});

test('INSERTS alone and UPDATES alone report only their kind; the state still follows the source', async () => {
  const file = tempStateFile();
  await capture(dataset(people, [[1, 'Ann', 'Oslo']]), options({ keys: 'id' }), file);
  const next = dataset(people, [
    [1, 'Ann', 'Rome'],
    [2, 'Bob', 'Rome'],
  ]);
  assert.deepEqual((await capture(next, options({ keys: 'id', inserts: true }), file, false)).upserts, [
    [2, 'Bob', 'Rome'],
  ]);
  assert.deepEqual((await capture(next, options({ keys: 'id', updates: true }), file)).upserts, [[1, 'Ann', 'Rome']]);
  // The UPDATES run recorded record 2 although it did not report it.
  assert.deepEqual((await capture(next, options({ keys: 'id' }), file)).upserts, []);
});

test('composite keys: a record is the combination; order of KEYS may change between runs', async () => {
  const file = tempStateFile();
  const cols = columns({ region: 'string', id: 'int', qty: 'int' });
  await capture(
    dataset(cols, [
      ['EU', 1, 5],
      ['US', 1, 7],
      ["O'Hare ☃", 1, 9],
    ]),
    options({ keys: 'region,id', deletes: true, inserts: true, updates: true }),
    file,
  );
  const run = await capture(
    dataset(cols, [
      ['EU', 1, 5],
      ['US', 1, 8],
      ['EU', 2, 1],
    ]),
    options({ keys: 'id, region', deletes: true, inserts: true, updates: true }),
    file,
  );
  assert.deepEqual(run.upserts, [
    ['US', 1, 8],
    ['EU', 2, 1],
  ]);
  assert.deepEqual(run.deletes, [["O'Hare ☃", 1, null]]);
});

test('OBSERVE: only those columns are compared, full rows are emitted; reordering OBSERVE is no change', async () => {
  const file = tempStateFile();
  const cols = columns({ id: 'int', price: 'double', seen: 'datetime', note: 'string' });
  const first = dataset(cols, [
    [1, 9.5, new Date('2024-01-01T00:00:00Z'), 'a'],
    [2, 3, new Date('2024-01-01T00:00:00Z'), 'b'],
  ]);
  await capture(first, options({ keys: 'id', observe: 'price,note' }), file);
  const touched = dataset(cols, [
    [1, 9.5, new Date('2024-06-01T00:00:00Z'), 'a'],
    [2, 4, new Date('2024-01-01T00:00:00Z'), 'b'],
  ]);
  const run = await capture(touched, options({ keys: 'id', observe: 'note, price' }), file);
  assert.deepEqual(run.upserts, [[2, 4, '2024-01-01T00:00:00.000Z', 'b']]);
});

test('without OBSERVE every non-key column is compared', async () => {
  const file = tempStateFile();
  const cols = columns({ id: 'int', price: 'double', seen: 'datetime' });
  await capture(dataset(cols, [[1, 9.5, new Date(0)]]), options({ keys: 'id' }), file);
  const run = await capture(dataset(cols, [[1, 9.5, new Date(1000)]]), options({ keys: 'id' }), file);
  assert.equal(run.diff.counts.updated, 1);
});

test('comparison is null-safe: null and empty text differ, null and null do not', async () => {
  const file = tempStateFile();
  const o = options({ keys: 'id', marker: 'op' });
  await capture(
    dataset(people, [
      [1, null, ''],
      [2, null, null],
    ]),
    o,
    file,
  );
  const run = await capture(
    dataset(people, [
      [1, '', ''],
      [2, null, null],
    ]),
    o,
    file,
  );
  assert.deepEqual(run.upserts, [[1, '', '', 'U']]);
  const back = await capture(
    dataset(people, [
      [1, null, ''],
      [2, null, null],
    ]),
    o,
    file,
  );
  assert.deepEqual(back.upserts, [[1, null, '', 'U']]);
});

test('decimals compare by value: 1 and 1.0 are equal, 1 and 1.5 are not; a decimal key 1.0 is the key 1', async () => {
  const file = tempStateFile();
  const cols = columns({
    code: { base: 'decimal', precision: 10, scale: 2 },
    amount: { base: 'decimal', precision: 10, scale: 2 },
  });
  const o = options({ keys: 'code', inserts: true, updates: true, deletes: true });
  await capture(
    dataset(cols, [
      [new Decimal(1), new Decimal(1)],
      [new Decimal('2.5'), new Decimal(-0)],
    ]),
    o,
    file,
  );
  const same = await capture(
    dataset(cols, [
      [parseDecimal('1.00'), parseDecimal('1.0')],
      [parseDecimal('2.50'), parseDecimal('0.00')],
    ]),
    o,
    file,
  );
  assert.deepEqual(same.diff.counts, { inserted: 0, updated: 0, deleted: 0, unchanged: 2, duplicates: 0 });
  const changed = await capture(dataset(cols, [[parseDecimal('1.0'), parseDecimal('1.5')]]), o, file);
  assert.deepEqual(changed.upserts, [['d:1', 'd:1.5']]);
  assert.deepEqual(changed.deletes, [['d:2.5', null]]);
});

test('decimals made by a Decimal clone with other settings are the same values; big, tiny and special keys come back exactly', async () => {
  const file = tempStateFile();
  const Plain = Decimal.clone({ toExpPos: 9e15, toExpNeg: -9e15, precision: 50 });
  const cols = columns({ code: 'decimal', amount: 'decimal' });
  const o = options({ keys: 'code', deletes: true });
  const keys = ['1e30', '1e-10', '-123456789012345678901234.5', '0.1', 'NaN', '-Infinity'];
  await capture(
    dataset(
      cols,
      keys.map((k) => [new Decimal(k), new Decimal(k)]),
    ),
    o,
    file,
  );
  const again = await capture(
    dataset(cols, [
      [new Plain('1000000000000000000000000000000'), new Plain('1e30')],
      [new Plain('0.0000000001'), new Plain('1e-10')],
    ]),
    o,
    file,
  );
  assert.deepEqual(again.diff.counts, { inserted: 0, updated: 0, deleted: 4, unchanged: 2, duplicates: 0 });
  assert.deepEqual(again.deletes, [
    ['d:-1.234567890123456789012345e+23', null],
    ['d:0.1', null],
    ['d:NaN', null],
    ['d:-Infinity', null],
  ]);
});

test('numbers: -0 equals 0, NaN equals NaN, an int column may become long and keeps its keys and values', async () => {
  const file = tempStateFile();
  const ints = [-5, 2147483647, -2147483648, 0];
  await capture(
    dataset(
      columns({ id: 'int', x: 'double', n: 'int' }),
      ints.map((v, i) => [v, i === 0 ? 0 : NaN, v]),
    ),
    options({ keys: 'id' }),
    file,
  );
  const longs = ints.map((v, i) => [BigInt(v), i === 0 ? -0 : NaN, BigInt(v)]);
  const widened = await capture(
    dataset(columns({ id: 'long', x: 'float', n: 'long' }), longs),
    options({ keys: 'id' }),
    file,
  );
  assert.deepEqual(widened.diff.counts, { inserted: 0, updated: 0, deleted: 0, unchanged: 4, duplicates: 0 });
  const changed = await capture(
    dataset(columns({ id: 'long', x: 'float', n: 'long' }), [
      [-5n, 0, -4n],
      [2147483647n, NaN, 2147483648n],
    ]),
    options({ keys: 'id' }),
    file,
  );
  assert.deepEqual(changed.upserts, [
    [-5n, 0, -4n],
    [2147483647n, NaN, 2147483648n],
  ]);
});

test('long keys beyond 2^53 stay exact: neighbours are distinct records and deletes give them back as bigints', async () => {
  const file = tempStateFile();
  const cols = columns({ id: 'long', v: 'int' });
  const o = options({ keys: 'id', inserts: true, updates: true, deletes: true });
  const big = 2n ** 53n;
  await capture(
    dataset(cols, [
      [big, 1],
      [big + 1n, 2],
      [-(2n ** 63n), 3],
      [2n ** 63n - 1n, 4],
    ]),
    o,
    file,
  );
  const run = await capture(
    dataset(cols, [
      [big, 1],
      [big + 1n, 20],
      [big + 2n, 5],
    ]),
    o,
    file,
  );
  assert.deepEqual(run.upserts, [
    [big + 1n, 20],
    [big + 2n, 5],
  ]);
  assert.deepEqual(run.deletes, [
    [-(2n ** 63n), null],
    [2n ** 63n - 1n, null],
  ]);
});

test('every type can be a key, and deleted keys come back with their values', async () => {
  const file = tempStateFile();
  const cols = columns({ b: 'bool', t: 'datetime', g: 'guid', bin: 'bytes', d: 'double', s: 'string', n: 'short' });
  const row1 = [
    true,
    new Date('2024-02-29T12:34:56.789Z'),
    '0f8fad5b-d9cb-469f-a165-70867728950e',
    Uint8Array.of(0, 255, 7),
    0.1,
    'é\u{1F600}\ud800',
    -5,
  ];
  const row2 = [
    false,
    new Date('1999-12-31T23:59:59Z'),
    '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    new Uint8Array(0),
    -1e300,
    '',
    7,
  ];
  const o = options({ keys: 'b,t,g,bin,d,s,n', deletes: true });
  await capture(dataset(cols, [row1, row2]), o, file);
  const run = await capture(dataset(cols, [row2]), o, file);
  assert.deepEqual(run.deletes, [rowsOf(dataset(cols, [row1]))[0]]);
});

test('other KEYS, a key of another type family, a column OBSERVE no longer names: an error naming the change and the state file', async () => {
  const file = tempStateFile();
  const cols = columns({ id: 'int', amount: 'decimal', note: 'string' });
  await capture(dataset(cols, [[1, new Decimal(1), 'x']]), options({ keys: 'id', observe: 'amount,note' }), file);
  const before = readFileSync(file);
  const failing = async (ds: ReturnType<typeof dataset>, keys = 'id', observe = 'amount,note') => {
    try {
      await capture(ds, options({ keys, observe }), file);
    } catch (e) {
      assert.ok(e instanceof ScriptError);
      assert.ok(e.message.includes(`delete the CDC state '${file}'`), e.message);
      return e.message;
    }
    assert.fail('no error');
  };
  assert.match(
    await failing(dataset(columns({ id: 'string', amount: 'decimal', note: 'string' }), [['1', new Decimal(1), 'x']])),
    /key column 'id' was int and is now string/,
  );
  assert.match(
    await failing(dataset(cols, [[1, new Decimal(1), 'x']]), 'id,note', 'amount'),
    /ON KEYS was 'id' and is now 'id,note'/,
  );
  assert.match(
    await failing(dataset(cols, [[1, new Decimal(1), 'x']]), 'id', 'note'),
    /OBSERVE no longer names 'amount'/,
  );
  assert.deepEqual(readFileSync(file), before);
});

test('observed columns whose type changed family, gone or new: compared by value with what the state saw', async () => {
  const file = tempStateFile();
  const o = options({ keys: 'id' });
  const cols = columns({ id: 'int', amount: 'decimal', note: 'string' });
  await capture(
    dataset(cols, [
      [1, new Decimal('1.50'), 'x'],
      [2, new Decimal(2), null],
      [3, new Decimal(3), 'z'],
    ]),
    o,
    file,
  );
  // amount as text: '1.5' and '2' read back as the decimals the state saw; 'three' does not.
  const run = await capture(
    dataset(columns({ id: 'int', amount: 'string', extra: 'int' }), [
      [1, '1.5', null],
      [2, '2', 5],
      [3, 'three', null],
    ]),
    o,
    file,
  );
  assert.deepEqual(run.diff.counts, { inserted: 0, updated: 3, deleted: 0, unchanged: 0, duplicates: 0 });
  assert.deepEqual(
    run.upserts,
    [
      [1, '1.5', null, null],
      [2, '2', 5, null],
      [3, 'three', null, null],
    ],
    "1: note 'x' is gone (null); 2: extra has a value; 3: amount is no decimal; amount keeps today's type",
  );
  const again = await capture(
    dataset(columns({ id: 'int', amount: 'string', extra: 'int' }), [
      [1, '1.5', null],
      [2, '2', 5],
      [3, 'three', null],
    ]),
    o,
    file,
  );
  assert.deepEqual(again.diff.counts, { inserted: 0, updated: 0, deleted: 0, unchanged: 3, duplicates: 0 });
});

test('OBSERVE naming a column the input left out: compared as null, not an unknown column', async () => {
  const file = tempStateFile();
  const o = options({ keys: 'id', observe: 'note' });
  await capture(
    dataset(columns({ id: 'int', note: 'string' }), [
      [1, 'x'],
      [2, null],
    ]),
    o,
    file,
  );
  const run = await capture(dataset(columns({ id: 'int' }), [[1], [2]]), o, file);
  assert.deepEqual(run.upserts, [[1, null]]);
  await assert.rejects(
    capture(dataset(columns({ id: 'int' }), [[1], [2]]), options({ keys: 'id', observe: 'nothing' }), file),
    /OBSERVE: unknown column 'nothing'/,
  );
});

test('a column change on a diff large enough for the worker thread: the same changes as on one thread', async () => {
  const file = tempStateFile();
  const o = options({ keys: 'id' });
  const n = 70_000;
  const ids = Array.from({ length: n }, (_, i) => i);
  await capture(
    dataset(
      columns({ id: 'int', price: 'double', qty: 'int' }),
      ids.map((i) => [i, i + 0.5, i % 7]),
    ),
    o,
    file,
  );
  // Whole prices today (int) where the state saw halves: every row is an update; qty is left out,
  // tag is new (compared on this thread, hashed for the next state on the worker).
  const today = ids.map((i) => [i, i % 2 ? i + 1 : i, i % 3 ? null : 't']);
  const run = await capture(dataset(columns({ id: 'int', price: 'int', tag: 'string' }), today), o, file);
  assert.equal(run.diff.counts.updated, n);
  assert.deepEqual(names(run.diff.upserts), ['id', 'price', 'tag', 'qty']);
  // The next run sees the same: no change, though price is int again and qty still missing.
  const next = await capture(dataset(columns({ id: 'int', price: 'int', tag: 'string' }), today), o, file);
  assert.deepEqual(next.diff.counts, { inserted: 0, updated: 0, deleted: 0, unchanged: n, duplicates: 0 });
  // Halves again, and tags where there were none: the rows that changed, and only those.
  const back = await capture(
    dataset(
      columns({ id: 'int', price: 'double', tag: 'string' }),
      ids.map((i) => [i, i % 2 ? i + 1 : i + 0.5, i % 3 ? null : 't']),
    ),
    o,
    file,
  );
  assert.equal(back.diff.counts.updated, n / 2);
  const tags = await capture(
    dataset(
      columns({ id: 'int', price: 'double', tag: 'string' }),
      ids.map((i) => [i, i % 2 ? i + 1 : i + 0.5, 't']),
    ),
    o,
    file,
  );
  assert.equal(tags.diff.counts.updated, n - Math.ceil(n / 3));
});

test('duplicate keys: an error naming the key and its rows (1-based); IGNORE_DUPS keeps the first row of each key', async () => {
  const file = tempStateFile();
  const input = dataset(people, [
    [1, 'Ann', 'Oslo'],
    [2, 'Bob', 'Rome'],
    [1, 'Ann', 'Bergen'],
    [3, 'Cid', 'Lima'],
    [2, 'Bo', 'Rome'],
    [1, 'A', 'X'],
  ]);
  await assert.rejects(capture(input, options({ keys: 'id' }), file), (e: unknown) => {
    assert.ok(e instanceof ScriptError);
    assert.equal(
      e.message,
      'duplicate key id=1 in rows 1, 3 and 6; 1 other key is duplicated too. Add WITH IGNORE_DUPS to keep the first row of each key',
    );
    return true;
  });
  assert.equal(existsSync(file), false);
  const kept = await capture(input, options({ keys: 'id', ignoreDups: true }), file);
  assert.deepEqual(kept.upserts, [
    [1, 'Ann', 'Oslo'],
    [2, 'Bob', 'Rome'],
    [3, 'Cid', 'Lima'],
  ]);
  assert.equal(kept.diff.counts.duplicates, 3);
  // Against a state: the duplicate of a known key is caught too, and text keys are quoted.
  const named = dataset(columns({ code: 'string', n: 'int' }), [
    ["it's", 1],
    ['b', 2],
  ]);
  const file2 = tempStateFile();
  await capture(named, options({ keys: 'code' }), file2);
  await assert.rejects(
    capture(
      dataset(named.columns, [
        ["it's", 1],
        ['b', 2],
        ["it's", 3],
      ]),
      options({ keys: 'code' }),
      file2,
    ),
    /^ScriptError: duplicate key code='it''s' in rows 1 and 3\. Add WITH IGNORE_DUPS/,
  );
  const ignored = await capture(
    dataset(named.columns, [
      ['b', 2],
      ["it's", 1],
      ['b', 3],
    ]),
    options({ keys: 'code', ignoreDups: true }),
    file2,
  );
  assert.deepEqual(ignored.upserts, []);
});

test('INIT_ON_FIRST_RUN: the first run records the state and reports nothing; later runs report changes', async () => {
  const file = tempStateFile();
  const o = options({ keys: 'id', initOnFirstRun: true, marker: 'op' });
  const first = await capture(
    dataset(people, [
      [1, 'Ann', 'Oslo'],
      [2, 'Bob', 'Rome'],
    ]),
    o,
    file,
  );
  assert.equal(first.diff.mode, 'initialized');
  assert.deepEqual(first.upserts, []);
  assert.deepEqual(
    first.diff.upserts.columns.map((c) => c.name),
    ['id', 'name', 'city', 'op'],
  );
  assert.equal(first.diff.counts.inserted, 2);
  assert.ok(existsSync(file));
  const second = await capture(
    dataset(people, [
      [1, 'Ann', 'Oslo'],
      [2, 'Bob', 'Paris'],
      [3, 'Cid', 'Lima'],
    ]),
    o,
    file,
  );
  assert.equal(second.diff.mode, 'changes');
  assert.deepEqual(second.upserts, [
    [2, 'Bob', 'Paris', 'U'],
    [3, 'Cid', 'Lima', 'I'],
  ]);
});

test('CDCMARKER must not name an existing column', async () => {
  await assert.rejects(
    capture(dataset(people, [[1, 'a', 'b']]), options({ keys: 'id', marker: 'CITY' }), tempStateFile()),
    /CDCMARKER 'CITY' names an existing column/,
  );
});

test('an unknown key or observed column is an error listing the columns', async () => {
  await assert.rejects(
    capture(dataset(people, [[1, 'a', 'b']]), options({ keys: 'nope' }), tempStateFile()),
    /ON KEYS: unknown column 'nope' \(columns: id, name, city\)/,
  );
  await assert.rejects(
    capture(dataset(people, [[1, 'a', 'b']]), options({ keys: 'id', observe: 'zip' }), tempStateFile()),
    /OBSERVE: unknown column 'zip'/,
  );
});

test('the state is committed only when asked: a run whose change log was not written reports its changes again', async () => {
  const file = tempStateFile();
  const o = options({ keys: 'id', deletes: true, inserts: true, updates: true });
  await capture(
    dataset(people, [
      [1, 'Ann', 'Oslo'],
      [2, 'Bob', 'Rome'],
    ]),
    o,
    file,
  );
  const next = dataset(people, [
    [1, 'Ann', 'Bergen'],
    [3, 'Cid', 'Lima'],
  ]);
  const lost = await capture(next, o, file, false);
  const again = await capture(next, o, file);
  assert.deepEqual(again.upserts, lost.upserts);
  assert.deepEqual(again.deletes, lost.deletes);
  assert.equal(again.upserts.length, 2);
  assert.deepEqual((await capture(next, o, file)).upserts, []);
});

test('rows in another order than last time give the same changes', async () => {
  const file = tempStateFile();
  const o = options({ keys: 'id', deletes: true, inserts: true, updates: true, marker: 'op' });
  const rows = Array.from({ length: 50 }, (_, i) => [i, `n${i}`, `c${i % 7}`]);
  await capture(dataset(people, rows), o, file);
  const next = rows
    .filter((r) => (r[0] as number) % 10 !== 3)
    .map((r) => ((r[0] as number) % 10 === 5 ? [r[0], r[1], 'moved'] : r));
  next.push([100, 'new', 'x']);
  next.reverse();
  const run = await capture(dataset(people, next), o, file);
  assert.deepEqual(
    run.upserts.map((r) => r[0]).sort((a, b) => (a as number) - (b as number)),
    [5, 15, 25, 35, 45, 100],
  );
  assert.deepEqual(
    run.upserts.find((r) => r[0] === 100),
    [100, 'new', 'x', 'I'],
  );
  assert.deepEqual(
    run.deletes.map((r) => r[0]).sort((a, b) => (a as number) - (b as number)),
    [3, 13, 23, 33, 43],
  );
});

/** mulberry32, as bench/measure.ts: the same runs every time. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

for (const deletes of [true, false]) {
  test(`random runs agree with a model of the state (${deletes ? 'with' : 'without'} DELETES; shuffles, bursts that grow the key table)`, async () => {
    const random = seeded(deletes ? 1 : 2);
    const cols = columns({ k1: 'int', k2: 'string', v: 'double', w: 'string' });
    const o = options({ keys: 'k1,k2', inserts: true, updates: true, deletes, marker: 'op' });
    const file = tempStateFile();
    const keyOf = (row: unknown[]) => `${String(row[0])}|${String(row[1])}`;
    const model = new Map<string, string>();
    let source: unknown[][] = [];
    let nextId = 0;
    const fresh = () => [
      nextId++ % 997,
      `k${nextId}`,
      Math.floor(random() * 5),
      random() < 0.2 ? null : `w${Math.floor(random() * 3)}`,
    ];
    for (let i = 0; i < 3000; i++) source.push(fresh());
    for (let run = 0; run < 14; run++) {
      if (run > 0) {
        source = source.filter(() => random() >= 0.08);
        source = source.map((row) =>
          random() < 0.1 ? [row[0], row[1], Math.floor(random() * 5), random() < 0.5 ? null : ''] : row,
        );
        const burst = run === 6 ? 4000 : Math.floor(random() * 300);
        for (let i = 0; i < burst; i++) source.splice(Math.floor(random() * (source.length + 1)), 0, fresh());
        if (run % 3 === 0) source.sort(() => random() - 0.5);
      }
      const expected = { I: new Set<string>(), U: new Set<string>(), D: new Set<string>() };
      const present = new Set(source.map(keyOf));
      for (const row of source) {
        const before = model.get(keyOf(row));
        if (before === undefined) expected.I.add(keyOf(row));
        else if (before !== JSON.stringify(row.slice(2))) expected.U.add(keyOf(row));
      }
      if (deletes) for (const k of model.keys()) if (!present.has(k)) expected.D.add(k);

      const { upserts, deletes: gone } = await capture(dataset(cols, source as never), o, file);
      const got = { I: new Set<string>(), U: new Set<string>(), D: new Set(gone.map(keyOf)) };
      for (const row of upserts) got[row[4] as 'I' | 'U'].add(keyOf(row));
      assert.deepEqual(got, expected, `run ${run}`);
      assert.equal(upserts.length, expected.I.size + expected.U.size);

      if (deletes) model.clear();
      for (const row of source) model.set(keyOf(row), JSON.stringify(row.slice(2)));
    }
  });
}
