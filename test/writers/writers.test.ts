import assert from 'node:assert/strict';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import Papa from 'papaparse';
import { Dataset } from '../../runtime/dataset/dataset';
import { toCsv, toJsonRows } from '../../runtime/dataset/render';
import { parseTypeName } from '../../runtime/dataset/type-names';
import type { Column, Value } from '../../runtime/dataset/types';
import {
  datasetText,
  documentChunks,
  documentText,
  documentWriter,
  writerOptions,
  type WriterOptions,
} from '../../runtime/writers';
import { tempDir } from '../helpers/session';
import { column, run, sessionWith } from '../transform/helpers';

const T = parseTypeName;
const all = (ds: Dataset) => ds.columns.map((_, i) => i);

const people: Column[] = [
  { name: 'id', type: T('int') },
  { name: 'name', type: T('string') },
  { name: 'note', type: T('string') },
];
const peopleRows: Value[][] = [
  [1, 'Ada; "the first"', 'a,b'],
  [2, '', null],
  [3, 'two\nlines', 'plain'],
];

const csv = (rows: Value[][], options: Partial<WriterOptions>, columns = people) =>
  datasetText(Dataset.fromRows(columns, rows), 'CSV', writerOptions(options));

test('JSON rows: valid objects whose numbers keep every digit; no columns give {}', () => {
  const ds = Dataset.fromRows(
    [
      { name: 'id', type: T('long') },
      { name: 'amount', type: T('decimal') },
      { name: 'name "n"', type: T('string') },
    ],
    [[9007199254740993n, new Decimal('0.1000000000000000055511151231257827'), 'ü']],
  );
  const text = datasetText(ds, 'JSON', writerOptions());
  assert.equal(text, '[{"id":9007199254740993,"amount":0.1000000000000000055511151231257827,"name \\"n\\"":"ü"}]');
  assert.deepEqual(Object.keys((JSON.parse(text) as object[])[0]), ['id', 'amount', 'name "n"']);
  assert.equal(datasetText(new Dataset([], [], 2), 'JSON', writerOptions()), '[{},{}]');
});

test('CSV delimiter: fields holding the delimiter are quoted, commas no longer are', () => {
  assert.equal(csv(peopleRows, { delimiter: ';' }), '1;"Ada; ""the first""";a,b\r\n2;"";\r\n3;"two\nlines";plain\r\n');
  assert.equal(
    csv(peopleRows, { delimiter: '\t' }),
    '1\t"Ada; ""the first"""\ta,b\r\n2\t""\t\r\n3\t"two\nlines"\tplain\r\n',
  );
  // A delimiter of several characters (and regular-expression characters) is matched as written.
  assert.equal(csv([[1, 'a|b', 'c||d']], { delimiter: '||' }), '1||a|b||"c||d"\r\n');
  const parsed = Papa.parse<string[]>(csv(peopleRows, { delimiter: ';', header: true }).trimEnd(), {
    delimiter: ';',
    newline: '\r\n',
  });
  assert.deepEqual(parsed.data, [
    ['id', 'name', 'note'],
    ['1', 'Ada; "the first"', 'a,b'],
    ['2', '', ''],
    ['3', 'two\nlines', 'plain'],
  ]);
});

test('CSV force quoting: every non-null field quoted with the quote character, null an empty field (FORCE_QUOTE); never quoting writes text as is', () => {
  assert.equal(
    csv(peopleRows, { quoting: 'always' }),
    '"1","Ada; ""the first""","a,b"\r\n"2","",\r\n"3","two\nlines","plain"\r\n',
  );
  assert.equal(
    csv([[1, "it's", null]], { quoting: 'always', quote: "'", header: true }),
    "'id','name','note'\r\n'1','it''s',\r\n",
  );
  assert.equal(csv(peopleRows.slice(0, 1), { quoting: 'never' }), '1,Ada; "the first",a,b\r\n');
  // A quote character other than `"` decides which fields need quoting.
  assert.equal(csv([[1, 'say "hi"', "it's"]], { quote: "'" }), `1,say "hi",'it''s'\r\n`);
});

test('CSV header on and off; an empty string is two quotes and null an empty field, so readers tell them apart', () => {
  const rows = peopleRows.slice(1, 2);
  assert.equal(csv(rows, { header: true }), 'id,name,note\r\n2,"",\r\n');
  assert.equal(csv(rows, { header: false }), '2,"",\r\n');
  // Never quoting leaves nothing to tell them apart by.
  assert.equal(csv(rows, { quoting: 'never' }), '2,,\r\n');
  assert.equal(csv([], { header: true }), 'id,name,note\r\n');
  assert.equal(csv([], { header: false }), '');
});

