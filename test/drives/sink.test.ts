import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Decimal from 'decimal.js';
import { Dataset } from '../../runtime/index';
import { messages, session, typedRows } from './helpers';

const people = () =>
  Dataset.fromRows(
    [
      { name: 'id', type: { base: 'int' } },
      { name: 'name', type: { base: 'string' } },
      { name: 'born', type: { base: 'datetime' } },
    ],
    [
      [1, '  Ann  ', new Date('2024-03-01T10:00:00Z')],
      [2, '#Bob\nJr', new Date('2024-03-01T23:00:00Z')],
      [3, 'Cy;"x"', new Date('2024-03-02T08:30:00Z')],
      [4, null, null],
    ],
  );

function read(dir: string, path: string): string {
  return readFileSync(join(dir, path), 'utf8');
}

test('CSV FORCE_QUOTED and FORMAT quoted:1 tell null (an empty field) from an empty string (""), as PostgreSQL COPY FORCE_QUOTE', async () => {
  const { session: s, dir } = session();
  s.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'int' } },
        { name: 'a', type: { base: 'string' } },
        { name: 'b', type: { base: 'string' } },
      ],
      [
        [1, '', null],
        [2, null, 'x'],
      ],
    ),
  );
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'forced.csv' FORCE_QUOTED ADD_HEADER;");
  assert.equal(read(dir, 'forced.csv'), '"id","a","b"\r\n"1","",\r\n"2",,"x"\r\n');
  await s.run("ADD COLUMN 'line' FORMAT CSV INCLUDE 'id,a,b' OPTIONS 'quoted:1';");
  assert.deepEqual(
    s.dataset.rows().map((r) => r[3]),
    ['"1","",', '"2",,"x"'],
  );
});

test('CSV: RFC 4180 by default; ADD_HEADER, DELIMITER, FORCE_QUOTED, DATE_FORMAT, TRIM, FLATTEN, COMMENT_TOKENS', async () => {
  const { session: s, dir } = session();
  s.setDataset(people());
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'plain.csv';");
  assert.equal(
    read(dir, 'plain.csv'),
    '1,  Ann  ,2024-03-01T10:00:00\r\n2,"#Bob\nJr",2024-03-01T23:00:00\r\n3,"Cy;""x""",2024-03-02T08:30:00\r\n4,,\r\n',
  );
  await s.run(
    "SINK INTO DRIVE FORMAT CSV FILE 'opts.csv' ADD_HEADER DELIMITER ';' DATE_FORMAT 'yyyy/MM/dd' TRIM FLATTEN COMMENT_TOKENS '#';",
  );
  assert.equal(
    read(dir, 'opts.csv'),
    'id;name;born\r\n1;Ann;2024/03/01\r\n2;#Bob Jr;2024/03/01\r\n3;"Cy;""x""";2024/03/02\r\n4;;\r\n',
  );
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'quoted.tsv' FORCE_QUOTED DELIMITER '\\t';");
  assert.equal(read(dir, 'quoted.tsv').split('\r\n')[0], '"1"\t"  Ann  "\t"2024-03-01T10:00:00"');
  s.setDataset(
    Dataset.fromRows(
      [
        { name: 'c', type: { base: 'string' } },
        { name: 'n', type: { base: 'int' } },
      ],
      [['#x', 1]],
    ),
  );
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'comment.csv' COMMENT_TOKENS '#,//';");
  assert.equal(
    read(dir, 'comment.csv'),
    '"#x",1\r\n',
    'a record that would read as a comment gets its first field quoted',
  );
});

test('CSV FIXED_LENGTH pads or cuts each field to its width; a width count that does not match is an error', async () => {
  const { session: s, dir } = session();
  s.setDataset(people());
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'fixed.txt' FIXED_LENGTH '3,6,10' DATE_FORMAT 'yyyy-MM-dd';");
  assert.equal(read(dir, 'fixed.txt').split('\r\n')[0], '1    Ann 2024-03-01');
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT CSV FILE 'fixed.txt' FIXED_LENGTH '3,6';"),
    /gives 2 widths for 3 fields/,
  );
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT CSV FILE 'f.txt' FIXED_LENGTH '3,x';"),
    /FIXED_LENGTH '3,x': 'x' is not a width of at least 1/,
  );
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT JSON FILE 'f.json' ADD_HEADER;"),
    /ADD_HEADER applies to CSV files; this file is JSON/,
  );
});

