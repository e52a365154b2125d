import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Session } from '../../runtime/session';
import { Dataset } from '../../runtime/dataset/dataset';
import { STRING } from '../../runtime/dataset/types';
import { inspect } from '../../runtime/services/inspect';
import { statementDocs } from '../../runtime/script/parser';
import { functionDocs } from '../../runtime/functions/registry';
import { tempSession } from '../helpers/session';

function session(): Session {
  const { session: s } = tempSession({}, 'inspect');
  s.setDataset(
    Dataset.fromRows(
      [
        { name: 'id', type: { base: 'long' } },
        { name: 'amount', type: { base: 'decimal', precision: 10, scale: 2 } },
        { name: 'name', type: STRING },
      ],
      [[1n, null, 'lamp']],
    ),
  );
  return s;
}

/** Inspects at the `|` in `code`. */
function at(s: Session, code: string) {
  return inspect(s, code.replace('|', ''), code.indexOf('|'));
}

function statementDoc(keyword: string) {
  const d = statementDocs.find((x) => x.keyword === keyword);
  assert.ok(d, `statementDocs has ${keyword}`);
  return d;
}

test('a function under the cursor shows its signature, description and example', () => {
  const s = session();
  const left = functionDocs().find((d) => d.name === 'left')!;
  const r = at(s, "PRINT '#le|ft(abc, 2)'");
  assert.equal(r.found, true);
  assert.ok(r.text.startsWith(left.signature));
  assert.ok(r.text.includes(left.description));
  assert.ok(r.text.includes(left.example));
  assert.ok(r.markdown?.includes('```'));
  assert.equal(at(s, '@rndguid|()').text.split('\n')[0], functionDocs().find((d) => d.name === 'rndguid')!.signature);
  assert.equal(at(s, '#nosuchfunction|()').found, false);
});

test('a keyword shows the documentation of the statement it belongs to', () => {
  const s = session();
  const filter = statementDoc('APPLY FILTER');
  const r = at(s, "APPLY FIL|TER 'amount > 1' LIMIT 5;");
  assert.ok(r.text.includes(filter.syntax), r.text);
  assert.ok(r.text.includes(filter.description));
  assert.ok(r.text.includes(filter.example));
  assert.ok(at(s, "ADD OR ALT|ER COLUMN 'x=1';").text.includes(statementDoc('ADD COLUMN').syntax));
  const second = at(s, "PRINT 'a';\nSELECT * FROM DR|IVE 'x.csv';");
  assert.ok(second.text.includes(statementDoc('SELECT FROM DRIVE').syntax), second.text);
  const keepEmpty = statementDoc('APPLY FILTER').options.find((o) => o.name === 'KEEP_EMPTY')!;
  const option = at(s, "APPLY FILTER REGEX 'a' ON 'name' KEEP_EM|PTY;");
  assert.equal(option.text.split('\n')[0], 'KEEP_EMPTY (option of APPLY FILTER)');
  assert.ok(option.text.includes(keepEmpty.description));
});

test('a column shows its type, in templates, expressions and as an identifier', () => {
  const s = session();
  const r = at(s, "PRINT '{{am|ount}}'");
  assert.equal(r.found, true);
  assert.equal(r.text.split('\n')[0], 'amount: decimal(10,2)');
  assert.equal(at(s, "PRINT '{{base64:na|me}}'").text.split('\n')[0], 'name: string');
  assert.equal(at(s, "APPLY FILTER 'i|d > 1'").text.split('\n')[0], 'id: long');
  assert.equal(at(s, 'APPLY SCHEMA ( long i|d )').text.split('\n')[0], 'id: long');
  assert.equal(at(s, "PRINT 'zz|z'").found, false);
});

test('magics and connections are documented; secrets are not shown', () => {
  const s = session();
  s.connections.add({
    name: 'my api',
    kind: 'http',
    baseUrl: 'http://127.0.0.1:1',
    auth: { type: 'bearer', token: 'T0P-S3CRET' },
  });
  const conn = at(s, 'SELECT * FROM HTTP [my a|pi] (GET /)');
  assert.equal(conn.found, true);
  assert.match(conn.text, /^\[my api\] http connection/);
  assert.ok(conn.text.includes('http://127.0.0.1:1'));
  assert.ok(!conn.text.includes('T0P-S3CRET') && !conn.markdown?.includes('T0P-S3CRET'));
  const magic = at(s, '%lim|it 5');
  assert.match(magic.text, /%limit \[N\]/);
  assert.match(at(s, "%%jo|b orders writer\nPRINT 'a';").text, /%%job NAME reader\|writer/);
  // Anywhere on a magic line: a subcommand or an option shows that magic's usage.
  assert.match(at(s, '%webhook sta|rt --no-auth').text, /^%webhook\n%webhook start \[--port N\]/);
  assert.match(at(s, '%limit 5\n%job run nigh|tly').text, /^%job\n%job create NAME/);
  assert.match(at(s, '%job upd|ate nightly --webhook').text, /\| update NAME \{--webhook \| --no-webhook\}/);
  assert.equal(at(s, '-- a comment about #le|ft').found, false);
});
