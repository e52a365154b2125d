import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Grammar } from '../../runtime/script/grammar';
import { newLexer } from '../../runtime/script/tokens';

// The interpreter builds its grammar without chevrotain's checks (start-up time); they run here, where
// an ambiguous alternative or a left-recursive rule added to grammar.ts throws.
test("the statement grammar passes chevrotain's own checks (ambiguities, left recursion, duplicate rules)", () => {
  assert.doesNotThrow(() => new Grammar({ validate: true }));
});

// The lexer, likewise: a token pattern chevrotain cannot optimise or that can match nothing throws here.
test("the lexer's token patterns pass chevrotain's own checks", () => {
  assert.doesNotThrow(() => newLexer({ validate: true }));
});