test('JSON: an array of typed objects (longs and decimals exact), under ROOT_NODE when given; NDJSON one object a line', async () => {
  const { session: s, dir } = session();
  s.setDataset(typedRows());
  await s.run("SINK INTO DRIVE FORMAT JSON FILE 'rows.json';");
  const text = read(dir, 'rows.json');
  assert.ok(
    text.startsWith('[{"id":1,"big":9007199254740993,"amount":123456789012345678901234567.125,'),
    text.slice(0, 120),
  );
  assert.ok(text.endsWith('"at":null,"blob":null}]'));
  await s.run("SINK INTO DRIVE FORMAT JSON FILE 'rooted.json' ROOT_NODE 'items';");
  assert.deepEqual(Object.keys(JSON.parse(read(dir, 'rooted.json')) as object), ['items']);
  await s.run("SINK INTO DRIVE FORMAT NDJSON FILE 'rows.ndjson';");
  const lines = read(dir, 'rows.ndjson').split('\n');
  assert.equal(lines.length, 4, 'three lines, each ended by a line feed');
  assert.equal(lines[3], '');
  await s.run("SELECT * FROM DRIVE 'rows.ndjson';");
  assert.equal(s.dataset.rowCount, 3);
  assert.equal(s.dataset.cell(0, 1), 9007199254740993n, 'a long past 2^53 survives the round trip');
});

test('XML: a document under ROOT_NODE (default root), each row an ELEMENT (default row), null fields left out', async () => {
  const { session: s, dir } = session();
  s.setDataset(people());
  await s.run("SINK INTO DRIVE FORMAT XML FILE 'p.xml' DATE_FORMAT 'yyyy-MM-dd';");
  assert.equal(
    read(dir, 'p.xml'),
    '<?xml version="1.0" encoding="utf-8"?><root><row><id>1</id><name>  Ann  </name><born>2024-03-01</born></row><row><id>2</id><name>#Bob\nJr</name><born>2024-03-01</born></row>' +
      '<row><id>3</id><name>Cy;"x"</name><born>2024-03-02</born></row><row><id>4</id></row></root>',
  );
  await s.run("SINK INTO DRIVE FORMAT XML FILE 'q.xml' ROOT_NODE 'people' ELEMENT 'person';");
  await s.run("SELECT * FROM DRIVE 'q.xml' APPLY TX '//person';");
  assert.equal(s.dataset.rowCount, 4);
  s.setDataset(people());
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT XML FILE 'q.xml' ELEMENT '1bad';"),
    /ELEMENT '1bad' is not an XML element name/,
  );
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT JSON FILE 'q.json' ELEMENT 'x';"),
    /ELEMENT applies to XML files; this file is JSON/,
  );
});

test('XML read back: a one-row file is one row, and column names XML cannot spell come back as they were', async () => {
  const { session: s, dir } = session();
  const names = ['first name', '1st', 'a&b', 'x:y', 'a_x0020_b', 'party 🎉', 'ok'];
  s.setDataset(
    Dataset.fromRows(
      names.map((name) => ({ name, type: { base: 'string' as const } })),
      [names.map((n) => `v ${n}`)],
    ),
  );
  await s.run("SINK INTO DRIVE FORMAT XML FILE 'one.xml';");
  assert.match(read(dir, 'one.xml'), /<first_x0020_name>v first name<\/first_x0020_name><_x0031_st>/);
  await s.run("SELECT * FROM DRIVE 'one.xml';");
  assert.deepEqual(
    s.dataset.columns.map((c) => c.name),
    names,
  );
  assert.deepEqual(s.dataset.rows(), [names.map((n) => `v ${n}`)]);
  // A root with attributes of its own, or a single child that is a leaf, is still the one record.
  writeFileSync(join(dir, 'attr.xml'), '<order id="7"><customer><name>Ann</name></customer></order>');
  await s.run("SELECT * FROM DRIVE 'attr.xml';");
  assert.deepEqual(
    s.dataset.columns.map((c) => c.name),
    ['id', 'customer'],
  );
  writeFileSync(join(dir, 'leaf.xml'), '<order><total>5</total></order>');
  await s.run("SELECT * FROM DRIVE 'leaf.xml';");
  assert.deepEqual(
    s.dataset.columns.map((c) => c.name),
    ['total'],
  );
});

