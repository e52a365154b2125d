import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import type { StatementKind } from '../../runtime/script/ast';
import { languageReference } from '../../runtime/script/docs';
import { NESTING_LIMIT } from '../../runtime/script/limits';
import { commands, keywords, parseScript, statementDocs } from '../../runtime/script/parser';

const ALL_KINDS: StatementKind[] = [
  'SelectHttp', 'SelectDb', 'SelectDrive', 'Load', 'ApplyTx', 'ApplySchema', 'ApplyPipeline', 'ApplyHttp', 'ApplyFilter',
  'AddColumn', 'ZipColumn', 'ExecOnDb', 'Capture', 'PushHttp', 'SinkDrive', 'PushDrive', 'SinkDb', 'PushDb', 'Merge', 'Print', 'Exit',
];

test('every statement kind is documented, and every example parses to that statement', () => {
  const documented = new Set<string>();
  for (const doc of statementDocs) {
    assert.ok(doc.syntax && doc.description && doc.example, doc.keyword);
    const statements = parseScript(doc.example).statements;
    assert.ok(statements.length >= 1, doc.keyword);
    for (const s of statements) {
      assert.equal(s.keyword, doc.keyword, `example of ${doc.keyword}`);
      documented.add(s.kind);
    }
  }
  assert.deepEqual([...documented].sort(), [...ALL_KINDS].sort());
});

test('every option of every command is documented and is a keyword for completion', () => {
  const words = new Set(keywords());
  for (const doc of statementDocs) {
    const command = commands().find((c) => c.keyword === doc.keyword)!;
    assert.deepEqual(doc.options.map((o) => o.name), command.options.options.map((o) => o.name));
    for (const o of doc.options) {
      assert.ok(o.description, `${doc.keyword} ${o.name}`);
      for (const w of o.name.split(' ')) assert.ok(words.has(w), `${w} is a keyword`);
    }
  }
  for (const w of ['SELECT', 'FROM', 'HTTP', 'CSV', 'JSON', 'LINEAR', 'GET']) assert.ok(words.has(w), w);
});

test('docs/language.md is generated from the tables (run: node dist/runtime/script/docs.js)', () => {
  const file = readFileSync(resolve(__dirname, '../../../docs/language.md'), 'utf8');
  assert.equal(file, languageReference());
});

test('the hand-written expression reference names the nesting limit the code has', () => {
  const file = readFileSync(resolve(__dirname, '../../../docs/expressions.md'), 'utf8');
  assert.ok(file.includes(`nesting limit** of ${NESTING_LIMIT}`) && file.includes(`nested too deeply (limit ${NESTING_LIMIT})`));
});
