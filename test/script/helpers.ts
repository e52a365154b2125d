import assert from 'node:assert/strict';
import { ScriptError } from '../../runtime/errors';
import type { Statement, StatementKind, Text } from '../../runtime/script/ast';
import { parseScript } from '../../runtime/script/parser';

/** The only statement of `text`, checked to be of `kind`. */
export function one<K extends StatementKind>(text: string, kind: K): Extract<Statement, { kind: K }> {
  const { statements } = parseScript(text);
  assert.equal(statements.length, 1, `one statement in ${text}`);
  assert.equal(statements[0].kind, kind);
  return statements[0] as Extract<Statement, { kind: K }>;
}

/** The ScriptError parsing `text` throws. */
export function parseError(text: string, startOffset?: number): ScriptError {
  try {
    parseScript(text, startOffset);
  } catch (e) {
    assert.ok(e instanceof ScriptError, `a ScriptError, got ${String(e)}`);
    return e;
  }
  assert.fail(`expected a parse error for: ${text}`);
}

/** value and form of a Text (positions are checked separately). */
export function txt(t: Text | undefined): [string, Text['form']] | undefined {
  return t && [t.value, t.form];
}

/** The cell text from a position on (checking line/column agree with the offset). */
export function textAt(text: string, p: { line: number; column: number; offset: number } | undefined): string {
  assert.ok(p, 'a position');
  const line = text.split('\n')[p.line - 1];
  assert.equal(
    text[p.offset] ?? '',
    line[p.column - 1] ?? (p.offset < text.length ? '\n' : ''),
    'line/column and offset agree',
  );
  return text.slice(p.offset);
}

/** The node without positions, for whole-structure comparisons. */
export function plain(node: unknown): unknown {
  return JSON.parse(JSON.stringify(node, (k: string, v: unknown) => (k === 'pos' ? undefined : v))) as unknown;
}

export const q = (value: string) => ({ value, form: 'quoted' });
export const b = (value: string) => ({ value, form: 'block' });
export const bare = (value: string) => ({ value, form: 'bare' });
