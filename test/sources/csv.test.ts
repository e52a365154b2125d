import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, plain, schema, sessionWith } from './helpers';

test('CSV: a header line names string columns; quoted fields keep delimiters, quotes and line feeds', async () => {
  const { session } = sessionWith({ 'a.csv': '\ufeffid,name,note\n1,"Smith, J","say ""hi""\nthere"\n2,Ann,\n' });
  const ds = await load(session, "SELECT * FROM DRIVE 'a.csv';");
  assert.deepEqual(schema(ds), ['id:string', 'name:string', 'note:string']);
  assert.deepEqual(plain(ds), [
    ['1', 'Smith, J', 'say "hi"\nthere'],
    ['2', 'Ann', null],
  ]);
});

test('CSV: an empty field is null and `""` an empty string (PostgreSQL COPY … CSV), and both survive a write and a read again', async () => {
  const rows = [
    ['1', null, ''],
    ['', ' ', null],
    ['a,b', 'say "hi"', '\n'],
  ];
  const { session } = sessionWith({ 'a.csv': 'x,y,z\r\n1,,""\r\n""," ",\r\n"a,b","say ""hi""","\n"\r\n' });
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE 'a.csv';")), rows);
  for (const options of ['', 'FORCE_QUOTED', "DELIMITER '|'"]) {
    const out = `out${options.length}.csv`;
    const back = await load(
      session,
      `SELECT * FROM DRIVE 'a.csv'; SINK INTO DRIVE FORMAT CSV FILE '${out}' ADD_HEADER ${options};
       SELECT * FROM DRIVE '${out}'${options.startsWith('DELIMITER') ? " OPTIONS 'delimiter:|'" : ''};`,
    );
    assert.deepEqual(plain(back), rows, options);
  }
  // FORMAT's fragments joined by ZIP, read back by APPLY TX.
  const zipped = await load(
    session,
    `SELECT * FROM DRIVE 'a.csv'; ADD COLUMN 'doc' FORMAT CSV INCLUDE 'x,y,z';
     ZIP COLUMN 'doc' FORMAT CSV; APPLY TX 'headers:0' ON 'doc';`,
  );
  assert.deepEqual(plain(zipped), rows);
});

test('CSV: an empty string is told from null across batches, in a one-column file, with another quote and delimiter', async () => {
  // Far past one batch of parsing (64 KB), `""` first appearing late.
  const many = Array.from({ length: 20_000 }, (_, i) => (i === 19_999 ? '"",' : i % 3 === 0 ? ',x' : 'v,'));
  const { session } = sessionWith({
    'many.csv': `a,b\n${many.join('\n')}\n`,
    'one.csv': 'only\n""\n\nz\n',
    'other.csv': "a;;b;;c\n'';;;;'x;;y'\n",
    'bare.csv': 'a,b\n"",\n',
  });
  const read = plain(await load(session, "SELECT * FROM DRIVE 'many.csv';"));
  assert.deepEqual(read[0], [null, 'x']);
  assert.deepEqual(read[1], ['v', null]);
  assert.deepEqual(read[19_999], ['', null]);
  assert.equal(read.filter((r) => r.includes('')).length, 1);
  assert.deepEqual(
    plain(await load(session, "SELECT * FROM DRIVE 'one.csv';")),
    [[''], ['z']],
    'a blank line is no record',
  );
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE 'other.csv' OPTIONS 'delimiter:;; quoted:''';")), [
    ['', null, 'x;;y'],
  ]);
  // quoted:0 knows no quotes: every empty field is null, `""` is two quote characters.
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE 'bare.csv' OPTIONS 'quoted:0';")), [['""', null]]);
});

test('CSV options: headers:0 names columns Column1…; delimiter, trim, skip, comments', async () => {
  const { session } = sessionWith({
    'b.txt': 'exported by tool\nversion 2\n# a comment\n a ; b \n// another\nc;d\n',
  });
  const ds = await load(
    session,
    "SELECT * FROM DRIVE 'b.txt' FORMAT CSV OPTIONS 'headers:0 delimiter:; trim:1 skip:2 comments:#,//';",
  );
  assert.deepEqual(schema(ds), ['Column1:string', 'Column2:string']);
  assert.deepEqual(plain(ds), [
    ['a', 'b'],
    ['c', 'd'],
  ]);
});