test('RAW and COLUMN: a field value is the whole file (bytes as they are); a ZIP COLUMN document becomes one file', async () => {
  const { session: s, dir } = session();
  s.setDataset(people());
  await s.run("ADD COLUMN 'doc' FORMAT JSON INCLUDE 'id,name' COLLAPSE;\nZIP COLUMN 'doc' FORMAT JSON BATCH 3;");
  await s.run("SINK INTO DRIVE FORMAT JSON FILE 'zipped/#rndguid().json' COLUMN 'doc' FILE_PER_ROW;");
  const docs = readdirSync(join(dir, 'zipped')).map((n) => JSON.parse(read(dir, `zipped/${n}`)) as unknown[]);
  assert.deepEqual(docs.map((d) => d.length).sort(), [1, 3], 'one file per document of the batches');
  assert.deepEqual(
    docs.find((d) => d.length === 1),
    [{ id: 4, name: null }],
  );
  s.setDataset(
    Dataset.fromRows(
      [{ name: 'b', type: { base: 'bytes' } }],
      [[new Uint8Array([0xde, 0xad])], [new Uint8Array([0xbe, 0xef])]],
    ),
  );
  await s.run("SINK INTO DRIVE FORMAT RAW FILE 'blob.bin';");
  assert.deepEqual([...readFileSync(join(dir, 'blob.bin'))], [0xde, 0xad, 0xbe, 0xef]);
  s.setDataset(people());
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT RAW FILE 'x.txt';"),
    /FORMAT RAW writes one field's values: add COLUMN '<field>' \(the dataset has 3 columns\)/,
  );
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT RAW FILE 'x.txt' COLUMN 'nope';"),
    /COLUMN 'nope': unknown column \(columns: id, name, born\)/,
  );
});

test('FILE_PER_ROW: FILE evaluated per row with {{field}} and functions; each file one row (JSON an object)', async () => {
  const { session: s, dir } = session();
  s.setDataset(people());
  const out = await s.run("SINK INTO DRIVE FORMAT JSON FILE 'people/{{id}}-#rndguid().json' FILE_PER_ROW;");
  const names = readdirSync(join(dir, 'people')).sort();
  assert.equal(names.length, 4);
  assert.match(names[0], /^1-[0-9a-f-]{36}\.json$/);
  assert.equal(new Set(names.map((n) => n.slice(2))).size, 4, '#rndguid() is evaluated per row');
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'people', names[2]), 'utf8')), {
    id: 3,
    name: 'Cy;"x"',
    born: '2024-03-02T08:30:00',
  });
  assert.match(messages(out)[0], /^SINK INTO DRIVE: 4 rows in 4 files on .*: people\/1-.*…$/);
  await assert.rejects(s.run("SINK INTO DRIVE FORMAT CSV FILE 'same/x.csv' FILE_PER_ROW;"), (e: Error) => {
    assert.match(
      e.message,
      /FILE_PER_ROW: rows 1 and 2 both name the file 'same\/x\.csv'; add a field that tells them apart to FILE/,
    );
    return true;
  });
  assert.equal(existsSync(join(dir, 'same')), false, 'nothing written when two rows name one file');
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT CSV FILE '{{nope}}.csv' FILE_PER_ROW;"),
    (e: Error & { position?: { column: number } }) => {
      assert.match(e.message, /nope/);
      assert.equal(e.position?.column, 34, 'at the FILE text');
      return true;
    },
  );
});

test('row data in FILE cannot lead out of its folder: a value with a .. segment or a leading slash is refused before any file is written', async () => {
  const { session: s, dir } = session({ 'root/keep.txt': 'x' });
  await s.run('%connection add lake --drive root');
  for (const bad of ['../../escaped', '/tmp/absolute', '..', 'a/../../b', '..\\x']) {
    s.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'string' } }], [['1'], [bad]]));
    for (const target of [
      "SINK INTO DRIVE [lake] FORMAT JSON FILE 'out/{{id}}.json' FILE_PER_ROW;",
      "SINK INTO DRIVE FORMAT JSON FILE '#tolower({{id}})' FILE_PER_ROW;",
      "PUSH INTO DRIVE [lake] FORMAT CSV FILE 'x/{{id}}.csv' FILE_PER_ROW;",
    ]) {
      await assert.rejects(
        s.run(target),
        (e: Error) => {
          assert.match(
            e.message,
            /FILE: row 2's id '.*' would lead out of the folder \(a '\.\.' segment or a leading slash\)/,
          );
          return true;
        },
        `${target} with ${bad}`,
      );
    }
  }
  assert.deepEqual(readdirSync(join(dir, 'root')), ['keep.txt'], 'nothing written');
  // Data may name subfolders; the script's own text may go where it says (without a connection: through
  // one it stays inside the root, test/drives/confine.test.ts).
  s.setDataset(Dataset.fromRows([{ name: 'day', type: { base: 'string' } }], [['2024/05/01'], ['x..y']]));
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'root/../beside/{{day}}.csv' FILE_PER_ROW;");
  assert.deepEqual(
    [existsSync(join(dir, 'beside', '2024', '05', '01.csv')), existsSync(join(dir, 'beside', 'x..y.csv'))],
    [true, true],
  );
});

