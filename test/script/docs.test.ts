import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { StatementKind } from '../../runtime/script/ast';
import { languageDocs, unavailableStatements } from '../../runtime/services/language-docs';
import { inspect } from '../../runtime/services/inspect';
import { tempDir } from '../helpers/session';
import { Session } from '../../runtime/session';
import { COMMANDS } from '../../runtime/commands/table';
import { languageReference } from '../../runtime/script/docs';
import { NESTING_LIMIT } from '../../runtime/script/limits';
import { commands, keywords, parseScript, statementDocs } from '../../runtime/script/parser';

const ALL_KINDS: StatementKind[] = [
  'SelectHttp',
  'SelectDb',
  'SelectDrive',
  'Load',
  'ApplyTx',
  'ApplySchema',
  'ApplyPipeline',
  'ApplyHttp',
  'ApplyFilter',
  'AddColumn',
  'ZipColumn',
  'ExecOnDb',
  'Capture',
  'PushHttp',
  'SinkDrive',
  'PushDrive',
  'SinkDb',
  'PushDb',
  'Merge',
  'Print',
  'Exit',
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
    assert.deepEqual(
      doc.options.map((o) => o.name),
      command.options.options.map((o) => o.name),
    );
    for (const o of doc.options) {
      assert.ok(o.description, `${doc.keyword} ${o.name}`);
      for (const w of o.name.split(' ')) assert.ok(words.has(w), `${w} is a keyword`);
    }
  }
  for (const w of ['SELECT', 'FROM', 'HTTP', 'CSV', 'JSON', 'LINEAR', 'GET']) assert.ok(words.has(w), w);
});

test('docs/language.md is generated from the tables (run: node dist/runtime/services/language-docs.js)', () => {
  const file = readFileSync(resolve(__dirname, '../../../docs/language.md'), 'utf8');
  assert.equal(file, languageDocs());
});

test('every statement runs: docs/language.md marks none as not available', () => {
  assert.deepEqual([...unavailableStatements()], []);
  assert.doesNotMatch(languageDocs(), /Not available yet/);
});

test('a statement the command table lacks says so in the reference and in inspect, and fails when run; one that runs does not', async () => {
  // An embedder's table without PUSH INTO DB (SessionOptions.commands).
  const commands = { PushDb: undefined };
  const unavailable = unavailableStatements({ ...COMMANDS, ...commands });
  assert.deepEqual([...unavailable], ['PUSH INTO DB']);
  const docs = languageReference(unavailable);
  const sectionOf = (keyword: string) =>
    docs.slice(docs.indexOf(`### ${keyword}\n`), docs.indexOf('\n### ', docs.indexOf(`### ${keyword}\n`) + 4));
  const dir = tempDir('docs');
  const session = new Session({ workspace: join(dir, 'ws'), cwd: dir, commands });
  const example = statementDocs.find((d) => d.keyword === 'PUSH INTO DB')!.example;
  assert.match(sectionOf('PUSH INTO DB'), /Not available yet/);
  await assert.rejects(session.run(example), /not supported yet: PUSH INTO DB/);
  assert.doesNotMatch(sectionOf('PRINT'), /Not available yet/);
  const found = inspect(session, example, 1);
  assert.ok(found.found && /Not available yet/.test(found.text), 'inspect of PUSH INTO DB');
  const print = inspect(session, "PRINT 'x';", 1);
  assert.ok(print.found && !/Not available yet/.test(print.text));
});

test('the hand-written expression reference names the nesting limit the code has', () => {
  const file = readFileSync(resolve(__dirname, '../../../docs/expressions.md'), 'utf8');
  assert.ok(
    file.includes(`nesting limit** of ${NESTING_LIMIT}`) && file.includes(`nested too deeply (limit ${NESTING_LIMIT})`),
  );
});

test("a statement's syntax line lists every value of the closed options it shows (FORMAT <…>)", () => {
  for (const command of commands()) {
    const doc = statementDocs.find((d) => d.keyword === command.keyword)!;
    for (const option of command.options.options) {
      const shown = new RegExp(`\\b${option.name} <([^>]+)>`).exec(doc.syntax);
      if (!shown || !option.values) continue;
      assert.deepEqual(
        shown[1].split('|').sort(),
        [...option.values].sort(),
        `${command.keyword}: the syntax shows ${option.name} <${shown[1]}>`,
      );
    }
  }
});