test('CSV options: a blank delimiter, quoted:0 and a custom quote character', async () => {
  const { session } = sessionWith({ 'c.csv': 'x y\n"a b\n', 'd.csv': "x,y\n'a,b',c\n" });
  const blank = await load(session, "SELECT * FROM DRIVE 'c.csv' OPTIONS 'delimiter: quoted:0';");
  assert.deepEqual(plain(blank), [['"a', 'b']]);
  const single = await load(session, "SELECT * FROM DRIVE 'd.csv' OPTIONS 'quoted:''';");
  assert.deepEqual(plain(single), [['a,b', 'c']]);
});

test('CSV options: fixed-width fields and flatten', async () => {
  const { session } = sessionWith({
    'fixed.txt': 'id   name      city\n1    Ann       Oslo\n22   Bob       Rome extra\n',
    'multi.csv': 'a,b\n"line1\r\nline2",x\n',
  });
  const fixed = await load(session, "SELECT * FROM DRIVE 'fixed.txt' FORMAT CSV OPTIONS 'fields:5,10,4 trim:1';");
  assert.deepEqual(schema(fixed), ['id:string', 'name:string', 'city:string']);
  assert.deepEqual(plain(fixed), [
    ['1', 'Ann', 'Oslo'],
    ['22', 'Bob', 'Rome'],
  ]);
  const flat = await load(session, "SELECT * FROM DRIVE 'multi.csv' OPTIONS 'flatten:1';");
  assert.deepEqual(plain(flat), [['line1line2', 'x']]);
});

test('CSV: short rows get nulls, trailing delimiters are dropped, extra values are an error', async () => {
  const { session } = sessionWith({ 'r.csv': 'a,b,c\n1,2\n3,4,5,\n', 'bad.csv': 'a,b\n1,2\n3,4,5\n' });
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE 'r.csv';")), [
    ['1', '2', null],
    ['3', '4', '5'],
  ]);
  await assert.rejects(
    session.run("SELECT * FROM DRIVE 'bad.csv';"),
    /bad\.csv: invalid CSV: data row 2 has 3 fields; the header has 2/,
  );
});

test('CSV: duplicate and empty header names get unique names; a .tsv file is tab-separated', async () => {
  const { session } = sessionWith({ 'h.csv': 'id,ID,,name\n1,2,3,4\n', 't.tsv': 'a\tb\n1\t2\n' });
  assert.deepEqual(schema(await load(session, "SELECT * FROM DRIVE 'h.csv';")), [
    'id:string',
    'ID_2:string',
    'Column3:string',
    'name:string',
  ]);
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE 't.tsv';")), [['1', '2']]);
});

test('CSV: an unterminated quote is an error naming the file and line', async () => {
  const { session } = sessionWith({ 'q.csv': 'skip me\na,b\n1,2\n3,"open\n' });
  await assert.rejects(session.run("SELECT * FROM DRIVE 'q.csv' OPTIONS 'skip:1';"), (e: Error) => {
    assert.match(e.message, /^q\.csv: invalid CSV at line 4, column 4: quoted field unterminated/);
    return true;
  });
});

test('CSV options: unknown keys, bad values and write-only keys are rejected', async () => {
  const { session } = sessionWith({ 'a.csv': 'a\n1\n' });
  await assert.rejects(
    session.run("SELECT * FROM DRIVE 'a.csv' OPTIONS 'header:1';"),
    /unknown key 'header' \(known: headers, delimiter/,
  );
  await assert.rejects(session.run("SELECT * FROM DRIVE 'a.csv' OPTIONS 'skip:x';"), /skip takes a whole number/);
  await assert.rejects(session.run("SELECT * FROM DRIVE 'a.csv' OPTIONS 'date:s';"), /date applies to writing/);
  await assert.rejects(
    session.run("SELECT * FROM DRIVE 'a.csv' OPTIONS 'fields:5, 6';"),
    /expected key:value|fields takes/,
  );
});

test('CSV: an empty file gives an empty dataset; a header alone gives columns and no rows', async () => {
  const { session } = sessionWith({ 'e.csv': '', 'h.csv': 'a,b\n' });
  const empty = await load(session, "SELECT * FROM DRIVE 'e.csv';");
  assert.equal(empty.columns.length, 0);
  const header = await load(session, "SELECT * FROM DRIVE 'h.csv';");
  assert.deepEqual(schema(header), ['a:string', 'b:string']);
  assert.equal(header.rowCount, 0);
});
