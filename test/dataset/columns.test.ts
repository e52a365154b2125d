import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ColumnBuilder } from '../../runtime/dataset/column-builder';
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

test('a column builder sized by an estimate grows past it and is cut to its count', () => {
  const builder = new ColumnBuilder(2);
  const add = (a: Value, b: Value) => {
    builder.reserve(1, 3);
    builder.data[0][builder.count] = a;
    builder.data[1][builder.count] = b;
    builder.count++;
  };
  for (let i = 0; i < 10; i++) add(String(i), i % 2 ? null : 'even');
  builder.widen(3);
  builder.reserve(1);
  builder.data[0][builder.count] = 'last';
  builder.data[1][builder.count] = null;
  builder.data[2][builder.count] = 'new';
  builder.count++;
  const data = builder.finish();
  assert.deepEqual(
    data.map((values) => values.length),
    [11, 11, 11],
  );
  assert.deepEqual(data[0], [...Array.from({ length: 10 }, (_, i) => String(i)), 'last']);
  assert.deepEqual(data[2], [...Array<Value>(10).fill(null), 'new']);
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
