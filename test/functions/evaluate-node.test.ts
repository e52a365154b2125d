import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluateText } from '../../runtime/functions/evaluate';
import type { Text } from '../../runtime/script/ast';
import { newState } from './helpers';

/** A text of a parsed script: a job's writer evaluates the same node once per webhook call. */
const node = (value: string): Text => ({ value, form: 'quoted', pos: { offset: 6, line: 1, column: 7 } });

test('a text node evaluated again sees the variables of the run it is evaluated in', () => {
  const text = node('v={{@a}}');
  const first = newState();
  first.run.pipelineVariables.set('a', 1);
  const second = newState();
  second.run.pipelineVariables.set('a', 2);
  assert.equal(evaluateText(text, first), 'v=1');
  assert.equal(evaluateText(text, second), 'v=2');
  assert.equal(evaluateText(text, first, { sql: true }), 'v=1');
});

test('a text node without fields, variables or functions is its own text, whatever the options', () => {
  const text = node('stored as is');
  const state = newState();
  assert.equal(evaluateText(text, state), 'stored as is');
  assert.equal(evaluateText(text, state, { sql: true }), 'stored as is');
  assert.equal(evaluateText(text, state, { fieldStyle: 'json' }), 'stored as is');
  assert.equal(evaluateText(node(''), state), '');
  assert.equal(evaluateText(node(''), state, { sql: true }), '');
});
