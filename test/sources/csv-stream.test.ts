import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseCsvOptions } from '../../runtime/sources/csv/options';
import { parseCsv } from '../../runtime/sources/csv/parse';
import { readCsvFile } from '../../runtime/sources/files/load';
import { load, plain, sessionWith } from './helpers';

/**
 * Files of a few MB are read and parsed in 64 KB pieces: rows, quoted fields, line endings and error
 * positions must come out as if the whole text had been parsed at once.
 */
function bigCsv(rows: number, eol: string): { text: string; expected: string[][] } {
  const expected: string[][] = [];
  const lines = ['id,city,when,note'];
  const cities = ['Oslo', 'São Paulo', 'Montréal', 'Lagos'];
  for (let i = 1; i <= rows; i++) {
    const when = `2024-01-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00`;
    // Every seventh note spans lines and every fifth holds escaped quotes: some straddle a piece boundary.
    const note =
      i % 7 === 0
        ? `line one of ${i}${eol}line two, "quoted"`
        : i % 5 === 0
          ? `say "hi" ${i}`
          : `plain note number ${i}`;
    const field = /[",\r\n]/.test(note) ? `"${note.replace(/"/g, '""')}"` : note;
    lines.push(`${i},${cities[i % cities.length]},${when},${field}`);
    expected.push([String(i), cities[i % cities.length], when, note]);
  }
  return { text: lines.join(eol) + eol, expected };
}

test('CSV files of many pieces: quoted fields across pieces, CRLF, non-ASCII and repeated values load exactly', async () => {
  const lf = bigCsv(60_000, '\n');
  const crlf = bigCsv(30_000, '\r\n');
  const { session } = sessionWith({ 'lf.csv': lf.text, 'crlf.csv': crlf.text });
  assert.ok(lf.text.length > 40 * 65536);
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE 'lf.csv';")), lf.expected);
  assert.deepEqual(plain(await load(session, "SELECT * FROM DRIVE 'crlf.csv';")), crlf.expected);
  // Old Mac line ends: no \n anywhere, so the text waits for its end; still parsed the same.
  const cr = bigCsv(20_000, '\r');
  const { session: crSession } = sessionWith({ 'cr.csv': cr.text });
  assert.deepEqual(plain(await load(crSession, "SELECT * FROM DRIVE 'cr.csv';")), cr.expected);
  // The same text parsed whole (APPLY TX on a text) gives the same rows.
  assert.deepEqual(parseCsv(lf.text, parseCsvOptions('headers:1')).rows(), lf.expected);
});

test('CSV files of many pieces: errors name the line in the whole file and the data row', async () => {
  const { text } = bigCsv(20_000, '\n');
  const lineCount = text.split('\n').length - 1;
  const { session } = sessionWith({
    'open.csv': `${text}1,Oslo,x,"never closed\n2,Oslo,y,z\n`,
    'wide.csv': `${text}9,Oslo,x,y,extra\n`,
    'late.csv': `${'skipped\n'.repeat(3)}${text}\n# note\n3,Oslo,x,"bad" quote\n`,
  });
  await assert.rejects(session.run("SELECT * FROM DRIVE 'open.csv';"), (e: Error) => {
    assert.match(
      e.message,
      new RegExp(`^open\\.csv: invalid CSV at line ${lineCount + 1}, column 11: quoted field unterminated`),
    );
    return true;
  });
  await assert.rejects(
    session.run("SELECT * FROM DRIVE 'wide.csv';"),
    /wide\.csv: invalid CSV: data row 20001 has 5 fields; the header has 4/,
  );
  await assert.rejects(session.run("SELECT * FROM DRIVE 'late.csv' OPTIONS 'skip:3 comments:#';"), (e: Error) => {
    assert.match(
      e.message,
      new RegExp(
        `^late\\.csv: invalid CSV at line ${lineCount + 6}, column 11: trailing quote on quoted field is malformed`,
      ),
    );
    return true;
  });
});

test('CSV files of many pieces: skip, comments, headers:0 and fixed-width fields', async () => {
  const body = Array.from({ length: 30_000 }, (_, i) =>
    i % 1000 === 0 ? `# comment ${i}` : `${String(i).padEnd(6)}${i % 3 === 0 ? 'abc' : 'de'}`,
  );
  const { session } = sessionWith({
    'f.txt': `title line\n${body.join('\n')}\n`,
    'short.csv': 'a,b,c\n' + '1\n'.repeat(70_000) + '1,2,3\n',
  });
  const fixed = await load(
    session,
    "SELECT * FROM DRIVE 'f.txt' FORMAT CSV OPTIONS 'headers:0 skip:1 comments:# fields:6,3 trim:1';",
  );
  const expected = body.filter((l) => !l.startsWith('#')).map((l) => [l.slice(0, 6).trim(), l.slice(6)]);
  assert.deepEqual(plain(fixed), expected);
  const short = await load(session, "SELECT * FROM DRIVE 'short.csv' OPTIONS 'headers:0';");
  assert.equal(short.rowCount, 70_002);
  assert.deepEqual(short.rows()[0], ['a', 'b', 'c']);
  assert.deepEqual(short.rows()[1], ['1', null, null]);
  assert.deepEqual(short.rows()[70_001], ['1', '2', '3']);
});

test('a CSV file read with an aborted signal is cancelled', async () => {
  const { dir } = sessionWith({ 'a.csv': 'a\n1\n' });
  await assert.rejects(
    readCsvFile(join(dir, 'a.csv'), 'a.csv', parseCsvOptions('headers:1'), AbortSignal.abort()),
    (e: Error & { kind?: string }) => {
      assert.equal(e.kind, 'cancelled');
      return true;
    },
  );
});