test('cell options apply to CSV, JSON and XML alike: date format, bytes encoding, trim, flatten', () => {
  const columns: Column[] = [
    { name: 'at', type: T('datetime') },
    { name: 'raw', type: T('byte[]') },
    { name: 'text', type: T('string') },
  ];
  const ds = Dataset.fromRows(columns, [
    [new Date(Date.UTC(2024, 1, 29, 13, 5)), new Uint8Array([0x68, 0x69]), '  a\r\nb  '],
  ]);
  const options = writerOptions({ date: 'dd.MM.yyyy HH:mm', bytes: 'base64', trim: true, flatten: true });
  assert.equal(datasetText(ds, 'CSV', options), '29.02.2024 13:05,aGk=,a b\r\n');
  assert.equal(datasetText(ds, 'JSON', options), '[{"at":"29.02.2024 13:05","raw":"aGk=","text":"a b"}]');
  assert.equal(
    datasetText(ds, 'XML', { ...options, element: 'row' }),
    '<?xml version="1.0" encoding="utf-8"?><root><row><at>29.02.2024 13:05</at><raw>aGk=</raw><text>a b</text></row></root>',
  );
  assert.equal(datasetText(ds, 'CSV', writerOptions({ bytes: 'utf8' })), '2024-02-29T13:05:00,hi,"  a\r\nb  "\r\n');
});

/** Rows of every type, some cells long enough that a small piece size cuts inside the data. */
function mixed(rows: number): Dataset {
  const columns: Column[] = [
    { name: 'id', type: T('long') },
    { name: 'amount', type: T('decimal(10,2)') },
    { name: 'name', type: T('string') },
    { name: 'at', type: T('datetime') },
    { name: 'ok', type: T('bool') },
  ];
  const data: Value[][] = [];
  for (let i = 0; i < rows; i++) {
    data.push([
      BigInt(i) * 1_000_000_007n,
      new Decimal(i).div(4),
      i % 3 === 0 ? null : `name ${i}, "${'x'.repeat(i % 40)}"`,
      new Date(Date.UTC(2024, 0, 1) + i * 1000),
      i % 2 === 0,
    ]);
  }
  return Dataset.fromRows(columns, data);
}

test('streaming in pieces gives the one-shot text, each piece bounded, for every format and row count', () => {
  for (const rows of [0, 1, 7, 500]) {
    const ds = mixed(rows);
    for (const format of ['CSV', 'JSON', 'XML'] as const) {
      const writer = documentWriter(
        format,
        ds.columns,
        all(ds),
        writerOptions({ header: format === 'CSV', element: 'row' }),
      );
      const whole = documentText(ds, writer);
      for (const size of [1, 100, 4096]) {
        const pieces = [...documentChunks(ds, writer, size)];
        assert.equal(pieces.join(''), whole, `${format}, ${rows} rows, pieces of ${size}`);
        assert.ok(
          pieces.every((p) => p !== ''),
          'no empty pieces',
        );
        // A piece ends at the first record that reaches the size: it never holds much more.
        const longest = Math.max(0, ...pieces.map((p) => p.length));
        assert.ok(longest <= size + 400, `${format}: a piece of ${longest} characters for pieces of ${size}`);
        if (rows === 500 && size === 100) assert.ok(pieces.length > 100, `${format}: ${pieces.length} pieces`);
      }
    }
  }
  assert.equal(toJsonRows(mixed(0)), '[]');
  assert.equal((JSON.parse(toJsonRows(mixed(500))) as unknown[]).length, 500);
});

test('a streamed CSV piped to a file is byte for byte the one-shot CSV', async () => {
  const ds = mixed(2000);
  const path = join(tempDir('writers'), 'out.csv');
  const writer = documentWriter('CSV', ds.columns, all(ds), writerOptions({ header: true }));
  await pipeline(Readable.from(documentChunks(ds, writer, 1024)), createWriteStream(path));
  assert.equal(readFileSync(path, 'utf8'), toCsv(ds));
  const parsed = Papa.parse<string[]>(readFileSync(path, 'utf8').trimEnd(), { newline: '\r\n' }).data;
  assert.equal(parsed.length, 2001);
  assert.deepEqual(parsed[1], ['0', '0.00', '', '2024-01-01T00:00:00', 'true']);
  assert.deepEqual(parsed[3], ['2000000014', '0.50', 'name 2, "xx"', '2024-01-01T00:00:02', 'true']);
});

test('a selection (APPLY FILTER) is written from its picked rows, fields in the order given', () => {
  const ds = mixed(10).pick([9, 2, 4]);
  const writer = documentWriter('CSV', ds.columns, [2, 0], writerOptions({ header: true }));
  assert.equal(
    documentText(ds, writer),
    'name,id\r\n,9000000063\r\n"name 2, ""xx""",2000000014\r\n"name 4, ""xxxx""",4000000028\r\n',
  );
});

test('FORMAT fragments zipped into a document are what the document writer writes from the rows', async () => {
  const session = sessionWith(people, peopleRows);
  const input = session.dataset;
  await run(
    session,
    `ADD COLUMN 'csv' FORMAT CSV INCLUDE 'id,name,note' OPTIONS 'delimiter:; headers:1';
    ADD COLUMN 'json' FORMAT JSON INCLUDE 'id,name,note';
    ADD COLUMN 'xml' FORMAT XML INCLUDE 'id,name,note' OPTIONS 'element:row'`,
  );
  const formatted = session.dataset;
  const zipped = async (name: string, format: string) => {
    session.setDataset(formatted);
    return column((await run(session, `ZIP COLUMN '${name}' FORMAT ${format}`)).dataset, name)[0];
  };
  assert.equal(await zipped('csv', 'CSV'), datasetText(input, 'CSV', writerOptions({ delimiter: ';', header: true })));
  assert.equal(await zipped('json', 'JSON'), toJsonRows(input));
  assert.equal(await zipped('xml', 'XML'), datasetText(input, 'XML', writerOptions({ element: 'row' })));
});