test('CONTAINER is a folder under the drive; DATE_FIELD writes one file per day under yyyy/MM/dd (undated rows apart)', async () => {
  const { session: s, dir } = session();
  s.setDataset(people());
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'people.csv' CONTAINER 'lake/#format(2024, \"0\")' DATE_FIELD 'born';");
  assert.equal(
    read(dir, 'lake/2024/2024/03/01/people.csv'),
    '1,  Ann  ,2024-03-01T10:00:00\r\n2,"#Bob\nJr",2024-03-01T23:00:00\r\n',
  );
  assert.equal(read(dir, 'lake/2024/2024/03/02/people.csv'), '3,"Cy;""x""",2024-03-02T08:30:00\r\n');
  assert.equal(read(dir, 'lake/2024/undated/people.csv'), '4,,\r\n');
  await assert.rejects(
    s.run("SINK INTO DRIVE FORMAT CSV FILE 'p.csv' DATE_FIELD 'name';"),
    /DATE_FIELD 'name' must be a datetime column, not string/,
  );
});

test('atomic: a SINK that fails keeps the old file whole and leaves no temp file; a good one replaces it', async () => {
  const { session: s, dir } = session();
  s.setDataset(people());
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'out/p.csv' ADD_HEADER;");
  const before = read(dir, 'out/p.csv');
  await assert.rejects(s.run("SINK INTO DRIVE FORMAT RAW FILE 'out/p.csv' COLUMN 'missing';"));
  s.setDataset(
    Dataset.fromRows([{ name: 'd', type: { base: 'decimal', precision: 3, scale: 0 } }], [[new Decimal('12345')]]),
  );
  await assert.rejects(s.run("SINK INTO DRIVE FORMAT PARQUET FILE 'out/p.csv';"), /does not fit decimal\(3,0\)/);
  assert.equal(read(dir, 'out/p.csv'), before);
  assert.deepEqual(readdirSync(join(dir, 'out')), ['p.csv'], 'no staged file left');
  s.setDataset(people());
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'out/p.csv';");
  assert.notEqual(read(dir, 'out/p.csv'), before);
  assert.equal(existsSync(join(dir, 'out/p.csv')), true);
});

test('a large dataset streams to its file: 300,000 rows of CSV, every line there', async () => {
  const { session: s, dir } = session();
  const n = 300_000;
  s.setDataset(
    new Dataset(
      [
        { name: 'i', type: { base: 'int' } },
        { name: 's', type: { base: 'string' } },
      ],
      [Array.from({ length: n }, (_, i) => i), Array.from({ length: n }, (_, i) => `row ${i}`)],
    ),
  );
  await s.run("SINK INTO DRIVE FORMAT CSV FILE 'big.csv' ADD_HEADER;");
  const lines = read(dir, 'big.csv').split('\r\n');
  assert.equal(lines.length, n + 2);
  assert.equal(lines[n], `${n - 1},row ${n - 1}`);
});

test('NDJSON read under FORMAT JSON and .jsonl: one document a line, detected; a pretty-printed document is still one', async () => {
  const { session: s } = session({
    'log.json': '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n\n{"a":3,"c":true}\n',
    'log.jsonl': '{"a":1}\n{"a":2}\n',
    'pretty.json': '{\n  "a": 1\n}\n',
    'broken.json': '{"a":1}\n{"a":\n',
  });
  await s.run("SELECT * FROM DRIVE 'log.json' FORMAT JSON;");
  assert.equal(s.dataset.rowCount, 3);
  assert.deepEqual(
    s.dataset.columns.map((c) => c.name),
    ['a', 'b', 'c'],
  );
  await s.run("SELECT * FROM DRIVE 'log.jsonl';");
  assert.equal(s.dataset.rowCount, 2);
  await s.run("SELECT * FROM DRIVE 'pretty.json';");
  assert.equal(s.dataset.rowCount, 1);
  await assert.rejects(s.run("SELECT * FROM DRIVE 'broken.json';"), /line 2/);
});

test('an empty dataset: SINK still writes its file (a CSV header, an empty JSON array, a Parquet schema); PUSH writes none', async () => {
  const { session: s, dir } = session();
  s.setDataset(people().slice(0, 0));
  await s.run(
    "SINK INTO DRIVE FORMAT CSV FILE 'e.csv' ADD_HEADER;\nSINK INTO DRIVE FORMAT JSON FILE 'e.json';\nSINK INTO DRIVE FORMAT PARQUET FILE 'e.parquet';",
  );
  assert.equal(read(dir, 'e.csv'), 'id,name,born\r\n');
  assert.equal(read(dir, 'e.json'), '[]');
  await s.run("SELECT * FROM DRIVE 'e.parquet';");
  assert.deepEqual(
    s.dataset.columns.map((c) => c.name),
    ['id', 'name', 'born'],
  );
  assert.equal(s.dataset.rowCount, 0);
  s.setDataset(people().slice(0, 0));
  const out = await s.run("PUSH INTO DRIVE FORMAT CSV FILE 'p.csv';");
  assert.equal(existsSync(join(dir, 'p.csv')), false);
  assert.match(messages(out)[0], /^PUSH INTO DRIVE: 0 rows in 0 files on /);
});
