import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ColumnBuilder } from '../../runtime/dataset/column-builder';
import { PackedTextVector, TextColumnBuilder } from '../../runtime/dataset/text-vector';
import { DictionaryVector } from '../../runtime/dataset/vector';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Column, Value } from '../../runtime/dataset/types';
import { parseCsvOptions } from '../../runtime/sources/csv/options';
import { CsvReader } from '../../runtime/sources/csv/parse';
import { sessionWith } from '../sources/helpers';

const columns = (...names: string[]): Column[] => names.map((name) => ({ name, type: { base: 'string' } }));

test('a dataset made from rows gives back the same rows, cells and columns', () => {
  const ds = Dataset.fromRows(columns('a', 'b'), [
    ['1', 'x'],
    ['2', null],
    ['3', 'z'],
  ]);
  assert.equal(ds.rowCount, 3);
  assert.deepEqual(ds.rows(), [
    ['1', 'x'],
    ['2', null],
    ['3', 'z'],
  ]);
  assert.deepEqual(ds.rows(1, 2), [['2', null]]);
  assert.deepEqual(ds.column(1), ['x', null, 'z']);
  assert.equal(ds.cell(2, 0), '3');
  assert.throws(() => new Dataset(columns('a', 'b'), [['1']]), /2 columns but 1 column arrays/);
});

test('rows of records without fields keep their count with no columns', () => {
  const ds = new Dataset([], [], 4);
  assert.equal(ds.rowCount, 4);
  assert.equal(ds.pick([0, 2]).rowCount, 2);
  assert.equal(ds.slice(1, 10).rowCount, 3);
});

test('a reader fills one reused row with the ordinals asked for, and only those', () => {
  const ds = Dataset.fromRows(columns('a', 'b', 'c'), [
    ['1', 'x', 'p'],
    ['2', 'y', 'q'],
  ]);
  const read = ds.reader([2, 0]);
  const first = read(0);
  assert.deepEqual(first, ['1', null, 'p']);
  const second = read(1);
  assert.equal(second, first, 'the same array every call');
  assert.deepEqual(second, ['2', null, 'q']);
  assert.deepEqual(ds.reader()(1), ['2', 'y', 'q']);
});

test('picked rows are read through the source until a column is read, then copied once', () => {
  const source = Dataset.fromRows(columns('a', 'b'), [
    ['1', 'x'],
    ['2', 'y'],
    ['3', 'z'],
    ['4', 'w'],
  ]);
  const picked = source.pick(Uint32Array.from([3, 1]));
  assert.equal(picked.rowCount, 2);
  assert.equal(picked.cell(0, 1), 'w');
  assert.deepEqual(picked.row(1), ['2', 'y']);
  const b = picked.column(1);
  assert.deepEqual(b, ['w', 'y']);
  assert.equal(picked.column(1), b, 'a column is copied out once');
  assert.deepEqual(picked.data, [
    ['4', '2'],
    ['w', 'y'],
  ]);
  // A selection of a selection reads through both.
  const again = picked.pick([1]);
  assert.deepEqual(again.rows(), [['2', 'y']]);
  // The source is not changed by any of it.
  assert.deepEqual(source.column(0), ['1', '2', '3', '4']);
  // Columns are copies: renaming one in the result would not touch the source's schema.
  assert.notEqual(picked.columns[0], source.columns[0]);
});

test('a slice gives the rows in its range, of a dataset or of a selection', () => {
  const source = Dataset.fromRows(columns('a'), [['1'], ['2'], ['3']]);
  assert.deepEqual(source.slice(1, 2).rows(), [['2']]);
  assert.deepEqual(source.slice(0, 99).rows(), [['1'], ['2'], ['3']]);
  assert.deepEqual(source.slice(5, 9).rows(), []);
  assert.deepEqual(source.pick([2, 0]).slice(0, 1).rows(), [['3']]);
});

test('a column builder sized by an estimate grows past it, widens with nulls and is cut to its count', () => {
  const builder = new ColumnBuilder(2, 3);
  const add = (...cells: (string | null)[]) => {
    cells.forEach((v, c) => builder.add(c, v));
    builder.count++;
  };
  for (let i = 0; i < 10; i++) add(String(i), i % 2 ? null : 'even');
  builder.widen(3);
  add('last', null, 'new');
  const data = builder.finish();
  assert.deepEqual(
    data.map((values) => values.length),
    [11, 11, 11],
  );
  assert.deepEqual(data[0].values(), [...Array.from({ length: 10 }, (_, i) => String(i)), 'last']);
  assert.deepEqual(data[1].values(), [...Array.from({ length: 10 }, (_, i) => (i % 2 ? null : 'even')), null]);
  assert.deepEqual(data[2].values(), [...Array<Value>(10).fill(null), 'new']);
});

