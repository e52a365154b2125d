import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScriptError } from '../../runtime/errors';
import { cellStatus } from '../../runtime/script/cell';
import { parseScript, statementDocs } from '../../runtime/script/parser';

/**
 * Mangled versions of every documented example (deterministic pseudo-random edits): the parser must
 * either parse or throw a ScriptError with a position and a readable message — never anything else.
 */
test('mangled scripts give ScriptErrors with positions, never crashes', () => {
  let seed = 20240601;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const inserts = [
    "'",
    '(',
    ')',
    ';',
    '--',
    '[',
    ']',
    '{{',
    '}}',
    '#f(',
    ' WITH ',
    ' ON ',
    ' FORMAT ',
    '\n',
    '"',
    ' 5 ',
    ' -1 ',
    ' APPLY ',
    ' TRACE ',
    ' = ',
    ',',
  ];
  const bases = statementDocs.map((d) => d.example);
  let errors = 0;
  for (let i = 0; i < 4000; i++) {
    let text = pick(bases);
    for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
      const at = Math.floor(random() * (text.length + 1));
      text =
        random() < 0.5
          ? text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 4))
          : text.slice(0, at) + pick(inserts) + text.slice(at);
    }
    try {
      parseScript(text);
    } catch (e) {
      assert.ok(e instanceof ScriptError, `${JSON.stringify(text)} threw ${String(e)}`);
      assert.ok(e.position && e.position.offset <= text.length, `${JSON.stringify(text)}: ${e.message} has a position`);
      assert.doesNotMatch(e.message, /undefined|NaN|EOF|\[object/, JSON.stringify(text));
      errors++;
    }
    assert.ok(['complete', 'incomplete', 'invalid'].includes(cellStatus(text).status));
  }
  assert.ok(errors > 1000, 'most mangled scripts are errors');
});