test('a text column stays a dictionary while it repeats and is packed once it does not', () => {
  const repeating = new TextColumnBuilder(10);
  const unique = new TextColumnBuilder(10);
  const expected: (string | null)[][] = [[], []];
  for (let i = 0; i < 20_000; i++) {
    const cells = [i % 7 === 0 ? null : `city ${i % 50}`, i % 11 === 0 ? null : `customer number ${i} ünïcödé`];
    repeating.add(cells[0]);
    unique.add(cells[1]);
    expected[0].push(cells[0]);
    expected[1].push(cells[1]);
  }
  const [dictionary, packed] = [repeating.finish(), unique.finish()];
  assert.ok(dictionary instanceof DictionaryVector);
  assert.ok(packed instanceof PackedTextVector);
  assert.deepEqual(dictionary.values(), expected[0]);
  assert.deepEqual(packed.values(), expected[1]);
  const rows = [19_999, 0, 1023, 1024, 11, 5000];
  assert.deepEqual(
    packed.pick(rows).values(),
    rows.map((r) => expected[1][r]),
  );
  assert.deepEqual(
    dictionary.pick(rows).values(),
    rows.map((r) => expected[0][r]),
  );
});

test('CSV read with a wrong expected length still gives every row exactly', () => {
  const lines = ['id,note'];
  for (let i = 0; i < 5000; i++) lines.push(`${i},note ${i}`);
  const text = `${lines.join('\n')}\n`;
  // Far too small (the arrays grow) and far too large (they are cut): the same rows either way.
  for (const expected of [10, text.length * 50]) {
    const reader = new CsvReader(parseCsvOptions('headers:1'), 'test.csv', expected);
    for (let at = 0; at < text.length; at += 1000) reader.push(text.slice(at, at + 1000));
    const ds = reader.end();
    assert.equal(ds.rowCount, 5000);
    assert.deepEqual(
      ds.data.map((values) => values.length),
      [5000, 5000],
    );
    assert.deepEqual(ds.row(4999), ['4999', 'note 4999']);
  }
});

test('headerless CSV: a wider row later adds columns, null in the rows before', async () => {
  const { session } = sessionWith({ 'ragged.csv': 'a,b\nc\nd,e,f\n' });
  await session.run("SELECT * FROM DRIVE 'ragged.csv' FORMAT CSV OPTIONS 'headers:0';");
  const ds = session.dataset;
  assert.deepEqual(
    ds.columns.map((c) => c.name),
    ['Column1', 'Column2', 'Column3'],
  );
  assert.deepEqual(ds.rows(), [
    ['a', 'b', null],
    ['c', null, null],
    ['d', 'e', 'f'],
  ]);
});

test('statements after a filter read the filtered rows, and a failing one leaves them as they were', async () => {
  const { session } = sessionWith({ 'n.csv': 'n,word\n5,five\n1,one\n4,four\n2,two\n3,three\n' });
  await session.run("SELECT * FROM DRIVE 'n.csv';\nAPPLY SCHEMA (int n);\nAPPLY FILTER 'n > 1' ORDER BY 'n DESC';");
  assert.deepEqual(session.dataset.rows(), [
    [5, 'five'],
    [4, 'four'],
    [3, 'three'],
    [2, 'two'],
  ]);
  await session.run("APPLY FILTER 'n < 5';\nADD COLUMN 'up=@toupper({{word}})';");
  assert.deepEqual(session.dataset.rows(), [
    [4, 'four', 'FOUR'],
    [3, 'three', 'THREE'],
    [2, 'two', 'TWO'],
  ]);
  const before = session.dataset;
  const results = [];
  for await (const r of session.execute("ADD COLUMN 'bad=@sql(Convert(word, ''System.Int32''))';")) results.push(r);
  assert.ok(results.some((r) => r.kind === 'error'));
  assert.equal(session.dataset, before);
  assert.deepEqual(session.dataset.rows(), [
    [4, 'four', 'FOUR'],
    [3, 'three', 'THREE'],
    [2, 'two', 'TWO'],
  ]);
});
